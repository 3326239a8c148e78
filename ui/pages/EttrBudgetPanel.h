#pragma once
// "What separates ETTR from 1": Meta's E[ETTR] term by term (restarts, rework since the last
// checkpoint, checkpoint saves) beside the shares the goodput ledger measured, then the slow
// steps that are ETTR but not goodput. Fleet or one job; the footnote says which failure rate
// each number uses.

#include "watchfloor/v1/fleet.pb.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

// What the panel shows for one scope: the budget and the three ratios it explains.
struct EttrBudgetView {
    watchfloor::v1::EttrBudget budget;
    double expectedEttr = 0;  // E[ETTR] (configured rates); 0 with no configured rates
    double ettr = 0;
    double goodput = 0;
    bool measured = false;  // false: nothing measured yet (starting, no step telemetry)
    QString note;           // the footnote: the failure rates used and what they count
    QString noteDetail;     // its tooltip (the full list of causes)
};

class EttrBudgetPanel : public QWidget {
    Q_OBJECT
public:
    explicit EttrBudgetPanel(QWidget* parent = nullptr);

    void setView(const EttrBudgetView& view);
    void applyTheme(const widgets::Theme& theme);
    // The cell text (row label in column 0, E[ETTR] in 1, measured in 2), for tests.
    QString cell(int row, int column) const;
    int rowOf(const QString& label) const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitNote();
    void setRow(int row, const QString& label, const QString& expected, const QString& measured, bool total);

    QTableWidget* m_table;
    QLabel* m_note;
    const widgets::Theme* m_theme = nullptr;
};

}  // namespace watchfloor::ui
