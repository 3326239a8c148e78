#include "StragglerCauses.h"

#include "ClocksEventReasons.h"
#include "FleetStore.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;
using client::FleetStore;

namespace {

int countOf(const std::vector<v1::Event>& events, v1::EventType type, const char* cause = nullptr) {
    return int(std::count_if(events.begin(), events.end(),
                             [&](const v1::Event& e) { return e.type() == type && (!cause || e.cause() == cause); }));
}

// The tray's GPUs whose live clocks-event reasons carry any of `bits`.
QStringList gpusWithReasons(const FleetStore& store, const v1::Node& node, int endpoint, unsigned bits) {
    QStringList names;
    for (const std::uint32_t g : node.gpu_indexes()) {
        const EntityId gpu{std::uint16_t(endpoint), g};
        const auto r = store.reading(gpu, v1::DCGM_FI_DEV_CLOCKS_EVENT_REASONS);
        if (r.hasValue() && (unsigned(r.value) & bits) != 0) names << store.localName(gpu);
    }
    return names;
}

// Sum of a counter over entities; missing counters count 0 (fleetd sends them on change only).
double sumOf(const FleetStore& store, int endpoint, const google::protobuf::RepeatedField<std::uint32_t>& indexes,
             v1::Metric metric) {
    double sum = 0;
    for (const std::uint32_t i : indexes)
        if (const auto r = store.reading(EntityId{std::uint16_t(endpoint), i}, metric); r.hasValue()) sum += r.value;
    return sum;
}

StragglerCause thermal(const FleetStore& store, const v1::Node& node, int endpoint,
                       const std::vector<v1::Event>& events) {
    const int began = countOf(events, v1::EVENT_TYPE_CLOCKS_EVENT, "thermal");
    const QStringList now = gpusWithReasons(store, node, endpoint, clocks_event::kThermal);
    const auto hottest = store.gpuAggregate(EntityId{std::uint16_t(endpoint), node.index()}, v1::DCGM_FI_DEV_GPU_TEMP,
                                            FleetStore::Aggregate::Max);
    QString finding = QStringLiteral("%1 thermal clocks event(s) in the range").arg(began);
    finding +=
        now.isEmpty() ? QStringLiteral("; none now") : QStringLiteral("; throttling now: %1").arg(now.join(", "));
    if (hottest.hasValue()) finding += QStringLiteral("; hottest GPU %1 °C").arg(hottest.value, 0, 'f', 0);
    return {QStringLiteral("Thermal clocks events"), finding, began > 0 || !now.isEmpty()};
}

StragglerCause powerCap(const FleetStore& store, const v1::Node& node, int endpoint,
                        const std::vector<v1::Event>& events) {
    const int began = countOf(events, v1::EVENT_TYPE_CLOCKS_EVENT, "power");
    const QStringList now = gpusWithReasons(store, node, endpoint, clocks_event::kPower);
    double worstShare = 0;
    QString worstGpu;
    for (const std::uint32_t g : node.gpu_indexes()) {
        const EntityId gpu{std::uint16_t(endpoint), g};
        const auto power = store.reading(gpu, v1::DCGM_FI_DEV_POWER_USAGE);
        const v1::Gpu* info = store.gpuInfo(gpu);
        if (!power.hasValue() || !info || !(info->power_limit_w() > 0)) continue;
        if (const double share = power.value / info->power_limit_w(); share > worstShare) {
            worstShare = share;
            worstGpu = QStringLiteral("%1: %2 of %3 W")
                           .arg(store.localName(gpu))
                           .arg(power.value, 0, 'f', 0)
                           .arg(info->power_limit_w(), 0, 'f', 0);
        }
    }
    QString finding = now.isEmpty() ? QStringLiteral("no power-cap or power-brake clocks reason now")
                                    : QStringLiteral("power-capped now: %1").arg(now.join(", "));
    if (began > 0) finding += QStringLiteral("; %1 power clocks event(s) in the range").arg(began);
    if (!worstGpu.isEmpty())
        finding += QStringLiteral("; highest draw %1 (%2 % of the enforced limit)")
                       .arg(worstGpu)
                       .arg(worstShare * 100, 0, 'f', 0);
    return {QStringLiteral("Power cap"), finding, began > 0 || !now.isEmpty()};
}

StragglerCause linkFlaps(const std::vector<v1::Event>& events) {
    // By the port or link the message names first ("r01-n03-ib1 flapped 3 times"); a flap event's
    // value is its count of downs and ups.
    std::map<QString, int> flapsBy;
    for (const auto& e : events)
        if (e.type() == v1::EVENT_TYPE_LINK_FLAP || e.type() == v1::EVENT_TYPE_LINK_DOWN)
            flapsBy[QString::fromStdString(e.message()).section(QLatin1Char(' '), 0, 0)] +=
                e.type() == v1::EVENT_TYPE_LINK_FLAP && e.value() >= 1 ? int(e.value()) : 1;
    const int ber = countOf(events, v1::EVENT_TYPE_LINK_BER);
    QStringList parts;
    for (const auto& [link, n] : flapsBy) parts << QStringLiteral("%1 ×%2").arg(link).arg(n);
    QString finding = parts.isEmpty() ? QStringLiteral("no link flap or link down in the range")
                                      : QStringLiteral("flaps and downs in the range: %1").arg(parts.join(", "));
    if (ber > 0) finding += QStringLiteral("; %1 BER alarm(s)").arg(ber);
    return {QStringLiteral("Link flaps"), finding, !parts.isEmpty() || ber > 0};
}

StragglerCause nvlinkCounters(const FleetStore& store, const v1::Node& node, int endpoint) {
    const double crc = sumOf(store, endpoint, node.gpu_indexes(), v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_TOTAL);
    const double replay = sumOf(store, endpoint, node.gpu_indexes(), v1::DCGM_FI_DEV_NVLINK_REPLAY_ERROR_TOTAL);
    const double recovery = sumOf(store, endpoint, node.gpu_indexes(), v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_TOTAL);
    return {QStringLiteral("NVLink counters"),
            QStringLiteral("CRC flit errors %1, replays %2, recoveries %3 (totals over its %4 GPUs' links)")
                .arg(crc, 0, 'f', 0)
                .arg(replay, 0, 'f', 0)
                .arg(recovery, 0, 'f', 0)
                .arg(node.gpu_indexes_size()),
            recovery > 0 || replay > 0};
}

// The tray's rail links fleetd's link keeper lists as trouble now: at risk, over the Warning line,
// or on the ladder past a proposal.
QStringList troubledLinks(const FleetStore& store, const v1::Node& node, int endpoint) {
    QStringList troubled;
    const auto& listed = store.endpointFleet(endpoint).linkHealth();
    for (const std::uint32_t port : node.nic_port_indexes()) {
        const auto found = listed.find(port);
        if (found == listed.end() || found->second.retired()) continue;
        const v1::LinkHealth& link = found->second;
        if (link.at_risk() || link.verdict() == v1::LINK_VERDICT_WARNING || link.verdict() == v1::LINK_VERDICT_ERROR ||
            link.stage() >= v1::LINK_STAGE_ISOLATING)
            troubled << QString::fromStdString(link.name());
    }
    return troubled;
}

// From fleetd on demand (client::fetchNicPortCounters), whatever this console subscribes to.
// fleetd sends a port's counters when they change: a port with no sample has reported none since
// fleetd started, which is said as such, never as 0. The counters count since each port's last
// clear (weeks of reboots and reseats on a healthy port), so their totals implicate nothing by
// themselves: the link keeper's judgement of the same counters over time does.
StragglerCause infinibandCounters(const client::NicPortCounters& ib, const QStringList& troubled) {
    const QString family = QStringLiteral("InfiniBand counters");
    if (ib.ports == 0) return {family, QStringLiteral("no NIC ports in the topology"), false};
    if (!ib.error.isEmpty())
        return {family, QStringLiteral("could not read its port counters: %1").arg(ib.error), false};
    if (ib.portsReporting == 0)
        return {family,
                QStringLiteral("fleetd holds no counter samples for its %1 ports (none reported since fleetd started)")
                    .arg(ib.ports),
                false};
    auto total = [&](v1::Metric counter) {
        const auto found = ib.totals.find(counter);
        return found == ib.totals.end() ? QStringLiteral("n/a") : QString::number(found->second, 'f', 0);
    };
    return {
        family,
        QStringLiteral("link downed %1, error recoveries %2, symbol errors %3, receive errors %4 since the last clear "
                       "(%5 of its %6 ports reported); %7")
            .arg(total(v1::IB_LINK_DOWNED_COUNTER), total(v1::IB_LINK_ERROR_RECOVERY_COUNTER),
                 total(v1::IB_SYMBOL_ERROR_COUNTER), total(v1::IB_PORT_RCV_ERRORS))
            .arg(ib.portsReporting)
            .arg(ib.ports)
            .arg(troubled.isEmpty()
                     ? QStringLiteral("fleetd lists none of its links at risk")
                     : QStringLiteral("fleetd lists %1 at risk").arg(troubled.join(QStringLiteral(", ")))),
        !troubled.isEmpty()};
}

}  // namespace

std::vector<v1::EventType> stragglerCauseEventTypes() {
    return {v1::EVENT_TYPE_CLOCKS_EVENT, v1::EVENT_TYPE_LINK_FLAP, v1::EVENT_TYPE_LINK_DOWN,
            v1::EVENT_TYPE_LINK_BER,     v1::EVENT_TYPE_XID,       v1::EVENT_TYPE_HARDWARE};
}

std::vector<StragglerCause> assessStragglerCauses(const FleetStore& store, EntityId tray,
                                                  const std::vector<v1::Event>& events,
                                                  const client::NicPortCounters& ib) {
    const v1::Node* node = store.nodeInfo(tray);
    if (!node) return {};
    const int endpoint = tray.endpoint;
    std::vector<StragglerCause> causes{
        thermal(store, *node, endpoint, events), powerCap(store, *node, endpoint, events), linkFlaps(events),
        nvlinkCounters(store, *node, endpoint), infinibandCounters(ib, troubledLinks(store, *node, endpoint))};
    const int xids = countOf(events, v1::EVENT_TYPE_XID) + countOf(events, v1::EVENT_TYPE_HARDWARE);
    if (xids > 0)
        causes.push_back({QStringLiteral("Xids and host hardware"),
                          QStringLiteral("%1 Xid or hardware event(s) in the range").arg(xids), true});
    return causes;
}

QString stragglerVerdict(const QString& trayName, const std::vector<StragglerCause>& causes) {
    QStringList implicated;
    for (const auto& c : causes)
        if (c.implicated) implicated << c.family.toLower();
    if (implicated.isEmpty())
        return QStringLiteral(
                   "Nothing in %1's telemetry explains it: no throttling, power cap, link trouble or error "
                   "counters. A compute-side cause (host, software, a part DCGM does not see).")
            .arg(trayName);
    return QStringLiteral("%1: %2.").arg(trayName, implicated.join(QStringLiteral(", ")));
}

}  // namespace watchfloor::ui
