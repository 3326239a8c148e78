#pragma once
// The Operations dock: every operation of every endpoint live, newest first — state, a progress
// bar, the message (or the failure in the operator's words), who asked, the target and its age.
// An operation awaiting a second operator's approval can be approved here by anyone but its
// requester (fleetd refuses self-approval; the console says so before anyone tries). Viewers see
// the list and no approve control at all. The wall display has no docks.

#include "ActionWording.h"
#include "OperationsModel.h"

#include <QDockWidget>
#include <QPointer>
#include <QTimer>
#include <QVector>

class QLabel;
class QMenu;
class QPushButton;
class QTableView;

namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class OperationsDock : public QDockWidget {
    Q_OBJECT
public:
    // `labels` name the endpoints when there are several (the Endpoint column).
    OperationsDock(const QVector<QPointer<client::ControlClient>>& controls, const QStringList& labels,
                   QWidget* parent = nullptr);

    client::OperationsModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QPushButton* approveButton() const { return m_approve; }
    // Whether the operation on that model row can be approved by this console's operator; `why`
    // says why not (for the tooltip).
    bool canApprove(int row, QString* why = nullptr) const;
    // The row's context menu (approve, copy ids).
    void populateMenu(QMenu& menu, int row);
    // Asks for a reason and approves the operation on the model row.
    void approveRow(int row);
    void applyTheme(const widgets::Theme& theme);

signals:
    void approvalDialogOpened(QDialog* dialog);

private:
    void updateApproveButton();
    void updateStatus();
    int selectedRow() const;

    QVector<QPointer<client::ControlClient>> m_controls;
    ActionColours m_colours;
    client::OperationsModel* m_model;
    QTableView* m_table;
    QPushButton* m_approve;
    QLabel* m_status;
    QTimer m_ageTimer;
};

}  // namespace watchfloor::ui
