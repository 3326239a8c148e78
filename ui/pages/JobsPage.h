#pragma once
// Jobs page: every training job (state, size, goodput, ETTR, MFU, checkpoint age, stragglers),
// and the selected job in detail: its trays, model, checkpointing and recovery.

#include "Page.h"
#include "PageContext.h"

#include "EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

class QLabel;
class QListWidget;

namespace watchfloor::client {
struct FleetChangeSet;
class JobTableModel;
}  // namespace watchfloor::client

namespace watchfloor::ui {

class ActionBar;
class EntityTableView;
class OperatorActions;
class PageHeader;

class JobsPage : public Page {
    Q_OBJECT
public:
    JobsPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Jobs; }
    bool showEntity(const QString& name) override;
    QString entity() const override;
    void setWallDisplay(bool wall) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setActive(bool active) override;

    EntityTableView* table() const { return m_table; }
    QString detailText() const;
    ActionBar* actionBar() const { return m_actionBar; }

private:
    void onStoreChanged(const client::FleetChangeSet& changes);
    void refreshDetail();
    void fillTrays(const watchfloor::v1::Job& job);  // the job's trays, stragglers first
    void selectRowOf(client::EntityId job);

    client::FleetStore& m_store;
    OperatorActions* m_actions;
    const widgets::Theme* m_theme = nullptr;
    client::EntityId m_job;
    PageHeader* m_header;
    client::JobTableModel* m_model;
    EntityTableView* m_table;
    QLabel* m_detail;
    QListWidget* m_nodes;
    ActionBar* m_actionBar;
    bool m_dirty = true;
};

}  // namespace watchfloor::ui
