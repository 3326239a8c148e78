#include "LinksAtRisk.h"

#include "FleetStore.h"
#include "RepairCases.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

QString linkVerdictLabel(v1::LinkVerdict verdict) {
    switch (verdict) {
    case v1::LINK_VERDICT_NO_DATA: return QStringLiteral("no data");
    case v1::LINK_VERDICT_JUDGING: return QStringLiteral("judging");
    case v1::LINK_VERDICT_NORMAL: return QStringLiteral("Normal");
    case v1::LINK_VERDICT_ELEVATED: return QStringLiteral("elevated");
    case v1::LINK_VERDICT_SATURATED: return QStringLiteral("saturated");
    case v1::LINK_VERDICT_WARNING: return QStringLiteral("Warning");
    case v1::LINK_VERDICT_ERROR: return QStringLiteral("Error");
    default: return {};
    }
}

QString linkStageLabel(v1::LinkStage stage) {
    switch (stage) {
    case v1::LINK_STAGE_WATCH: return QStringLiteral("watch");
    case v1::LINK_STAGE_PROPOSED: return QStringLiteral("proposed");
    case v1::LINK_STAGE_ISOLATING: return QStringLiteral("isolating");
    case v1::LINK_STAGE_ISOLATED: return QStringLiteral("isolated");
    case v1::LINK_STAGE_TREATED: return QStringLiteral("treated");
    case v1::LINK_STAGE_RETURNED: return QStringLiteral("returned");
    default: return {};
    }
}

namespace {

QString berNumber(double ber) { return QString::number(ber, 'e', 1); }

// 3.2 → "3.2", 31.4 → "31": hours (and GPU-hours) read to two figures.
QString hoursNumber(double hours) { return QString::number(hours, 'f', hours < 10 ? 1 : 0); }

int verdictRank(v1::LinkVerdict v) {
    switch (v) {
    case v1::LINK_VERDICT_ERROR: return 5;
    case v1::LINK_VERDICT_WARNING: return 4;
    case v1::LINK_VERDICT_SATURATED: return 3;
    case v1::LINK_VERDICT_ELEVATED: return 2;
    case v1::LINK_VERDICT_JUDGING: return 1;
    default: return 0;
    }
}

// Worst first: at risk, then P(6 h), then the worse verdict.
bool worse(const v1::LinkHealth& a, const v1::LinkHealth& b) {
    if (a.at_risk() != b.at_risk()) return a.at_risk();
    const double pa = a.forecast().p_error_or_down_6h(), pb = b.forecast().p_error_or_down_6h();
    if (pa != pb) return pa > pb;
    return verdictRank(a.verdict()) > verdictRank(b.verdict());
}

QString durationFromNow(std::int64_t deltaMs) {
    if (deltaMs <= 0) return QStringLiteral("due now");
    return QStringLiteral("in %1").arg(formatRepairDuration(double(deltaMs) / 1000.0));
}

}  // namespace

QString linkEndBerText(const v1::LinkBer& end) {
    if (!end.text().empty()) return QString::fromStdString(end.text());
    if (end.verdict() == v1::LINK_VERDICT_NO_DATA || end.bits() <= 0) return QStringLiteral("no BER");
    if (end.upper_only()) return QStringLiteral("≤ %1 (95 %)").arg(berNumber(end.upper()));
    return berNumber(end.point());
}

QString linkBerText(const v1::LinkHealth& link) {
    const QString host = linkEndBerText(link.host_end());
    const QString far = link.one_end_seen() ? QStringLiteral("one end seen") : linkEndBerText(link.switch_end());
    return QStringLiteral("%1 / %2").arg(host, far);
}

QString linkProbabilityText(double p) {
    if (!std::isfinite(p) || p < 0) return QStringLiteral("—");
    if (p < 0.01) return QStringLiteral("< 1 %");
    if (p > 0.99) return QStringLiteral("> 99 %");
    return QStringLiteral("%1 %").arg(std::lround(p * 100));
}

QString linkEtaText(const v1::LinkForecast& f) {
    if (f.confirmed_error()) return QStringLiteral("now");
    if (!(f.hours_to_error() >= 0)) return QStringLiteral("—");
    const QString eta = QStringLiteral("%1 h").arg(hoursNumber(f.hours_to_error()));
    const double low = f.hours_to_error_low(), high = f.hours_to_error_high();
    if (!(low >= 0) || !(high >= 0) || high <= low) return eta;
    return QStringLiteral("%1 (%2–%3)").arg(eta, hoursNumber(low), hoursNumber(high));
}

QString gpuHoursText(double hours) {
    return QStringLiteral("%1 GPU-h").arg(QString::number(hours, 'f', hours < 10 ? 1 : 0));
}

QString linkAtStakeText(const v1::LinkAtStake& stake, std::int64_t nowMs) {
    if (stake.job_indexes_size() == 0) return QStringLiteral("no job");
    const double unplanned = stake.unplanned_gpu_hours(), planned = stake.planned_gpu_hours();
    QString text = QStringLiteral("%1 vs %2 GPU-h").arg(hoursNumber(unplanned), hoursNumber(planned));
    if (unplanned > planned) text += QStringLiteral(", saves %1").arg(hoursNumber(unplanned - planned));
    if (stake.next_checkpoint_unix_ms() > 0)
        text += QStringLiteral(" (checkpoint %1)").arg(durationFromNow(stake.next_checkpoint_unix_ms() - nowMs));
    return text;
}

QString linkAtStakeDetail(const v1::LinkAtStake& stake, std::int64_t nowMs) {
    if (stake.job_indexes_size() == 0) return QStringLiteral("No job runs on the tray: nothing at stake.");
    const double unplanned = stake.unplanned_gpu_hours(), planned = stake.planned_gpu_hours();
    return QStringLiteral(
               "An unplanned failure costs %1 (%2 GPUs: restart + progress since the last checkpoint); "
               "a drain at the next checkpoint%3 costs %4: draining saves %5.")
        .arg(gpuHoursText(unplanned))
        .arg(stake.gpus())
        .arg(stake.next_checkpoint_unix_ms() > 0
                 ? QStringLiteral(" (%1)").arg(durationFromNow(stake.next_checkpoint_unix_ms() - nowMs))
                 : QString(),
             gpuHoursText(planned), gpuHoursText(std::max(0.0, unplanned - planned)));
}

LinkRiskRow linkRiskRow(const FleetStore& store, int endpoint, const v1::LinkHealth& record) {
    LinkRiskRow row;
    row.endpoint = endpoint;
    row.record = record;
    const EntityId port{std::uint16_t(endpoint), record.nic_port_index()};
    if (store.kind(port) == v1::ENTITY_KIND_NIC_PORT) {
        row.port = port;
        row.tray = store.parent(port);
        row.name = store.name(port);
    } else {
        row.name = QString::fromStdString(record.name());
    }
    row.verdict = linkVerdictLabel(record.verdict());
    row.ber = linkBerText(record);
    const v1::LinkForecast& f = record.forecast();
    row.p1h = linkProbabilityText(f.p_error_or_down_1h());
    row.p6h = linkProbabilityText(f.p_error_or_down_6h());
    row.p24h = linkProbabilityText(f.p_error_or_down_24h());
    row.eta = linkEtaText(f);
    row.influencer = f.influencers_size() > 0 ? QString::fromStdString(f.influencers(0).text()) : QStringLiteral("—");
    QStringList jobs;
    for (std::uint32_t job : record.at_stake().job_indexes()) {
        const QString name = store.name(EntityId{std::uint16_t(endpoint), job});
        jobs << (name.isEmpty() ? QStringLiteral("job %1").arg(job) : name);
    }
    row.jobs = jobs.isEmpty() ? QStringLiteral("no job") : jobs.join(QStringLiteral(", "));
    row.atStake = linkAtStakeText(record.at_stake(), store.endpointFleet(endpoint).serverTimeUnixMs());
    const QString stage = linkStageLabel(record.stage());
    const QString reason = QString::fromStdString(record.stage_reason());
    row.stage = stage.isEmpty() ? reason : reason.isEmpty() ? stage : QStringLiteral("%1: %2").arg(stage, reason);
    return row;
}

std::vector<LinkRiskRow> linkRiskRows(const FleetStore& store) {
    std::vector<LinkRiskRow> rows;
    for (int endpoint = 0; endpoint < store.endpointCount(); ++endpoint)
        for (const auto& [index, record] : store.endpointFleet(endpoint).linkHealth())
            rows.push_back(linkRiskRow(store, endpoint, record));
    std::stable_sort(rows.begin(), rows.end(), [](const LinkRiskRow& a, const LinkRiskRow& b) {
        if (worse(a.record, b.record)) return true;
        if (worse(b.record, a.record)) return false;
        return a.name < b.name;
    });
    return rows;
}

const v1::LinkHealth* linkHealthOf(const FleetStore& store, EntityId port) {
    if (!port.isValid() || int(port.endpoint) >= store.endpointCount()) return nullptr;
    const auto& links = store.endpointFleet(port.endpoint).linkHealth();
    const auto it = links.find(port.index);
    return it == links.end() ? nullptr : &it->second;
}

std::vector<const v1::LinkHealth*> linkHealthOfTray(const FleetStore& store, EntityId tray) {
    std::vector<const v1::LinkHealth*> out;
    const v1::Node* node = store.nodeInfo(tray);
    if (!node) return out;
    for (std::uint32_t port : node->nic_port_indexes())
        if (const v1::LinkHealth* h = linkHealthOf(store, EntityId{tray.endpoint, port})) out.push_back(h);
    std::stable_sort(out.begin(), out.end(),
                     [](const v1::LinkHealth* a, const v1::LinkHealth* b) { return worse(*a, *b); });
    return out;
}

QString linkSummaryText(const FleetStore& store) {
    v1::LinkHealthSummary sum;
    bool any = false;
    for (int endpoint = 0; endpoint < store.endpointCount(); ++endpoint) {
        const v1::LinkHealthSummary* s = store.endpointFleet(endpoint).linkSummary();
        if (!s) continue;
        any = true;
        sum.set_links(sum.links() + s->links());
        sum.set_judged(sum.judged() + s->judged());
        sum.set_at_risk(sum.at_risk() + s->at_risk());
        sum.set_warning(sum.warning() + s->warning());
        sum.set_error(sum.error() + s->error());
        sum.set_isolated(sum.isolated() + s->isolated());
        sum.set_isolation_budget(sum.isolation_budget() + s->isolation_budget());
        sum.set_at_stake_gpu_hours(sum.at_stake_gpu_hours() + s->at_stake_gpu_hours());
    }
    if (!any) return {};
    return QStringLiteral(
               "%1 at risk · %2 Warning · %3 Error · %4 at stake · %5 isolated (budget %6) · "
               "%7 links judged, %8 judging")
        .arg(sum.at_risk())
        .arg(sum.warning())
        .arg(sum.error())
        .arg(gpuHoursText(sum.at_stake_gpu_hours()))
        .arg(sum.isolated())
        .arg(sum.isolation_budget())
        .arg(sum.judged())
        .arg(sum.links() > sum.judged() ? sum.links() - sum.judged() : 0);
}

QString linksAtRiskEmptyText(const FleetStore& store) {
    std::uint64_t links = 0, judged = 0;
    bool any = false;
    for (int endpoint = 0; endpoint < store.endpointCount(); ++endpoint) {
        if (const v1::LinkHealthSummary* s = store.endpointFleet(endpoint).linkSummary()) {
            any = true;
            links += s->links();
            judged += s->judged();
        }
    }
    if (!any) return QStringLiteral("fleetd judges no links.");
    return QStringLiteral("No link at risk: %1 %2 judged, %3 still judging.")
        .arg(judged)
        .arg(judged == 1 ? QStringLiteral("link") : QStringLiteral("links"))
        .arg(links > judged ? links - judged : 0);
}

}  // namespace watchfloor::client
