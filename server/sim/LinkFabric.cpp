#include "LinkFabric.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr double kDay = 86400;

// Link noise [A, tuned so a 7-rack demo shows some every few minutes]. An InfiniBand symbol burst
// is rarer [A]: 30 symbol errors within a minute at 400 Gb/s are two hours of errors at the Error
// line (1e-14) on a link whose healthy rate is at most 3 in two hours (docs/domain/link-forecast.md
// section 5), so the link keeper rightly lists the port for the two hours its window holds them.
// At 0.2 a port-day the 504-port demo fleet had 8 rail links listed at risk after 10 simulated
// hours with nothing scripted; at 0.002 it is about one burst a day. Short IB flaps at 0.01 a
// port-day [A] are five a day on the demo: no per-port rate is published; Meta's operators call a
// link flapping once a day marginal (100x this), HPN counts 5K-60K flaps a day fleet-wide
// (docs/domain/link-forecast.md section 5).
constexpr double kNvlinkCrcBurstsPerLinkDay = 0.01;
constexpr double kNvlinkFlapsPerLinkDay = 0.0005;
constexpr double kIbSymbolBurstsPerPortDay = 0.002;
constexpr double kIbFlapsPerPortDay = 0.01;
constexpr double kHighBerShare = 0.02;    // bursts that are a degrading link, not a blip
constexpr double kNvlinkBitsPerS = 8e11;  // ~100 GB/s per NVLink5 link, one direction
constexpr double kIbBitsPerS = 4e11;      // 400 Gb/s NDR port

std::uint32_t gpuOfPort(bool nvlink, std::uint32_t ordinal) { return nvlink ? ordinal / kLinksPerGpu : ordinal; }

}  // namespace

LinkFabric::LinkFabric(Rng rng, const FleetModel& model, TwinScheduler& clock, TelemetryPublisher& publisher,
                       FabricHost& host)
    : rng_(rng), model_(model), clock_(clock), publisher_(publisher), host_(host), rackErrorsBySecond_(model.racks()) {}

const PortState& LinkFabric::port(bool nvlink, std::uint32_t ordinal) const {
    static const PortState baseline;
    const auto& ports = nvlink ? links_ : nics_;
    const auto it = ports.find(ordinal);
    return it != ports.end() ? it->second : baseline;
}

void LinkFabric::addRackErrors(std::uint32_t r, std::uint32_t count) {
    auto& slot = rackErrorsBySecond_[r][static_cast<std::size_t>(clock_.nowMs() / 1000 % 60)];
    slot = static_cast<std::uint16_t>(std::min<std::uint32_t>(0xFFFF, slot + count));
}

std::uint32_t LinkFabric::rackErrorsPerMinute(std::uint32_t r, std::uint32_t second) {
    std::uint32_t errors = 0;
    for (const auto count : rackErrorsBySecond_[r]) errors += count;
    rackErrorsBySecond_[r][(second + 1) % 60] = 0;
    return errors;
}

void LinkFabric::markChanged(bool nvlink, std::uint32_t ordinal, PortState& port) {
    if (!port.changed) (nvlink ? changedLinks_ : changedNics_).push_back(ordinal);
    port.changed = true;
}

void LinkFabric::portDown(bool nvlink, std::uint32_t ordinal, const std::string& why, bool counted) {
    PortState& p = portState(nvlink, ordinal);
    if (p.state == LINK_STATE_DOWN) return;
    p.state = LINK_STATE_DOWN;
    p.sinceMs = clock_.nowMs();
    if (counted) ++p.recoveryOrDowned;
    markChanged(nvlink, ordinal, p);
    const std::uint32_t entity = nvlink ? model_.linkIndex(ordinal) : model_.nicIndex(ordinal);
    const std::uint32_t g = gpuOfPort(nvlink, ordinal);
    if (nvlink) host_.addGpuNvlinkErrors(g, 0, 0, 1);
    addRackErrors(model_.rackOfTray(model_.trayOfGpu(g)), 1);
    if (publisher_.changes()) {
        publisher_.state(entity, HEALTH_STATE_FAILED, why).set_link_state(LINK_STATE_DOWN);
    }
    auto& e = publisher_.event(SEVERITY_WARNING, EVENT_TYPE_LINK_DOWN, entity,
                               (nvlink ? model_.linkName(ordinal) : model_.nicName(ordinal)) + " down (" + why + ")");
    e.set_cause(why);
}

void LinkFabric::portUp(bool nvlink, std::uint32_t ordinal) {
    PortState& p = portState(nvlink, ordinal);
    if (p.state == LINK_STATE_UP) return;
    p.state = LINK_STATE_UP;
    p.sinceMs = clock_.nowMs();
    markChanged(nvlink, ordinal, p);
    const std::uint32_t entity = nvlink ? model_.linkIndex(ordinal) : model_.nicIndex(ordinal);
    if (publisher_.changes()) {
        publisher_.state(entity, HEALTH_STATE_HEALTHY).set_link_state(LINK_STATE_UP);
    }
    publisher_.event(SEVERITY_INFO, EVENT_TYPE_LINK_UP, entity,
                     (nvlink ? model_.linkName(ordinal) : model_.nicName(ordinal)) + " up");
}

void LinkFabric::portFlap(bool nvlink, std::uint32_t ordinal, std::uint32_t count, bool counted) {
    PortState& p = portState(nvlink, ordinal);
    if (p.state == LINK_STATE_DOWN) return;
    if (counted) {
        p.recoveryOrDowned += count;
        p.replayOrRecovery += count;
    }
    markChanged(nvlink, ordinal, p);
    const std::uint32_t g = gpuOfPort(nvlink, ordinal);
    if (nvlink) host_.addGpuNvlinkErrors(g, 0, 0, count);
    addRackErrors(model_.rackOfTray(model_.trayOfGpu(g)), count);
    const std::uint32_t entity = nvlink ? model_.linkIndex(ordinal) : model_.nicIndex(ordinal);
    if (p.state != LINK_STATE_FLAPPING) {
        p.state = LINK_STATE_FLAPPING;
        p.sinceMs = clock_.nowMs();
        if (publisher_.changes()) {
            publisher_.state(entity, HEALTH_STATE_DEGRADED, "went down and up " + std::to_string(count) + " times")
                .set_link_state(LINK_STATE_FLAPPING);
        }
    }
    auto& e = publisher_.event(SEVERITY_WARNING, EVENT_TYPE_LINK_FLAP, entity,
                               (nvlink ? model_.linkName(ordinal) : model_.nicName(ordinal)) + " flapped " +
                                   std::to_string(count) + (count == 1 ? " time" : " times"));
    e.set_value(count);
    // Five quiet minutes and it counts as up again.
    const std::uint32_t epoch = ++p.quietEpoch;
    clock_.after(300, [this, nvlink, ordinal, epoch] {
        PortState& port = portState(nvlink, ordinal);
        if (port.quietEpoch == epoch && port.state == LINK_STATE_FLAPPING) {
            port.state = LINK_STATE_DOWN;  // so portUp emits the transition
            portUp(nvlink, ordinal);
        }
    });
}

void LinkFabric::portBer(bool nvlink, std::uint32_t ordinal, std::uint32_t errors) {
    PortState& p = portState(nvlink, ordinal);
    // BER = error bits / (rate x window), the burst seen within one minute.
    const double bitsPerS = nvlink ? kNvlinkBitsPerS : kIbBitsPerS;
    const double ber = errors / (bitsPerS * 60.0);
    p.ber = static_cast<float>(ber);
    markChanged(nvlink, ordinal, p);
    const std::uint32_t entity = nvlink ? model_.linkIndex(ordinal) : model_.nicIndex(ordinal);
    char text[96];
    std::snprintf(text, sizeof text, "%.1e above threshold (%u %s errors within a minute at %.0f Gb/s)", ber, errors,
                  nvlink ? "CRC" : "symbol", bitsPerS / 1e9);
    auto& e =
        publisher_.event(SEVERITY_WARNING, EVENT_TYPE_LINK_BER, entity,
                         (nvlink ? model_.linkName(ordinal) : model_.nicName(ordinal)) + " bit error ratio " + text);
    e.set_value(ber);
    const std::uint32_t epoch = ++p.quietEpoch;
    clock_.after(1800, [this, nvlink, ordinal, epoch] {
        PortState& port = portState(nvlink, ordinal);
        if (port.quietEpoch == epoch) {
            port.ber = 0;
            markChanged(nvlink, ordinal, port);
        }
    });
}

void LinkFabric::portErrorBurst(bool nvlink, std::uint32_t ordinal, std::uint32_t errors, bool berAlarm) {
    PortState& p = portState(nvlink, ordinal);
    p.crcOrSymbol += errors;
    p.replayOrRecovery += nvlink ? errors / 4 : 0;
    p.rcvErrors += nvlink ? 0 : errors / 10;
    markChanged(nvlink, ordinal, p);
    const std::uint32_t g = gpuOfPort(nvlink, ordinal);
    if (nvlink) host_.addGpuNvlinkErrors(g, errors, errors / 4, 0);
    addRackErrors(model_.rackOfTray(model_.trayOfGpu(g)), errors);
    if (berAlarm) portBer(nvlink, ordinal, errors);
}

void LinkFabric::portBerBurst(bool nvlink, std::uint32_t ordinal, double ratio) {
    const double bitsPerMinute = (nvlink ? kNvlinkBitsPerS : kIbBitsPerS) * 60.0;
    const double errors = std::clamp(std::round(ratio * bitsPerMinute), 1.0, 1e9);
    portErrorBurst(nvlink, ordinal, static_cast<std::uint32_t>(errors), true);
}

void LinkFabric::gpuLinkDown(std::uint32_t g, const std::string& why) {
    portDown(true, g * kLinksPerGpu + rng_.below(kLinksPerGpu), why);
}

void LinkFabric::repairGpuPorts(std::uint32_t g) {
    for (std::uint32_t l = 0; l < kLinksPerGpu; ++l) {
        const auto it = links_.find(g * kLinksPerGpu + l);
        if (it != links_.end() && it->second.state == LINK_STATE_DOWN) portUp(true, it->first);
    }
    const auto nic = nics_.find(g);
    if (nic != nics_.end() && nic->second.state == LINK_STATE_DOWN) portUp(false, g);
}

void LinkFabric::scheduleNoise() {
    const double linkRate =
        static_cast<double>(model_.links()) * (kNvlinkCrcBurstsPerLinkDay + kNvlinkFlapsPerLinkDay) / kDay;
    const double nicRate = static_cast<double>(model_.nics()) * (kIbSymbolBurstsPerPortDay + kIbFlapsPerPortDay) / kDay;
    clock_.after(rng_.exponential(1.0 / (linkRate + nicRate)), [this, linkRate, nicRate] {
        const bool nvlink = rng_.uniform() * (linkRate + nicRate) < linkRate;
        const std::uint32_t ordinal = rng_.below(nvlink ? model_.links() : model_.nics());
        const std::uint32_t t = model_.trayOfGpu(gpuOfPort(nvlink, ordinal));
        const double flapShare = nvlink ? kNvlinkFlapsPerLinkDay / (kNvlinkFlapsPerLinkDay + kNvlinkCrcBurstsPerLinkDay)
                                        : kIbFlapsPerPortDay / (kIbFlapsPerPortDay + kIbSymbolBurstsPerPortDay);
        if (host_.trayPowered(t)) {
            if (rng_.chance(flapShare)) {
                portFlap(nvlink, ordinal, 1 + rng_.below(3));
            } else {
                const bool highBer = rng_.chance(kHighBerShare);
                const auto errors =
                    static_cast<std::uint32_t>((1 + rng_.exponential(nvlink ? 40 : 30)) * (highBer ? 50 : 1));
                portErrorBurst(nvlink, ordinal, errors, highBer);
            }
        }
        scheduleNoise();
    });
}

void LinkFabric::emitPortCounters(std::vector<Sample>& samples) {
    std::sort(changedLinks_.begin(), changedLinks_.end());
    for (const std::uint32_t ordinal : changedLinks_) {
        PortState& p = links_[ordinal];
        p.changed = false;
        const std::uint32_t e = model_.linkIndex(ordinal);
        samples.push_back({e, DCGM_FI_DEV_NVLINK_GET_STATE, p.state == LINK_STATE_DOWN ? 0.0f : 1.0f});
        samples.push_back({e, DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL, static_cast<float>(p.crcOrSymbol)});
        samples.push_back({e, DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL, static_cast<float>(p.replayOrRecovery)});
        samples.push_back(
            {e, DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL, static_cast<float>(p.recoveryOrDowned)});
        samples.push_back({e, DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO, p.ber});
    }
    changedLinks_.clear();
    std::sort(changedNics_.begin(), changedNics_.end());
    for (const std::uint32_t ordinal : changedNics_) {
        PortState& p = nics_[ordinal];
        p.changed = false;
        const std::uint32_t e = model_.nicIndex(ordinal);
        samples.push_back({e, IB_PHY_STATE, p.state == LINK_STATE_DOWN ? 3.0f : 5.0f});
    }
    changedNics_.clear();
}

}  // namespace watchfloor::server::sim
