#pragma once
// Audit page: fleetd's audit trail, one row per decision (allowed, denied, result) with who, role,
// action, target, reason and request id, newest first; filters by principal, action and decision;
// older pages load as the operator scrolls (or with "Load older"). fleetd shows the trail to
// operators and admins only; for a viewer the page says so instead of showing an empty table.
// Not part of the war-room wall.

#include "Page.h"
#include "PageContext.h"

#include <QSortFilterProxyModel>
#include <QTimer>

#include <map>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace watchfloor::client {
class AuditModel;
}

namespace watchfloor::ui {

class PageHeader;

// Keeps the loaded audit rows that match a principal (case-insensitive, "" = anyone), an action
// and a decision ("" = any).
class AuditFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setCriteria(const QString& principal, const QString& action, const QString& decision);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_principal;
    QString m_action;
    QString m_decision;
};

class AuditPage : public Page {
    Q_OBJECT
public:
    AuditPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Audit; }
    // A name filters the trail to that principal; empty shows everyone.
    bool showEntity(const QString& name) override;
    QString entity() const override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setActive(bool active) override;

    void setFilters(const QString& principal, const QString& action, const QString& decision);
    int visibleEntryCount() const;
    // Why no table is shown (viewer, no control connection, identity unknown); empty when it is.
    QString explanation() const;
    // The selected endpoint's trail (null without a control connection); shown only when readable.
    client::AuditModel* model() const;
    QTableView* table() const { return m_table; }
    QPushButton* loadOlderButton() const { return m_loadOlder; }

private:
    client::ControlClient* currentControl() const;
    void switchEndpoint();
    void updateView();
    void updateActionChoices();
    void applyFilters();
    void fitColumns();

    PageContext m_context;
    PageHeader* m_header;
    QComboBox* m_endpointBox;
    QLineEdit* m_principalEdit;
    QComboBox* m_actionBox;
    QComboBox* m_decisionBox;
    QStackedWidget* m_stack;
    QLabel* m_explanation;
    QTableView* m_table;
    QPushButton* m_loadOlder;
    AuditFilter* m_filter;
    std::map<int, client::AuditModel*> m_models;  // by endpoint, made on first use; children of the page
    QTimer m_refreshSoon;                         // an operation changed: the trail has news
};

}  // namespace watchfloor::ui
