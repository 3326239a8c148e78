#include "IncidentsDock.h"

#include "ActionBar.h"
#include "EntityNavigation.h"
#include "FleetFormat.h"
#include "IncidentList.h"
#include "OperatorActions.h"

#include "FleetStore.h"
#include "Theme.h"

#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QHeaderView>
#include <QListWidget>
#include <QMenu>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <chrono>
#include <unordered_map>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

namespace {
constexpr int kMaxShown = 200;
constexpr int kMaxResolvedShown = 50;
constexpr int kSerialRole = Qt::UserRole + 1;    // an event row: its store serial
constexpr int kCauseRole = Qt::UserRole + 2;     // an incident row: its cause's EntityId key, 0 = none
constexpr int kIncidentRole = Qt::UserRole + 3;  // an incident row: its id
constexpr int kEndpointRole = Qt::UserRole + 4;  // an incident row: its endpoint

// An event of one endpoint's run, as incidents name them.
std::uint64_t memberKey(int endpoint, std::uint64_t eventId) { return (std::uint64_t(endpoint) << 48) ^ eventId; }

}  // namespace

IncidentsDock::IncidentsDock(const client::FleetStore& store, OperatorActions* actions, QWidget* parent)
    : QDockWidget(QStringLiteral("Alerts"), parent),
      m_store(store),
      m_actions(actions),
      m_tree(new QTreeWidget(this)),
      m_list(new QListWidget(this)),
      m_stepBar(new ActionBar(actions, this)) {
    setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetFloatable);
    m_tree->setHeaderHidden(true);
    m_tree->setColumnCount(1);
    m_tree->setWordWrap(true);
    m_tree->setUniformRowHeights(false);
    m_tree->setToolTip(
        QStringLiteral("Incidents: alerts grouped by probable cause. Expand for the member alerts; "
                       "double-click to open the incident's page."));
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        if (const quint64 serial = item->data(0, kSerialRole).toULongLong()) {
            if (const client::StoredEvent* event = m_store.eventBySerial(serial))
                emit navigationRequested(locationFor(m_store, m_store.eventEntity(*event)));
        } else if (!item->parent()) {
            openIncident(m_tree->indexOfTopLevelItem(item));
        }
    });
    m_list->setUniformItemSizes(false);
    m_list->setWordWrap(true);
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    m_list->setToolTip(
        QStringLiteral("Warning and critical events in no incident, newest first. Double-click to open "
                       "the entity."));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(m_list);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* body = new QWidget(this);
    auto* bodyLayout = new QVBoxLayout(body);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    bodyLayout->setSpacing(4);
    bodyLayout->addWidget(split, 1);
    m_stepBar->setObjectName(QStringLiteral("alertStepBar"));
    m_stepBar->setToolTip(
        QStringLiteral("The selected Xid's recommended step: its tray's repair case's next rung, "
                       "else NVIDIA's first action for the Xid"));
    m_stepBar->setDraftSource([this] {
        return m_actions && m_selectedSerial ? m_actions->repairStepForEvent(m_selectedSerial) : QList<ActionDraft>{};
    });
    bodyLayout->addWidget(m_stepBar);
    setWidget(body);
    auto follow = [this](quint64 serial) {
        m_selectedSerial = serial;
        m_stepBar->refresh();
    };
    connect(m_list, &QListWidget::currentItemChanged, this,
            [follow](QListWidgetItem* item) { follow(item ? item->data(kSerialRole).toULongLong() : 0); });
    connect(m_tree, &QTreeWidget::currentItemChanged, this,
            [follow](QTreeWidgetItem* item) { follow(item ? item->data(0, kSerialRole).toULongLong() : 0); });
    setMinimumWidth(320);
    m_tree->viewport()->installEventFilter(this);
    connect(&store, &client::FleetStore::changed, this, [this](const client::FleetChangeSet& changes) {
        if (changes.eventsAdded > 0 || changes.eventsTrimmed > 0 || changes.topologyChanged || changes.incidentsChanged)
            rebuild();
        // A case's next rung moves as its steps run; a trimmed event takes its step with it.
        if (changes.repairsChanged || changes.eventsTrimmed > 0 || !changes.dirtyRackRows.empty()) m_stepBar->refresh();
    });
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const client::StoredEvent* event = m_store.eventBySerial(item->data(kSerialRole).toULongLong());
        if (event) emit navigationRequested(locationFor(m_store, m_store.eventEntity(*event)));
    });
    connect(m_list, &QWidget::customContextMenuRequested, this, &IncidentsDock::showContextMenu);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QTreeWidgetItem* item = m_tree->itemAt(pos);
        if (!item) return;
        QMenu menu(this);
        populateIncidentMenu(menu, m_tree->indexOfTopLevelItem(item));
        if (!menu.isEmpty()) menu.exec(m_tree->viewport()->mapToGlobal(pos));
    });
}

bool IncidentsDock::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_tree->viewport() && event->type() == QEvent::Resize) fitIncidentRows();
    return QDockWidget::eventFilter(watched, event);
}

void IncidentsDock::fitIncidentRows() {
    // QTreeView sizes a wrapped row for the whole column width, but an indented row's text has
    // less: its last line came out elided ("3 jobs · …"). Each top-level row gets the height its
    // text needs in the width it really has.
    const QFontMetrics metrics(m_tree->font());
    const int width = std::max(80, m_tree->viewport()->width() - m_tree->indentation() - 8);
    for (int row = 0; row < m_tree->topLevelItemCount(); ++row) {
        QTreeWidgetItem* item = m_tree->topLevelItem(row);
        const QRect text = metrics.boundingRect(QRect(0, 0, width, 100000), Qt::TextWordWrap, item->text(0));
        item->setSizeHint(0, QSize(width, text.height() + 6));
    }
}

void IncidentsDock::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    rebuild();
}

int IncidentsDock::incidentCount() const { return m_tree->topLevelItemCount(); }

int IncidentsDock::alertCount() const { return m_list->count(); }

void IncidentsDock::rebuildIncidents(std::vector<std::uint64_t>* memberKeys) {
    // Member events by (endpoint, event id), from the events the store holds.
    std::unordered_map<std::uint64_t, quint64> serialOf;
    for (quint64 serial = m_store.firstEventSerial(); serial < m_store.nextEventSerial(); ++serial)
        if (const client::StoredEvent* stored = m_store.eventBySerial(serial))
            serialOf[memberKey(stored->endpoint, stored->event.id())] = serial;

    const std::vector<IncidentRef> rows = incidentsInDockOrder(m_store);
    for (const IncidentRef& row : rows)
        for (std::uint64_t member : row.incident->member_event_ids())
            memberKeys->push_back(memberKey(row.endpoint, member));
    m_tree->clear();
    int resolvedShown = 0;
    for (const IncidentRef& row : rows) {
        const v1::Incident& incident = *row.incident;
        const bool open = isOpen(incident);
        if (!open && resolvedShown++ == kMaxResolvedShown) break;
        const QString age = formatAge(std::chrono::milliseconds(incidentAgeMs(m_store, row.endpoint, incident)));
        const QString cost = QStringLiteral("%1 GPU-h").arg(incident.goodput_cost_gpu_hours(), 0, 'f', 1);
        auto* item = new QTreeWidgetItem(m_tree);
        const bool owned =
            incident.state() == v1::INCIDENT_STATE_ACKNOWLEDGED || incident.state() == v1::INCIDENT_STATE_MITIGATED;
        item->setText(0, QStringLiteral("%1 %2\n%3 alert%4 · %5 · %6 %7 · %8")
                             .arg(!open   ? QStringLiteral("○")
                                  : owned ? QStringLiteral("◐")
                                          : QStringLiteral("●"),
                                  QString::fromStdString(incident.root_cause().summary()))
                             .arg(incident.member_count())
                             .arg(incident.member_count() == 1 ? "" : "s")
                             .arg(incidentScope(incident.blast_radius()), lifecycleWords(incident), age, cost));
        item->setData(0, kIncidentRole, QVariant::fromValue<quint64>(incident.id()));
        item->setData(0, kEndpointRole, row.endpoint);
        item->setForeground(0, open ? severityColor(incident.severity(), *m_theme) : m_theme->colors().textDim);
        item->setToolTip(0, QString::fromStdString(incident.title()));
        const auto& cause = incident.root_cause();
        if (cause.has_entity())
            item->setData(
                0, kCauseRole,
                QVariant::fromValue<quint64>(client::EntityId{quint16(row.endpoint), cause.entity_index()}.key()));
        for (std::uint64_t member : incident.member_event_ids()) {
            const auto found = serialOf.find(memberKey(row.endpoint, member));
            if (found == serialOf.end()) continue;  // older than the events the console keeps
            const v1::Event& e = m_store.eventBySerial(found->second)->event;
            auto* child = new QTreeWidgetItem(item);
            child->setText(
                0, QStringLiteral("%1 %2  %3")
                       .arg(eventGlyph(e.type()), formatUnixMs(e.time_unix_ms()), QString::fromStdString(e.message())));
            child->setForeground(0, severityColor(e.severity(), *m_theme));
            child->setData(0, kSerialRole, QVariant::fromValue<quint64>(found->second));
        }
    }
}

void IncidentsDock::rebuild() {
    if (!m_theme) return;
    // Rebuilding clears the lists and with them the selection: the selected alert is selected again.
    const quint64 selected = m_selectedSerial;
    std::vector<std::uint64_t> members;
    rebuildIncidents(&members);
    fitIncidentRows();
    std::sort(members.begin(), members.end());
    m_list->clear();
    for (quint64 serial = m_store.nextEventSerial();
         serial-- > m_store.firstEventSerial() && m_list->count() < kMaxShown;) {
        const client::StoredEvent* stored = m_store.eventBySerial(serial);
        if (!stored || stored->event.severity() < v1::SEVERITY_WARNING) continue;
        if (std::binary_search(members.begin(), members.end(), memberKey(stored->endpoint, stored->event.id())))
            continue;  // listed under its incident
        const v1::Event& e = stored->event;
        const QString entity = m_store.name(m_store.eventEntity(*stored));
        auto* item = new QListWidgetItem(QStringLiteral("%1 %2  %3  %4\n%5")
                                             .arg(eventGlyph(e.type()), formatUnixMs(e.time_unix_ms()), entity,
                                                  client::toString(e.type()), QString::fromStdString(e.message())),
                                         m_list);
        item->setForeground(severityColor(e.severity(), *m_theme));
        item->setData(kSerialRole, serial);
        item->setToolTip(
            QStringLiteral("%1 — %2").arg(client::toString(e.severity()), QString::fromStdString(e.message())));
        if (serial == selected) m_list->setCurrentItem(item);
    }
    for (int row = 0; selected && row < m_tree->topLevelItemCount(); ++row)
        for (int member = 0; member < m_tree->topLevelItem(row)->childCount(); ++member)
            if (QTreeWidgetItem* child = m_tree->topLevelItem(row)->child(member);
                child->data(0, kSerialRole).toULongLong() == selected)
                m_tree->setCurrentItem(child);
    int open = 0;
    for (int endpoint = 0; endpoint < m_store.endpointCount(); ++endpoint)
        open += int(m_store.endpointFleet(endpoint).openIncidentCount());
    setWindowTitle(QStringLiteral("Alerts — %1 open incident%2, %3 other alert%4")
                       .arg(open)
                       .arg(open == 1 ? "" : "s")
                       .arg(m_list->count())
                       .arg(m_list->count() == 1 ? "" : "s"));
}

void IncidentsDock::showContextMenu(const QPoint& pos) {
    QListWidgetItem* item = m_list->itemAt(pos);
    if (!item) return;
    QMenu menu(this);
    populateMenu(menu, m_list->row(item));
    if (!menu.isEmpty()) menu.exec(m_list->viewport()->mapToGlobal(pos));
}

void IncidentsDock::populateIncidentMenu(QMenu& menu, int row) {
    QTreeWidgetItem* item = row >= 0 ? m_tree->topLevelItem(row) : nullptr;
    if (!item) return;
    const int endpoint = item->data(0, kEndpointRole).toInt();
    const auto& incidents = m_store.endpointFleet(endpoint).incidents();
    const auto found = incidents.find(item->data(0, kIncidentRole).toULongLong());
    if (found == incidents.end()) return;
    // The menu runs an event loop in which the store may change the incident: copy what it needs.
    menu.addAction(QStringLiteral("Open incident %1").arg(found->first), [this, row] { openIncident(row); });
    if (const quint64 cause = item->data(0, kCauseRole).toULongLong())
        menu.addAction(
            QStringLiteral("Open %1").arg(QString::fromStdString(found->second.root_cause().name())),
            [this, cause] { emit navigationRequested(locationFor(m_store, client::EntityId::fromKey(cause))); });
    const QString title = QString::fromStdString(found->second.title());
    menu.addAction(QStringLiteral("Copy title"), [title] { QApplication::clipboard()->setText(title); });
    if (m_actions) m_actions->addToMenu(menu, m_actions->draftsForIncident(endpoint, found->second), window());
}

void IncidentsDock::selectAlert(int row) { m_list->setCurrentRow(row); }

bool IncidentsDock::openIncident(int row) {
    QTreeWidgetItem* item = row >= 0 ? m_tree->topLevelItem(row) : nullptr;
    if (!item) return false;
    emit navigationRequested({PageId::Incident, incidentKey(m_store, item->data(0, kEndpointRole).toInt(),
                                                            item->data(0, kIncidentRole).toULongLong())});
    return true;
}

void IncidentsDock::populateMenu(QMenu& menu, int row) {
    QListWidgetItem* item = m_list->item(row);
    const quint64 serial = item ? item->data(kSerialRole).toULongLong() : 0;
    const client::StoredEvent* event = item ? m_store.eventBySerial(serial) : nullptr;
    if (!event) return;
    const client::EntityId entityId = m_store.eventEntity(*event);
    const QString entity = m_store.name(entityId);
    // The menu runs an event loop in which the store may trim this event: copy what it needs.
    menu.addAction(QStringLiteral("Open %1").arg(entity),
                   [this, entityId] { emit navigationRequested(locationFor(m_store, entityId)); });
    menu.addAction(QStringLiteral("Copy name"), [entity] { QApplication::clipboard()->setText(entity); });
    const QString message = QString::fromStdString(event->event.message());
    menu.addAction(QStringLiteral("Copy message"), [message] { QApplication::clipboard()->setText(message); });
    if (m_actions) m_actions->addToMenu(menu, m_actions->draftsForEvent(serial), window());
}

}  // namespace watchfloor::ui
