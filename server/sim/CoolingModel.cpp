#include "CoolingModel.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kExcursionTimeConstantS = 600;  // facility water follows a change over ~10 min [A]
constexpr double kFilterLoadS = 1800;            // a clogging filter loads over ~30 min [A]
// CDU alarm thresholds with hysteresis (docs/domain/cooling.md).
constexpr double kSupplyHighRaiseC = 3.0, kSupplyHighClearC = 2.0;  // above the setpoint
constexpr double kFlowLowRaise = 0.5, kFlowLowClear = 0.8;          // of design flow
constexpr std::int64_t kFlowLowDelayMs = 10'000;
constexpr double kDpHighRaiseBar = 0.4, kDpHighClearBar = 0.2;  // above the dP setpoint
constexpr double kRebootColdPlateMarginC = 15.0;                // above the supply setpoint

}  // namespace

CoolingModel::CoolingModel(const FleetModel& model) : model_(model) {
    racks_.resize(model.racks());
    cdus_.resize(model.cdus());
    regions_.resize(model.regions());
    for (std::uint32_t r = 0; r < model.racks(); ++r)
        racks_[r].loop = std::make_unique<CoolingLoop>(model.designPowerKw(r), model.supplySetpointC(r));
    for (std::uint32_t r = 0; r < model.regions(); ++r)
        regions_[r].diurnalPhaseH = -5.0 - 3.0 * r;  // local solar time offset of each site [A]
}

double CoolingModel::supplyOffsetC(std::uint32_t region, std::int64_t unixMs) const {
    // Facility supply drifts ±1 °C over the day, warmest mid-afternoon local time [A], plus any
    // facility-water excursion.
    const double hours = static_cast<double>(unixMs) / 3'600'000.0;
    const double local = std::fmod(hours + regions_[region].diurnalPhaseH + 48.0, 24.0);
    return std::sin(2 * kPi * (local - 9.0) / 24.0) + regions_[region].excursionC;
}

void CoolingModel::stepFacility(double dtS, std::int64_t unixNowMs) {
    for (auto& region : regions_)
        region.excursionC +=
            (region.excursionTargetC - region.excursionC) * (1.0 - std::exp(-dtS / kExcursionTimeConstantS));
    for (auto& cdu : cdus_) cdu.clog = std::min(1.0, cdu.clog + cdu.clogRatePerS * dtS);
    regionOffsetsC_.resize(regions_.size());
    for (std::uint32_t g = 0; g < regions_.size(); ++g) regionOffsetsC_[g] = supplyOffsetC(g, unixNowMs);
}

void CoolingModel::stepRack(std::uint32_t r, double dtS, double rackPowerKw, bool isolated) {
    Rack& rack = racks_[r];
    const Cdu& cdu = cdus_[model_.cduOfRack(r)];
    LoopInputs in;
    in.supplyC = model_.supplySetpointC(r) + regionOffsetsC_[model_.regionOfRack(r)];
    in.rackPowerKw = rackPowerKw;
    in.pumpsAvailable = cdu.pumpsRunning > 0;
    in.filterClog = cdu.clog;
    in.valveClosed = isolated || rack.valveStuck;
    rack.loop->step(dtS, in);
}

std::vector<RackAlarmChange> CoolingModel::rackAlarmChanges(std::uint32_t r, std::int64_t nowMs, bool isolated) {
    Rack& rack = racks_[r];
    const CoolingLoop& loop = *rack.loop;
    const double setpointC = model_.supplySetpointC(r);
    std::vector<RackAlarmChange> changes;
    auto threshold = [&](bool& state, bool raise, bool clear, const char* alarm, Severity severity, const char* cause) {
        if ((!state && raise) || (state && clear)) {
            state = raise;
            changes.push_back({alarm, state, severity, cause});
        }
    };
    threshold(rack.supplyHighAlarm, loop.supplyC() > setpointC + kSupplyHighRaiseC,
              loop.supplyC() < setpointC + kSupplyHighClearC, "high secondary supply temperature", SEVERITY_WARNING,
              "supply_temperature_high");
    const bool flowLow = !isolated && loop.flowLpm() < kFlowLowRaise * loop.designFlowLpm();
    rack.flowLowSinceMs = flowLow ? (rack.flowLowSinceMs < 0 ? nowMs : rack.flowLowSinceMs) : -1;
    threshold(rack.flowLowAlarm, flowLow && nowMs - rack.flowLowSinceMs >= kFlowLowDelayMs,
              isolated || loop.flowLpm() > kFlowLowClear * loop.designFlowLpm(), "low or no flow", SEVERITY_CRITICAL,
              "low_flow");
    const double dpSp = loop.differentialPressureSetpointBar();
    threshold(rack.dpHighAlarm, loop.differentialPressureBar() > dpSp + kDpHighRaiseBar,
              loop.differentialPressureBar() < dpSp + kDpHighClearBar, "differential pressure high (filter clogged)",
              SEVERITY_WARNING, "filter_clog");
    return changes;
}

bool CoolingModel::readyForReboot(std::uint32_t r) const {
    const CoolingLoop& loop = *racks_[r].loop;
    return loop.flowLpm() > kFlowLowRaise * loop.designFlowLpm() &&
           loop.coldPlateC() < model_.supplySetpointC(r) + kRebootColdPlateMarginC;
}

std::uint32_t CoolingModel::activeAlarms() const {
    std::uint32_t active = 0;
    for (const auto& cdu : cdus_)
        for (const auto& [alarm, on] : cdu.alarms) active += on ? 1 : 0;
    return active;
}

bool CoolingModel::setAlarm(std::uint32_t cdu, const std::string& alarm, bool active) {
    bool& state = cdus_[cdu].alarms[alarm];
    if (state == active) return false;
    state = active;
    return true;
}

std::optional<std::uint32_t> CoolingModel::failPump(std::uint32_t cdu) {
    Cdu& c = cdus_[cdu];
    if (c.pumpsRunning == 0) return std::nullopt;
    --c.pumpsRunning;
    return ++c.pumpEpoch;
}

bool CoolingModel::repairPumps(std::uint32_t cdu, std::uint32_t epoch) {
    Cdu& c = cdus_[cdu];
    if (c.pumpEpoch != epoch) return false;
    c.pumpsRunning = 2;
    return true;
}

std::uint32_t CoolingModel::startFilterClog(std::uint32_t cdu) {
    Cdu& c = cdus_[cdu];
    c.clogRatePerS = 1.0 / kFilterLoadS;
    return ++c.clogEpoch;
}

bool CoolingModel::replaceFilter(std::uint32_t cdu, std::uint32_t epoch) {
    Cdu& c = cdus_[cdu];
    if (c.clogEpoch != epoch) return false;
    c.clog = 0;
    c.clogRatePerS = 0;
    return true;
}

std::uint32_t CoolingModel::startExcursion(std::uint32_t region, double deltaC) {
    regions_[region].excursionTargetC = deltaC;
    return ++regions_[region].excursionEpoch;
}

bool CoolingModel::endExcursion(std::uint32_t region, std::uint32_t epoch) {
    if (regions_[region].excursionEpoch != epoch) return false;
    regions_[region].excursionTargetC = 0;
    return true;
}

std::uint32_t CoolingModel::stickValve(std::uint32_t r) {
    racks_[r].valveStuck = true;
    return ++racks_[r].valveEpoch;
}

bool CoolingModel::freeValve(std::uint32_t r, std::uint32_t epoch) {
    if (racks_[r].valveEpoch != epoch) return false;
    racks_[r].valveStuck = false;
    return true;
}

}  // namespace watchfloor::server::sim
