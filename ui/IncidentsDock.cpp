#include "IncidentsDock.h"

#include "EntityNavigation.h"
#include "FleetFormat.h"
#include "OperatorActions.h"

#include "client/FleetStore.h"
#include "widgets/Theme.h"

#include <QApplication>
#include <QClipboard>
#include <QListWidget>
#include <QMenu>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

namespace {
constexpr int kMaxShown = 200;
constexpr int kSerialRole = Qt::UserRole + 1;
}  // namespace

IncidentsDock::IncidentsDock(const client::FleetStore& store, OperatorActions* actions, QWidget* parent)
    : QDockWidget(QStringLiteral("Alerts"), parent), m_store(store), m_actions(actions), m_list(new QListWidget(this))
{
    setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetFloatable);
    m_list->setUniformItemSizes(false);
    m_list->setWordWrap(true);
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    m_list->setToolTip(QStringLiteral("Warning and critical events, newest first. Double-click to open the entity."));
    setWidget(m_list);
    setMinimumWidth(320);
    connect(&store, &client::FleetStore::changed, this, [this](const client::FleetChangeSet& changes) {
        if (changes.eventsAdded > 0 || changes.eventsTrimmed > 0 || changes.topologyChanged)
            rebuild();
    });
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const client::StoredEvent* event = m_store.eventBySerial(item->data(kSerialRole).toULongLong());
        if (event)
            emit navigationRequested(locationFor(m_store, m_store.eventEntity(*event)));
    });
    connect(m_list, &QWidget::customContextMenuRequested, this, &IncidentsDock::showContextMenu);
}

void IncidentsDock::applyTheme(const widgets::Theme& theme)
{
    m_theme = &theme;
    rebuild();
}

int IncidentsDock::incidentCount() const { return m_list->count(); }

void IncidentsDock::rebuild()
{
    if (!m_theme)
        return;
    m_list->clear();
    for (quint64 serial = m_store.nextEventSerial(); serial-- > m_store.firstEventSerial() && m_list->count() < kMaxShown;) {
        const client::StoredEvent* stored = m_store.eventBySerial(serial);
        if (!stored || stored->event.severity() < v1::SEVERITY_WARNING)
            continue;
        const v1::Event& e = stored->event;
        const QString entity = m_store.name(m_store.eventEntity(*stored));
        auto* item = new QListWidgetItem(QStringLiteral("%1 %2  %3  %4\n%5")
                                             .arg(eventGlyph(e.type()), formatUnixMs(e.time_unix_ms()), entity,
                                                  client::toString(e.type()), QString::fromStdString(e.message())),
                                         m_list);
        item->setForeground(severityColor(e.severity(), *m_theme));
        item->setData(kSerialRole, serial);
        item->setToolTip(QStringLiteral("%1 — %2").arg(client::toString(e.severity()), QString::fromStdString(e.message())));
    }
    setWindowTitle(QStringLiteral("Alerts (%1)").arg(m_list->count()));
}

void IncidentsDock::showContextMenu(const QPoint& pos)
{
    QListWidgetItem* item = m_list->itemAt(pos);
    if (!item)
        return;
    QMenu menu(this);
    populateMenu(menu, m_list->row(item));
    if (!menu.isEmpty())
        menu.exec(m_list->viewport()->mapToGlobal(pos));
}

void IncidentsDock::populateMenu(QMenu& menu, int row)
{
    QListWidgetItem* item = m_list->item(row);
    const quint64 serial = item ? item->data(kSerialRole).toULongLong() : 0;
    const client::StoredEvent* event = item ? m_store.eventBySerial(serial) : nullptr;
    if (!event)
        return;
    const client::EntityId entityId = m_store.eventEntity(*event);
    const QString entity = m_store.name(entityId);
    // The menu runs an event loop in which the store may trim this event: copy what it needs.
    menu.addAction(QStringLiteral("Open %1").arg(entity),
                   [this, entityId] { emit navigationRequested(locationFor(m_store, entityId)); });
    menu.addAction(QStringLiteral("Copy name"), [entity] { QApplication::clipboard()->setText(entity); });
    const QString message = QString::fromStdString(event->event.message());
    menu.addAction(QStringLiteral("Copy message"), [message] { QApplication::clipboard()->setText(message); });
    if (m_actions)
        m_actions->addToMenu(menu, m_actions->draftsForEvent(serial), window());
}

}  // namespace watchfloor::ui
