#include "ScrapeTargetModel.h"

#include "FleetStore.h"
#include "ModelRoles.h"
#include "StateLabels.h"
#include "ValueFormat.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

int badness(v1::TargetHealth health) {
    switch (health) {
    case v1::TARGET_HEALTH_DOWN: return 3;
    case v1::TARGET_HEALTH_FROZEN: return 2;
    case v1::TARGET_HEALTH_UP: return 0;
    default: return 1;
    }
}

QString ageSince(const FleetStore& store, int endpoint, std::int64_t unixMs) {
    if (unixMs <= 0) return QStringLiteral("never");
    return formatAge(std::chrono::milliseconds(
               std::max<std::int64_t>(0, store.endpointFleet(endpoint).serverTimeUnixMs() - unixMs))) +
           QStringLiteral(" ago");
}

}  // namespace

ScrapeTargetModel::ScrapeTargetModel(const FleetStore& store, QObject* parent)
    : QAbstractTableModel(parent), m_store(store) {
    connect(&store, &FleetStore::changed, this, [this](const FleetChangeSet& c) { refresh(c); });
    m_rows = currentRows();
}

std::vector<ScrapeTargetModel::Row> ScrapeTargetModel::currentRows() const {
    std::vector<Row> rows;
    for (int endpoint = 0; endpoint < m_store.endpointCount(); ++endpoint) {
        const auto& trays = m_store.endpointFleet(endpoint).telemetryByTray();
        const std::size_t first = rows.size();
        for (const auto& [node, telemetry] : trays)
            for (int t = 0; t < telemetry.targets_size(); ++t) rows.push_back(Row{endpoint, node, t});
        std::sort(rows.begin() + std::ptrdiff_t(first), rows.end(),
                  [](const Row& a, const Row& b) { return a.node != b.node ? a.node < b.node : a.target < b.target; });
    }
    return rows;
}

void ScrapeTargetModel::refresh(const FleetChangeSet& changes) {
    if (!changes.telemetryChanged && !changes.topologyChanged && !changes.freshnessTick &&
        changes.endpointsChanged.isEmpty())
        return;
    std::vector<Row> rows = currentRows();
    if (rows != m_rows) {
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
        return;
    }
    if (!m_rows.empty()) emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

int ScrapeTargetModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int ScrapeTargetModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const v1::ScrapeTarget* ScrapeTargetModel::target(int row) const {
    if (row < 0 || row >= int(m_rows.size())) return nullptr;
    const Row& r = m_rows[std::size_t(row)];
    const v1::TelemetryHealth* telemetry = m_store.endpointFleet(r.endpoint).telemetry(r.node);
    return telemetry && r.target < telemetry->targets_size() ? &telemetry->targets(r.target) : nullptr;
}

ScrapeTargetModel::Counts ScrapeTargetModel::counts() const {
    Counts c;
    for (int row = 0; row < int(m_rows.size()); ++row) {
        const v1::ScrapeTarget* t = target(row);
        if (!t) continue;
        ++c.targets;
        switch (t->health()) {
        case v1::TARGET_HEALTH_UP: ++c.up; break;
        case v1::TARGET_HEALTH_DOWN: ++c.down; break;
        case v1::TARGET_HEALTH_FROZEN: ++c.frozen; break;
        default: ++c.unscraped; break;
        }
    }
    return c;
}

QVariant ScrapeTargetModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& r = m_rows[std::size_t(index.row())];
    const v1::ScrapeTarget* t = target(index.row());
    if (!t) return {};
    const EntityId tray{quint16(r.endpoint), r.node};
    if (role == EntityIdRole) return QVariant::fromValue(tray);
    if (role == FreshnessRole) {
        if (t->health() == v1::TARGET_HEALTH_UP) return int(Freshness::Fresh);
        return int(t->health() == v1::TARGET_HEALTH_UNSPECIFIED ? Freshness::Missing : Freshness::Silent);
    }
    const std::int64_t now = m_store.endpointFleet(r.endpoint).serverTimeUnixMs();
    auto host = [&] {
        const v1::Node* node = m_store.nodeInfo(tray);
        const QString name = m_store.name(tray);
        if (!node || node->hostname().empty() || QString::fromStdString(node->hostname()) == name) return name;
        return QStringLiteral("%1 (%2)").arg(name, QString::fromStdString(node->hostname()));
    };
    const bool answered = t->last_success_unix_ms() > 0;
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (Column(index.column())) {
        case Endpoint: return m_store.endpointDisplayName(r.endpoint);
        case Host: return host();
        case Exporter: return QString::fromStdString(t->exporter());
        case State: return targetHealthLabel(t->health());
        case Since:
            return t->since_unix_ms() > 0 ? ageSince(m_store, r.endpoint, t->since_unix_ms()) : QStringLiteral("—");
        case LastSuccess: return ageSince(m_store, r.endpoint, t->last_success_unix_ms());
        case Duration:
            return t->health() == v1::TARGET_HEALTH_UNSPECIFIED
                       ? QStringLiteral("—")
                       : QStringLiteral("%1 s").arg(t->scrape_duration_s(), 0, 'f', 3);
        case Series: return answered ? QString::number(t->series()) : QStringLiteral("—");
        case Rejected: return answered ? QString::number(t->rejected_lines()) : QStringLiteral("—");
        case LastError: return t->last_error().empty() ? QStringLiteral("—") : QString::fromStdString(t->last_error());
        case Url: return QString::fromStdString(t->url());
        case ColumnCount: break;
        }
        return {};
    }
    if (role == SortRole) {
        switch (Column(index.column())) {
        case State: return badness(t->health());
        case Since: return double(t->since_unix_ms() > 0 ? now - t->since_unix_ms() : -1);
        case LastSuccess:
            return double(answered ? now - t->last_success_unix_ms() : std::numeric_limits<double>::max());
        case Duration: return t->scrape_duration_s();
        case Series: return double(t->series());
        case Rejected: return double(t->rejected_lines());
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::TextAlignmentRole) {
        switch (Column(index.column())) {
        case Since:
        case LastSuccess:
        case Duration:
        case Series:
        case Rejected: return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        default: return {};
        }
    }
    return {};
}

QVariant ScrapeTargetModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const titles[ColumnCount] = {"Endpoint",       "Host",         "Exporter",    "State",
                                                    "Since",          "Last success", "Scrape took", "Series",
                                                    "Rejected lines", "URL",          "Last error"};
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(titles[section]) : QVariant();
}

}  // namespace watchfloor::client
