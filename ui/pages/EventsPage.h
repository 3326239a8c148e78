#pragma once
// Events page: one timeline of Xids, throttling, link flaps, leaks, CDU alarms, stragglers, job
// restarts and automated actions, newest first; filter by severity, type and entity (an entity
// includes everything inside it); double-click jumps to the entity. The selected Xid's recommended
// break/fix step is a button in the header (and in the row's menu), for an operator only.

#include "Page.h"
#include "PageContext.h"

#include "watchfloor/v1/fleet.pb.h"

class QComboBox;
class QLineEdit;

namespace watchfloor::client {
class EventFilterProxyModel;
class EventListModel;
struct FleetChangeSet;
}  // namespace watchfloor::client

namespace watchfloor::ui {

class AcknowledgedEventsProxy;
class ActionBar;
class EntityTableView;
class EventAcknowledgements;
class OperatorActions;
class PageHeader;

class EventsPage : public Page {
    Q_OBJECT
public:
    EventsPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Events; }
    bool showEntity(const QString& name) override;
    QString entity() const override { return m_entity; }
    void setWallDisplay(bool wall) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;

    void setMinimumSeverity(watchfloor::v1::Severity severity);
    void setTypeFilter(int type);  // watchfloor::v1::EventType; 0 = all
    int visibleEventCount() const;
    EntityTableView* table() const { return m_table; }
    AcknowledgedEventsProxy* acknowledgedEvents() const { return m_acknowledged; }
    ActionBar* stepBar() const { return m_stepBar; }

private:
    void updateSummary();

    client::FleetStore& m_store;
    OperatorActions* m_actions;
    QString m_entity;
    PageHeader* m_header;
    QComboBox* m_severityBox;
    QComboBox* m_typeBox;
    QLineEdit* m_entityEdit;
    client::EventListModel* m_model;
    EventAcknowledgements* m_acknowledgements;
    AcknowledgedEventsProxy* m_acknowledged;
    client::EventFilterProxyModel* m_filter;
    EntityTableView* m_table;
    ActionBar* m_stepBar;
};

}  // namespace watchfloor::ui
