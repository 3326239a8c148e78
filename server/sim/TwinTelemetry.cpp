// Telemetry samples (per GPU, CPU, port, loop, rack), initial entity states and goodput reports.

#include "TwinCoordinator.h"

#include "ClocksEventReasons.h"
#include "TrayPower.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

constexpr float kSmClockMaxMhz = 1965;
constexpr float kSmClockIdleMhz = 345;
constexpr float kNvlinkTrainingGBps = 600;  // summed over 18 links; ~1/3 of 1.8 TB/s [A]

// Xid 79 on a faulted tray: DCGM reads blanks, the driver still posts its recovery action.
bool fallenOffBus(const TrayState& tray, const GpuState& gpu) {
    return tray.faulted && gpu.lastXid == 79.0f && gpu.recoveryAction != 0;
}

}  // namespace

HealthState TwinCoordinator::countedGpuHealth(std::uint32_t g) const {
    const std::uint32_t t = model->trayOfGpu(g);
    const TrayState& tray = trays[t];
    if (activity(t) == TrayActivity::Off || fallenOffBus(tray, gpus[g]) || tray.health == HEALTH_STATE_FAILED)
        return HEALTH_STATE_FAILED;
    if ((gpus[g].clocksReasons & clocks_event::kThermal) || tray.health == HEALTH_STATE_DEGRADED ||
        tray.node == NODE_STATE_DRAINED)
        return HEALTH_STATE_DEGRADED;
    return HEALTH_STATE_HEALTHY;
}

void TwinCoordinator::accountExposure(double dtS) {
    // Tray activity as of the last power update (this physics step, or the previous one).
    std::uint64_t poweredGpus = 0;
    for (const auto& load : loads) poweredGpus += load.exposedGpus;
    stats.poweredGpuHours += static_cast<double>(poweredGpus) * dtS / 3600.0;
    for (const auto& job : jobs())
        if (job.exposed()) stats.jobGpuHoursExposed += job.gpuCount() * dtS / 3600.0;
}

void TwinCoordinator::emitInitialStates() {
    for (std::uint32_t r = 0; r < racks.size(); ++r)
        state(model->rackIndex(r), racks[r].health).set_rack_state(racks[r].state);
    for (std::uint32_t t = 0; t < trays.size(); ++t)
        state(model->trayIndex(t), trays[t].health).set_node_state(trays[t].node);
    for (std::uint32_t g = 0; g < gpus.size(); ++g) state(model->gpuIndex(g), gpus[g].health);
}

// Per tick, family by family in a fixed order (the noise stream is drawn in that order, so a seed
// gives the same samples): each powered tray's GPUs, every 10 s its CPUs and NIC ports, then the
// rack's loop and rack totals; the port counters that changed last.
void TwinCoordinator::emitTelemetry() {
    auto& samples = out()->samples;
    samples.reserve(samples.size() + gpus.size() * 10 + racks.size() * 20 + trays.size() * 3);
    const double slowdownC = model->topology().gpus(0).slowdown_temp_c();
    const std::uint32_t second = static_cast<std::uint32_t>(nowMs() / 1000);
    for (std::uint32_t r = 0; r < racks.size(); ++r) {
        const float coldPlate = static_cast<float>(cooling->loop(r).coldPlateC());
        RackTally tally;
        for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
            const std::uint32_t t = r * kTraysPerRack + k;
            const TrayActivity a = activity(t);
            if (a == TrayActivity::Off) {
                tally.down += kGpusPerTray;
                continue;  // powered off: nothing reports
            }
            emitGpuSamples(t, a, coldPlate, slowdownC, second, tally);
            if ((t + second) % 10 == 0) {
                emitHostSamples(t, a, coldPlate);  // staggered by tray
            } else if (!railLinksReported) {
                // A counter's first value is where it stands, not errors since the twin started:
                // every port reports with the first samples, before its tray's turn comes.
                for (std::uint32_t p = 0; p < kNicPortsPerTray; ++p)
                    emitRailLink(t, p, a == TrayActivity::Training || a == TrayActivity::Checkpointing, 0.0f);
            }
        }
        emitRackSamples(r, tally, second);
    }
    railLinksReported = true;
    fabric->emitPortCounters(samples);
}

// A powered tray's four GPUs: DCGM's fields (blank when the GPU fell off the bus), the counters
// that changed, and each NVLink's throughput once a minute, staggered.
void TwinCoordinator::emitGpuSamples(std::uint32_t t, TrayActivity a, float coldPlate, double slowdownC,
                                     std::uint32_t second, RackTally& tally) {
    auto& samples = out()->samples;
    const bool training = a == TrayActivity::Training;
    const float tensorBase = training && trays[t].job != kNoJob
                                 ? static_cast<float>(jobs()[trays[t].job].settings().mfuTarget * 1.15)
                                 : 0.0f;
    for (std::uint32_t i = 0; i < kGpusPerTray; ++i) {
        const std::uint32_t g = t * kGpusPerTray + i;
        GpuState& gpu = gpus[g];
        const std::uint32_t e = model->gpuIndex(g);
        const NoiseQuad n(noiseRng.next());
        if (fallenOffBus(trays[t], gpu)) {
            constexpr float blank = std::numeric_limits<float>::quiet_NaN();
            for (const Metric metric : {DCGM_FI_DEV_GPU_TEMP, DCGM_FI_DEV_MEMORY_TEMP, DCGM_FI_DEV_POWER_USAGE,
                                        DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_SM_CLOCK, DCGM_FI_PROF_PIPE_TENSOR_ACTIVE})
                samples.push_back({e, metric, blank});
            samples.push_back({e, DCGM_FI_DEV_GPU_RECOVERY_ACTION, static_cast<float>(gpu.recoveryAction)});
            ++tally.down;
            continue;
        }
        const double throttle = clockFactor(coldPlate + gpuPowerW(a, 1.0) * kColdPlateKPerW + gpu.offsetC, slowdownC);
        const float power = gpuPowerW(a, throttle) * (1.0f + 0.02f * n[0]);
        const float temp = coldPlate + power * kColdPlateKPerW + gpu.offsetC + 0.4f * n[1];
        const float util = training                           ? 98.5f + 1.5f * n[2]
                           : a == TrayActivity::Checkpointing ? 30.0f + 8.0f * n[2]
                           : a == TrayActivity::Recovering    ? 3.0f + 3.0f * n[2]
                                                              : 0.0f;
        const std::uint8_t reasons = static_cast<std::uint8_t>((gpu.clocksReasons & clocks_event::kThermal) |
                                                               (util < 1.0f ? clocks_event::kGpuIdle : 0));
        const float clock = util < 1.0f ? kSmClockIdleMhz : kSmClockMaxMhz * static_cast<float>(throttle);
        samples.push_back({e, DCGM_FI_DEV_GPU_TEMP, temp});
        samples.push_back({e, DCGM_FI_DEV_MEMORY_TEMP, temp - 4.0f + 0.5f * n[3]});
        samples.push_back({e, DCGM_FI_DEV_POWER_USAGE, power});
        samples.push_back({e, DCGM_FI_DEV_GPU_UTIL, std::clamp(util, 0.0f, 100.0f)});
        samples.push_back({e, DCGM_FI_DEV_SM_CLOCK, clock});
        samples.push_back(
            {e, DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, tensorBase * static_cast<float>(throttle) * (1.0f + 0.03f * n[0])});
        samples.push_back({e, DCGM_FI_DEV_CLOCKS_EVENT_REASONS, static_cast<float>(reasons)});
        samples.push_back({e, DCGM_FI_DEV_GPU_RECOVERY_ACTION, static_cast<float>(gpu.recoveryAction)});
        const float nvlinkGBps = training ? kNvlinkTrainingGBps * static_cast<float>(throttle) * (1.0f + 0.05f * n[3])
                                 : a == TrayActivity::Checkpointing ? 40.0f
                                                                    : 0.0f;
        samples.push_back({e, DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL, nvlinkGBps});
        if (gpu.countersChanged) {
            gpu.countersChanged = false;
            samples.push_back({e, DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, static_cast<float>(gpu.eccDbe)});
            samples.push_back({e, DCGM_FI_DEV_ROW_REMAP_UNCORRECTABLE_TOTAL, static_cast<float>(gpu.rowRemap)});
            samples.push_back({e, DCGM_FI_DEV_ROW_REMAP_FAILURE, static_cast<float>(gpu.rowRemapFailure)});
            samples.push_back({e, DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_TOTAL, static_cast<float>(gpu.nvlinkCrc)});
            samples.push_back({e, DCGM_FI_DEV_NVLINK_REPLAY_ERROR_TOTAL, static_cast<float>(gpu.nvlinkReplay)});
            samples.push_back({e, DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_TOTAL, static_cast<float>(gpu.nvlinkRecovery)});
        }
        if (gpu.xidChanged) {
            gpu.xidChanged = false;
            samples.push_back({e, DCGM_FI_DEV_XID_ERRORS, gpu.lastXid});
        }
        // Per-link throughput: each link once a minute, staggered (2.3 M links at 1,800 racks).
        if ((g + second) % 60 == 0)
            for (std::uint32_t l = 0; l < kLinksPerGpu; ++l) {
                const std::uint32_t ordinal = g * kLinksPerGpu + l;
                const bool linkDown = fabric->port(true, ordinal).state == LINK_STATE_DOWN;
                samples.push_back({model->linkIndex(ordinal), DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK,
                                   linkDown ? 0.0f : nvlinkGBps / kLinksPerGpu});
            }
        tally.maxTemp = std::max(tally.maxTemp, temp);
        tally.sumTemp += temp;
        ++tally.reporting;
        const HealthState health = countedGpuHealth(g);
        tally.healthy += health == HEALTH_STATE_HEALTHY;
        tally.degraded += health == HEALTH_STATE_DEGRADED;
        tally.down += health == HEALTH_STATE_FAILED;
    }
}

// A tray's two Grace CPUs and its four NIC ports.
void TwinCoordinator::emitHostSamples(std::uint32_t t, TrayActivity a, float coldPlate) {
    auto& samples = out()->samples;
    const bool training = a == TrayActivity::Training;
    const NoiseQuad n(noiseRng.next());
    const bool busy = training || a == TrayActivity::Checkpointing;
    for (std::uint32_t c = 0; c < kCpusPerTray; ++c) {
        const std::uint32_t e = model->cpuIndex(t * kCpusPerTray + c);
        samples.push_back({e, DCGM_FI_DEV_CPU_UTIL_TOTAL, busy ? 40.0f + 10.0f * n[c] : 3.0f + 2.0f * n[c]});
        samples.push_back({e, DCGM_FI_DEV_CPU_TEMP_CELSIUS, coldPlate + (busy ? 18.0f : 8.0f) + n[2 + c]});
        samples.push_back({e, DCGM_FI_DEV_CPU_POWER_WATTS,
                           static_cast<float>(busy ? kCpuTrainingW : kCpuIdleW) * (1.0f + 0.05f * n[c])});
    }
    for (std::uint32_t p = 0; p < kNicPortsPerTray; ++p) {
        const std::uint32_t ordinal = t * kNicPortsPerTray + p;
        const std::uint32_t e = model->nicIndex(ordinal);
        const PortState& port = fabric->port(false, ordinal);
        const bool portDown = port.state == LINK_STATE_DOWN;
        const float gbps = portDown                           ? 0.0f
                           : training                         ? 280.0f + 40.0f * n[p]
                           : a == TrayActivity::Checkpointing ? 150.0f
                                                              : 0.2f;
        samples.push_back({e, IB_PORT_XMIT_DATA_GBPS, gbps});
        samples.push_back({e, IB_PORT_RCV_DATA_GBPS, gbps * 0.98f});
        samples.push_back({e, IB_EFFECTIVE_BER, port.ber > 0 ? port.ber : 1e-15f});
        emitRailLink(t, p, busy, n[p]);
    }
}

// Both ends' counters from the port's link trajectory; nothing from the host while its exporter
// restarts.
void TwinCoordinator::emitRailLink(std::uint32_t t, std::uint32_t p, bool busy, float noise) {
    const std::uint32_t ordinal = t * kNicPortsPerTray + p;
    auto& samples = out()->samples;
    if (rails->emitCounters(ordinal, busy, noise, samples))
        samples.push_back({model->nicIndex(ordinal), IB_PHY_STATE,
                           fabric->port(false, ordinal).state == LINK_STATE_DOWN ? 3.0f : 5.0f});
}

// A rack's liquid loop (and its CDU's pumps) and the rack's totals from its trays' tally.
void TwinCoordinator::emitRackSamples(std::uint32_t r, const RackTally& tally, std::uint32_t second) {
    auto& samples = out()->samples;
    const RackStatus& rack = racks[r];
    const RackLoad& load = loads[r];
    const CoolingLoop& loop = cooling->loop(r);
    const std::uint32_t loopE = model->loopIndex(r);
    const std::uint32_t rackE = model->rackIndex(r);
    const NoiseQuad n(noiseRng.next());
    samples.push_back({loopE, RACK_LIQUID_SUPPLY_TEMPERATURE_C, static_cast<float>(loop.supplyC()) + 0.05f * n[0]});
    samples.push_back({loopE, RACK_LIQUID_RETURN_TEMPERATURE_C, static_cast<float>(loop.returnC()) + 0.05f * n[1]});
    samples.push_back({loopE, RACK_LIQUID_FLOW_LPM, static_cast<float>(loop.flowLpm()) * (1.0f + 0.002f * n[2])});
    samples.push_back(
        {loopE, RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR, static_cast<float>(loop.differentialPressureBar())});
    samples.push_back(
        {loopE, RACK_LIQUID_DIFFERENTIAL_PRESSURE_SP_BAR, static_cast<float>(loop.differentialPressureSetpointBar())});
    samples.push_back({loopE, RACK_CONTROL_VALVE_POSITION_PCT, static_cast<float>(loop.valvePct())});
    samples.push_back({loopE, RACK_LEAK_DETECT, static_cast<float>(rack.leakWet)});
    samples.push_back({loopE, RACK_LEAK_SENSOR_FAULT, static_cast<float>(rack.leakFaulted)});
    samples.push_back({loopE, RACK_LIQUID_ISOLATION_STATUS, rack.liquidIsolated ? 1.0f : 0.0f});
    samples.push_back({loopE, CDU_PUMPS_RUNNING, static_cast<float>(cooling->pumpsRunning(model->cduOfRack(r)))});
    samples.push_back({rackE, RACK_POWER_KW, static_cast<float>(load.powerKw) * (1.0f + 0.003f * n[3])});
    samples.push_back({rackE, RACK_ELECTRICAL_ISOLATION_STATUS, rack.electricalIsolated ? 1.0f : 0.0f});
    samples.push_back(
        {rackE, RACK_GPU_TEMP_MAX_C, tally.reporting ? tally.maxTemp : std::numeric_limits<float>::quiet_NaN()});
    samples.push_back({rackE, RACK_GPU_TEMP_MEAN_C,
                       tally.reporting ? static_cast<float>(tally.sumTemp / tally.reporting)
                                       : std::numeric_limits<float>::quiet_NaN()});
    samples.push_back({rackE, RACK_GPUS_HEALTHY, static_cast<float>(tally.healthy)});
    samples.push_back({rackE, RACK_GPUS_DEGRADED, static_cast<float>(tally.degraded)});
    samples.push_back({rackE, RACK_GPUS_DOWN, static_cast<float>(tally.down)});
    samples.push_back({rackE, RACK_LINK_ERRORS_PER_MIN, static_cast<float>(fabric->rackErrorsPerMinute(r, second))});
}

void TwinCoordinator::fillJob(std::uint32_t j, Job& msg) const {
    const TrainingJob& job = jobs()[j];
    job.fill(nowS(), toUnixMs(config.start), msg);
    msg.set_index(model->jobIndex(j));
    msg.set_name(job.name());
    msg.set_slurm_job_id(std::to_string(41000 + j));
    // A warm-started job began before the twin; the others count from the twin's start.
    const double startedS = jobRunner->startTimes()[j] < 0 ? jobRunner->startTimes()[j] : 0.0;
    msg.set_started_unix_ms(toUnixMs(config.start) + std::llround(startedS * 1000.0));
    for (const std::uint32_t t : job.trays()) msg.add_node_indexes(model->trayIndex(t));
    for (const std::uint32_t t : job.stragglerTrays) msg.add_straggler_node_indexes(model->trayIndex(t));
}

namespace {

constexpr double kHour = 3600;

// A rate n / exposure with the 95 % chi-square interval of its inverse (the MTTF interval).
struct RateWithInterval {
    double rate = 0, low = 0, high = 0;
};
RateWithInterval rateWithInterval(double exposure, std::uint64_t count) {
    RateWithInterval out;
    if (!(exposure > 0)) return out;
    const MttfEstimate mttf =
        estimateMttf(exposure, static_cast<std::uint32_t>(std::min<std::uint64_t>(count, UINT32_MAX)));
    out.rate = double(count) / exposure;
    out.low = std::isfinite(mttf.highS) && mttf.highS > 0 ? 1.0 / mttf.highS : 0.0;
    out.high = mttf.lowS > 0 ? 1.0 / mttf.lowS : 0.0;
    return out;
}

}  // namespace

void TwinCoordinator::fillJobsGoodput(FleetGoodput& fleet) const {
    double weightedTotal = 0, productive = 0, confirmed = 0, kept = 0, mfu = 0, mfuWeight = 0, gpuWeight = 0;
    double jobGpuHours = 0, checkpointGap = 0;
    FleetGoodput sums;  // GPU-weighted sums of the per-job ratios and budgets
    GoodputBreakdown breakdown;
    std::uint32_t interruptions = 0;
    for (std::uint32_t j = 0; j < jobs().size(); ++j) {
        const TrainingJob& job = jobs()[j];
        Job msg;
        job.fill(nowS(), toUnixMs(config.start), msg);
        const double gpus = job.gpuCount();
        const GoodputBreakdown& b = msg.breakdown();
        weightedTotal += gpus * b.total_s();
        productive += gpus * b.productive_s();
        confirmed += gpus * b.confirmed_productive_s();
        kept += gpus * (b.productive_s() + b.straggler_slowdown_s());
        gpuWeight += gpus;
        sums.set_ettr_sliding_1h_ratio(sums.ettr_sliding_1h_ratio() + gpus * msg.ettr_sliding_1h_ratio());
        sums.set_goodput_sliding_1h_ratio(sums.goodput_sliding_1h_ratio() + gpus * msg.goodput_sliding_1h_ratio());
        sums.set_expected_ettr_ratio(sums.expected_ettr_ratio() + gpus * msg.expected_ettr_ratio());
        addWeightedDoubles(*sums.mutable_ettr_budget(), msg.ettr_budget(), gpus);
        if (job.computing()) {
            mfu += gpus * job.mfu();
            mfuWeight += gpus;
        }
        interruptions += job.interruptions();
        jobGpuHours += gpus * job.exposureS(nowS()) / kHour;
        checkpointGap += msg.checkpoint_advice().gap_gpu_hours_per_day();
        accumulateBreakdown(breakdown, b, gpus);
    }
    fleet.set_goodput_ratio(weightedTotal > 0 ? productive / weightedTotal : 0.0);
    fleet.set_confirmed_goodput_ratio(weightedTotal > 0 ? confirmed / weightedTotal : 0.0);
    fleet.set_ettr_ratio(weightedTotal > 0 ? kept / weightedTotal : 0.0);
    fleet.set_mfu_ratio(mfuWeight > 0 ? mfu / mfuWeight : 0.0);
    if (gpuWeight > 0) {
        fleet.set_ettr_sliding_1h_ratio(sums.ettr_sliding_1h_ratio() / gpuWeight);
        fleet.set_goodput_sliding_1h_ratio(sums.goodput_sliding_1h_ratio() / gpuWeight);
        fleet.set_expected_ettr_ratio(sums.expected_ettr_ratio() / gpuWeight);
        *fleet.mutable_ettr_budget() = sums.ettr_budget();
        scaleDoubles(*fleet.mutable_ettr_budget(), 1.0 / gpuWeight);
    }
    // The measured shares of the fleet's GPU-seconds, like its goodput and ETTR.
    setMeasuredShares(*fleet.mutable_ettr_budget(), breakdown);
    *fleet.mutable_breakdown() = breakdown;
    fleet.set_interruptions(interruptions);
    fleet.set_job_gpu_hours(jobGpuHours);
    const RateWithInterval all = rateWithInterval(jobGpuHours, interruptions);
    fleet.set_interruptions_per_gpu_hour(all.rate);
    fleet.set_interruptions_per_gpu_hour_low(all.low);
    fleet.set_interruptions_per_gpu_hour_high(all.high);
    fleet.set_checkpoint_gap_gpu_hours_per_day(checkpointGap);
}

void TwinCoordinator::fillFleet(FleetGoodput& fleet) const {
    fleet.set_time_unix_ms(unixNowMs());
    fillJobsGoodput(fleet);
    // The same count per GPU as the racks' RACK_GPUS_* samples, so the fleet is their sum.
    std::uint32_t healthy = 0, degraded = 0, down = 0, incidents = 0;
    for (std::uint32_t g = 0; g < gpus.size(); ++g) {
        const HealthState health = countedGpuHealth(g);
        healthy += health == HEALTH_STATE_HEALTHY;
        degraded += health == HEALTH_STATE_DEGRADED;
        down += health == HEALTH_STATE_FAILED;
    }
    for (std::uint32_t r = 0; r < racks.size(); ++r)
        incidents += loads[r].trayIncidents + (racks[r].electricalIsolated ? 1 : 0);
    incidents += cooling->activeAlarms();
    fleet.set_gpus_total(static_cast<std::uint32_t>(gpus.size()));
    fleet.set_gpus_healthy(healthy);
    fleet.set_gpus_degraded(degraded);
    fleet.set_gpus_down(down);
    fleet.set_active_incidents(incidents);
    const RateWithInterval hardware = rateWithInterval(stats.poweredGpuHours, stats.hardwareFailures);
    fleet.set_failures_per_gpu_hour(hardware.rate);
    fleet.set_failures_per_gpu_hour_low(hardware.low);
    fleet.set_failures_per_gpu_hour_high(hardware.high);
    fleet.set_hardware_failures(stats.hardwareFailures);
    fleet.set_powered_gpu_hours(stats.poweredGpuHours);
    fleet.set_failure_rate_causes(hardwareRateCauses());
}

void TwinCoordinator::emitJobsAndFleet(bool samples) {
    out()->jobs.reserve(out()->jobs.size() + jobs().size());
    jobRunner->sync(nowS());
    for (std::uint32_t j = 0; j < jobs().size(); ++j) {
        Job& msg = out()->jobs.emplace_back();
        fillJob(j, msg);
        if (samples) {
            const std::uint32_t e = msg.index();
            out()->samples.push_back({e, JOB_GOODPUT_RATIO, static_cast<float>(msg.goodput_ratio())});
            out()->samples.push_back({e, JOB_ETTR_SLIDING_1H_RATIO, static_cast<float>(msg.ettr_sliding_1h_ratio())});
            out()->samples.push_back({e, JOB_MFU_RATIO, static_cast<float>(msg.mfu_ratio())});
            out()->samples.push_back({e, JOB_STEP_TIME_S, static_cast<float>(msg.step_time_s())});
            const double ageS = msg.last_checkpoint_unix_ms() > 0
                                    ? static_cast<double>(unixNowMs() - msg.last_checkpoint_unix_ms()) / 1000.0
                                    : nowS();
            out()->samples.push_back({e, JOB_CHECKPOINT_AGE_S, static_cast<float>(ageS)});
            if (jobs()[j].computing())
                for (const std::uint32_t t : jobs()[j].trays())
                    out()->samples.push_back(
                        {model->trayIndex(t), NODE_STEP_TIME_S, static_cast<float>(jobRunner->trayStepS(j, t))});
        }
    }
    stats.ledgerRecordsRejected = 0;
    stats.ledgerRecordsClipped = 0;
    for (const auto& job : jobs()) {
        const LedgerIssues& issues = job.ledger().issues();
        stats.ledgerRecordsRejected += issues.rejected;
        stats.ledgerRecordsClipped += issues.clipped;
        if (!issues.lastProblem.empty()) stats.lastLedgerProblem = job.name() + ": " + issues.lastProblem;
    }
    fillFleet(out()->fleet);
    out()->hasFleet = true;
    if (samples) {
        const std::uint32_t e = model->fleetIndex();
        const auto& f = out()->fleet;
        out()->samples.push_back({e, FLEET_GOODPUT_RATIO, static_cast<float>(f.goodput_ratio())});
        out()->samples.push_back({e, FLEET_ETTR_SLIDING_1H_RATIO, static_cast<float>(f.ettr_sliding_1h_ratio())});
        out()->samples.push_back({e, FLEET_MFU_RATIO, static_cast<float>(f.mfu_ratio())});
        out()->samples.push_back({e, FLEET_GPUS_HEALTHY, static_cast<float>(f.gpus_healthy())});
        out()->samples.push_back({e, FLEET_GPUS_DEGRADED, static_cast<float>(f.gpus_degraded())});
        out()->samples.push_back({e, FLEET_GPUS_DOWN, static_cast<float>(f.gpus_down())});
        out()->samples.push_back({e, FLEET_ACTIVE_INCIDENTS, static_cast<float>(f.active_incidents())});
    }
}

}  // namespace watchfloor::server::sim
