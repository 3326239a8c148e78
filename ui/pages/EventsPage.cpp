#include "EventsPage.h"

#include "ActionBar.h"
#include "EntityNavigation.h"
#include "EntityTableView.h"
#include "EventAcknowledgements.h"
#include "FleetFormat.h"
#include "OperatorActions.h"
#include "PageHeader.h"

#include "EventFilterProxyModel.h"
#include "EventListModel.h"
#include "FleetStore.h"
#include "ModelRoles.h"
#include "Theme.h"

#include <QComboBox>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QVBoxLayout>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

EventsPage::EventsPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_store(*context.store),
      m_actions(context.actions),
      m_header(new PageHeader(QStringLiteral("Events"), this)),
      m_severityBox(new QComboBox),
      m_typeBox(new QComboBox),
      m_entityEdit(new QLineEdit),
      m_model(new client::EventListModel(m_store, this)),
      m_acknowledgements(new EventAcknowledgements(context.controls, this)),
      m_acknowledged(new AcknowledgedEventsProxy(m_store, *m_acknowledgements, client::EventListModel::Message, this)),
      m_filter(new client::EventFilterProxyModel(m_store, this)),
      m_table(nullptr),
      m_stepBar(new ActionBar(context.actions)) {
    m_acknowledged->setSourceModel(m_model);
    m_filter->setSourceModel(m_acknowledged);
    m_table = new EntityTableView(m_store, m_filter, this);
    m_table->setObjectName(QStringLiteral("eventsTable"));
    // Newest first is the model's own order; sorting stays available from the header.
    m_table->proxy()->sort(-1);

    m_severityBox->addItem(QStringLiteral("All severities"), int(v1::SEVERITY_UNSPECIFIED));
    m_severityBox->addItem(QStringLiteral("Info and above"), int(v1::SEVERITY_INFO));
    m_severityBox->addItem(QStringLiteral("Warning and above"), int(v1::SEVERITY_WARNING));
    m_severityBox->addItem(QStringLiteral("Critical only"), int(v1::SEVERITY_CRITICAL));
    m_typeBox->addItem(QStringLiteral("All types"), 0);
    for (int type = v1::EventType_MIN + 1; type <= v1::EventType_MAX; ++type) {
        if (v1::EventType_IsValid(type)) m_typeBox->addItem(client::toString(v1::EventType(type)), type);
    }
    m_entityEdit->setPlaceholderText(QStringLiteral("Entity (rack, node, GPU, job …)"));
    m_entityEdit->setClearButtonEnabled(true);
    m_entityEdit->setMinimumWidth(220);
    m_stepBar->setObjectName(QStringLiteral("eventStepBar"));
    m_stepBar->setDraftSource([this] {
        const QModelIndex current = m_table->selectionModel()->currentIndex();
        const quint64 serial =
            current.isValid() ? m_table->proxy()->index(current.row(), 0).data(client::EventSerialRole).toULongLong()
                              : 0;
        return m_actions && serial ? m_actions->repairStepForEvent(serial) : QList<ActionDraft>{};
    });
    m_header->addControl(m_stepBar);
    m_header->addControl(m_severityBox);
    m_header->addControl(m_typeBox);
    m_header->addControl(m_entityEdit);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    layout->addWidget(m_header);
    layout->addWidget(m_table, 1);

    connect(m_severityBox, &QComboBox::currentIndexChanged, this, [this] {
        m_filter->setMinimumSeverity(m_severityBox->currentData().toInt());
        updateSummary();
    });
    connect(m_typeBox, &QComboBox::currentIndexChanged, this, [this] {
        const int type = m_typeBox->currentData().toInt();
        m_filter->setTypes(type ? QSet<int>{type} : QSet<int>{});
        updateSummary();
    });
    connect(m_entityEdit, &QLineEdit::editingFinished, this, [this] {
        const QString text = m_entityEdit->text().trimmed();
        if (text != m_entity) emit navigationRequested({PageId::Events, text});
    });
    connect(m_table, &EntityTableView::entityActivated, this,
            [this](client::EntityId id) { emit navigationRequested(locationFor(m_store, id)); });
    m_table->setMenuExtension([this](QMenu& menu, int row) {
        if (!m_actions) return;
        const quint64 serial = m_table->proxy()->index(row, 0).data(client::EventSerialRole).toULongLong();
        m_actions->addToMenu(menu, m_actions->draftsForEvent(serial), window());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, m_stepBar, &ActionBar::refresh);
    connect(&m_store, &client::FleetStore::changed, this, [this](const client::FleetChangeSet& changes) {
        if (changes.eventsAdded > 0 || changes.eventsTrimmed > 0) updateSummary();
        if (changes.repairsChanged || changes.eventsTrimmed > 0 || !changes.dirtyRackRows.empty()) m_stepBar->refresh();
    });
    updateSummary();
}

bool EventsPage::showEntity(const QString& name) {
    if (name.isEmpty()) {
        m_entity.clear();
        m_filter->setEntity({});
    } else {
        const client::EntityId id = m_store.findByName(name);
        if (!id.isValid()) return false;
        m_entity = m_store.name(id);
        m_filter->setEntity(id);
    }
    m_entityEdit->setText(m_entity);
    updateSummary();
    emit entityShown(m_entity);
    return true;
}

void EventsPage::setMinimumSeverity(v1::Severity severity) {
    m_severityBox->setCurrentIndex(std::max(0, m_severityBox->findData(int(severity))));
}

void EventsPage::setTypeFilter(int type) { m_typeBox->setCurrentIndex(std::max(0, m_typeBox->findData(type))); }

int EventsPage::visibleEventCount() const { return m_table->proxy()->rowCount(); }

void EventsPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
    m_table->setReadOnlyWall(wall);
    if (wall) setMinimumSeverity(v1::SEVERITY_WARNING);
}

void EventsPage::applyTheme(const widgets::Theme& theme) {
    m_header->applyTheme(theme);
    m_table->verticalHeader()->setDefaultSectionSize(QFontMetrics(theme.font(9.5)).height() + 8);
}

bool EventsPage::hasContent() const { return m_store.eventCount() > 0; }

void EventsPage::updateSummary() {
    m_header->setTitle(m_entity.isEmpty() ? QStringLiteral("Events") : QStringLiteral("Events · %1").arg(m_entity));
    m_header->setSummary(QStringLiteral("%1 of %2 events shown · newest first · double-click to open the entity")
                             .arg(m_table->proxy()->rowCount())
                             .arg(m_store.eventCount()));
    m_table->resizeColumnToContents(client::EventListModel::Time);
    m_table->resizeColumnToContents(client::EventListModel::Severity);
    m_table->resizeColumnToContents(client::EventListModel::Type);
    m_table->resizeColumnToContents(client::EventListModel::Entity);
}

}  // namespace watchfloor::ui
