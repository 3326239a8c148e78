#include "LinkRiskModel.h"

#include "FleetStore.h"
#include "ModelRoles.h"

#include <algorithm>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

LinkRiskModel::LinkRiskModel(const FleetStore& store, QObject* parent) : QAbstractTableModel(parent), m_store(store) {
    connect(&store, &FleetStore::changed, this, [this](const FleetChangeSet& c) {
        if (c.linksChanged || c.topologyChanged || c.jobsReset) {
            refresh();
        } else if (c.freshnessTick && !m_rows.empty()) {
            for (LinkRiskRow& row : m_rows)
                row.atStake =
                    linkAtStakeText(row.record.at_stake(), m_store.endpointFleet(row.endpoint).serverTimeUnixMs());
            emit dataChanged(index(0, AtStake), index(int(m_rows.size()) - 1, AtStake));
        }
    });
    refresh();
}

void LinkRiskModel::refresh() {
    beginResetModel();
    m_rows = linkRiskRows(m_store);
    const auto elevated = std::stable_partition(m_rows.begin(), m_rows.end(),
                                                [](const LinkRiskRow& row) { return !elevatedOnly(row.record); });
    m_pressing = int(elevated - m_rows.begin());
    endResetModel();
}

bool LinkRiskModel::elevatedOnly(const v1::LinkHealth& link) {
    if (link.at_risk() || link.stage() > v1::LINK_STAGE_WATCH) return false;
    switch (link.verdict()) {
    case v1::LINK_VERDICT_WARNING:
    case v1::LINK_VERDICT_ERROR:
    case v1::LINK_VERDICT_SATURATED: return false;
    default: return true;
    }
}

void LinkRiskModel::setElevatedShown(bool shown) {
    if (shown == m_elevatedShown) return;
    beginResetModel();
    m_elevatedShown = shown;
    endResetModel();
}

bool LinkRiskModel::lists(EntityId port) const {
    return std::any_of(m_rows.begin(), m_rows.end(), [&](const LinkRiskRow& row) { return row.port == port; });
}

int LinkRiskModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_elevatedShown ? int(m_rows.size()) : m_pressing;
}

int LinkRiskModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const LinkRiskRow* LinkRiskModel::linkAt(int row) const {
    return row >= 0 && row < rowCount() ? &m_rows[std::size_t(row)] : nullptr;
}

int LinkRiskModel::rowOf(EntityId port) const {
    for (int row = 0; row < rowCount(); ++row)
        if (m_rows[std::size_t(row)].port == port) return row;
    return -1;
}

QVariant LinkRiskModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Ber: return QStringLiteral("Symbol BER of the host end / the switch end over the current window");
        case P1h:
        case P6h:
        case P24h: return QStringLiteral("Probability that the link crosses the Error line (1e-14) or goes down");
        case Eta: return QStringLiteral("Hours until the BER trend crosses the Error line, with its 90 % interval");
        case AtStake:
            return QStringLiteral(
                "GPU-h unplanned vs planned: the GPU-hours an unplanned failure would cost the jobs on the tray "
                "(restart + progress since their checkpoint) against a drain at their next checkpoint");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case Link: return QStringLiteral("Link");
    case Verdict: return QStringLiteral("Verdict");
    case Ber: return QStringLiteral("BER host / switch");
    case P1h: return QStringLiteral("P 1 h");
    case P6h: return QStringLiteral("P 6 h");
    case P24h: return QStringLiteral("P 24 h");
    case Eta: return QStringLiteral("To Error");
    case Influencer: return QStringLiteral("Top influencer");
    case Jobs: return QStringLiteral("Jobs");
    case AtStake: return QStringLiteral("GPU-h at stake");
    case Stage: return QStringLiteral("Stage");
    default: return {};
    }
}

QVariant LinkRiskModel::data(const QModelIndex& index, int role) const {
    const LinkRiskRow* row = index.isValid() ? linkAt(index.row()) : nullptr;
    if (!row) return {};
    const v1::LinkForecast& f = row->record.forecast();
    if (role == EntityIdRole) return QVariant::fromValue(row->port);
    if (role == MinorRole) return index.row() >= m_pressing;
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
        case Ber: return row->ber;  // elided where the influencer and the GPU-hours need the width
        case Influencer: {
            QStringList lines;
            for (const v1::LinkInfluencer& in : f.influencers()) lines << QString::fromStdString(in.text());
            return lines.join(QLatin1Char('\n'));
        }
        case AtStake:
            return linkAtStakeDetail(row->record.at_stake(), m_store.endpointFleet(row->endpoint).serverTimeUnixMs());
        case Stage: return row->stage;
        default: return {};
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
        case P1h: return f.p_error_or_down_1h();
        case P6h: return f.p_error_or_down_6h();
        case P24h: return f.p_error_or_down_24h();
        case Eta: return f.confirmed_error() ? 0.0 : f.hours_to_error() >= 0 ? f.hours_to_error() : 1e9;
        case AtStake: return row->record.at_stake().unplanned_gpu_hours();
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Link: return row->record.at_risk() ? QStringLiteral("▲ %1").arg(row->name) : row->name;
    case Verdict: return row->verdict;
    case Ber: return row->ber;
    case P1h: return row->p1h;
    case P6h: return row->p6h;
    case P24h: return row->p24h;
    case Eta: return row->eta;
    case Influencer: return row->influencer;
    case Jobs: return row->jobs;
    case AtStake: return row->atStake;
    case Stage: return linkStageLabel(row->record.stage());
    default: return {};
    }
}

}  // namespace watchfloor::client
