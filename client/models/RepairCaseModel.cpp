#include "RepairCaseModel.h"

#include "FleetStore.h"
#include "ModelRoles.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

RepairCaseModel::RepairCaseModel(const FleetStore& store, QObject* parent)
    : QAbstractTableModel(parent), m_store(store) {
    connect(&store, &FleetStore::changed, this, [this](const FleetChangeSet& c) {
        if (c.repairsChanged || c.topologyChanged) {
            refresh();
        } else if (c.freshnessTick && m_open > 0) {
            // Open cases age with the fleet clock.
            for (RepairCaseRow& row : m_rows)
                if (row.open)
                    row.ageMs = std::max<std::int64_t>(
                        0, m_store.endpointFleet(row.endpoint).serverTimeUnixMs() - row.record.opened_unix_ms());
            emit dataChanged(index(0, Age), index(m_open - 1, OutOfService));
        }
    });
    refresh();
}

void RepairCaseModel::refresh() {
    beginResetModel();
    m_rows = repairCaseRows(m_store, kClosedShown);
    m_open = int(std::count_if(m_rows.begin(), m_rows.end(), [](const RepairCaseRow& r) { return r.open; }));
    endResetModel();
}

int RepairCaseModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int RepairCaseModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const RepairCaseRow* RepairCaseModel::caseAt(int row) const {
    return row >= 0 && row < int(m_rows.size()) ? &m_rows[std::size_t(row)] : nullptr;
}

int RepairCaseModel::rowOf(int endpoint, std::uint64_t caseId) const {
    for (std::size_t row = 0; row < m_rows.size(); ++row)
        if (m_rows[row].endpoint == endpoint && m_rows[row].record.id() == caseId) return int(row);
    return -1;
}

QVariant RepairCaseModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Tray: return QStringLiteral("Tray");
    case State: return QStringLiteral("State");
    case Fault: return QStringLiteral("Fault");
    case Step: return QStringLiteral("Step");
    case Age: return QStringLiteral("Open for / took");
    case Owner: return QStringLiteral("Owner");
    case OutOfService: return QStringLiteral("Out of service");
    default: return {};
    }
}

QVariant RepairCaseModel::data(const QModelIndex& index, int role) const {
    const RepairCaseRow* row = index.isValid() ? caseAt(index.row()) : nullptr;
    if (!row) return {};
    const v1::RepairCase& c = row->record;
    if (role == EntityIdRole) return QVariant::fromValue(row->tray);
    if (role == Qt::ToolTipRole) {
        QString tip = QString::fromStdString(c.fault());
        if (!c.next_reason().empty()) tip += QStringLiteral("\n") + QString::fromStdString(c.next_reason());
        return tip;
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Age: return double(row->ageMs);
        case OutOfService: return c.out_of_service_gpu_hours();
        case State: return double(row->open ? 0 : 1) + double(c.state()) / 10.0;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Tray: return row->trayName;
    case State: {
        QString state = repairCaseStateLabel(c.state());
        if (c.automated() && !row->open) state += QStringLiteral(" (auto)");
        return state;
    }
    case Fault: return QString::fromStdString(c.fault());
    case Step: return repairCaseStepText(c);
    case Age: return formatRepairDuration(double(row->ageMs) / 1000.0);
    case Owner: return repairCaseOwnerText(c);
    case OutOfService: return QStringLiteral("%1 GPU-h").arg(c.out_of_service_gpu_hours(), 0, 'f', 1);
    default: return {};
    }
}

}  // namespace watchfloor::client
