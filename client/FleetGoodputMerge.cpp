#include "FleetGoodputMerge.h"

#include "ConnectionState.h"
#include "FleetStore.h"
#include "JobProgress.h"
#include "MessageWeights.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

MergedFleetGoodput mergeFleetGoodput(const FleetStore& store) {
    MergedFleetGoodput m;
    double weight = 0, stale = 0;
    double goodput = 0, confirmed = 0, ettr = 0, ettr1h = 0, goodput1h = 0, expectedEttr = 0, mfu = 0;
    for (int i = 0; i < store.endpointCount(); ++i) {
        const v1::FleetGoodput* f = store.endpointFleet(i).fleetGoodput();
        if (!f) continue;
        const double w = goodputWeight(store.endpointFleet(i));
        m.any = true;
        ++m.endpoints;
        goodput += f->goodput_ratio() * w;
        confirmed += f->confirmed_goodput_ratio() * w;
        ettr += f->ettr_ratio() * w;
        ettr1h += f->ettr_sliding_1h_ratio() * w;
        goodput1h += f->goodput_sliding_1h_ratio() * w;
        expectedEttr += f->expected_ettr_ratio() * w;
        mfu += f->mfu_ratio() * w;
        proto::addWeightedDoubles(m.budget, f->ettr_budget(), w);
        weight += w;
        stale += store.endpointState(i) == ConnectionState::Live ? 0.0 : w;
        m.gpus += f->gpus_total();
        m.interruptions += f->interruptions();
        m.checkpointGapGpuHoursPerDay += f->checkpoint_gap_gpu_hours_per_day();
        m.hardwareFailures += double(f->hardware_failures());
        m.poweredGpuHours += f->powered_gpu_hours();
        m.jobGpuHours += f->job_gpu_hours();
        m.hardwareLow = f->failures_per_gpu_hour_low();
        m.hardwareHigh = f->failures_per_gpu_hour_high();
        m.allLow = f->interruptions_per_gpu_hour_low();
        m.allHigh = f->interruptions_per_gpu_hour_high();
        if (m.failureCauses.empty()) m.failureCauses = f->failure_rate_causes();
        proto::addWeightedDoubles(m.breakdown, f->breakdown(), 1.0);
    }
    if (weight > 0) {
        m.measured = true;
        m.goodput = goodput / weight;
        m.confirmed = confirmed / weight;
        m.ettr = ettr / weight;
        m.ettr1h = ettr1h / weight;
        m.goodput1h = goodput1h / weight;
        m.expectedEttr = expectedEttr / weight;
        m.mfu = mfu / weight;
        m.weightStale = stale / weight;
        proto::scaleDoubles(m.budget, 1.0 / weight);
    }
    if (m.endpoints != 1) m.hardwareLow = m.hardwareHigh = m.allLow = m.allHigh = 0;
    return m;
}

FleetSummary summarizeFleet(const FleetStore& store) {
    FleetSummary s;
    s.endpointsTotal = store.endpointCount();
    for (int endpoint = 0; endpoint < store.endpointCount(); ++endpoint) {
        const EndpointFleet& fleet = store.endpointFleet(endpoint);
        const bool live = store.endpointState(endpoint) == ConnectionState::Live;
        s.endpointsLive += live ? 1 : 0;
        for (std::uint32_t slot = 0; slot < fleet.jobCount(); ++slot) {
            const v1::Job& j = fleet.job(slot);
            s.jobsStarting += jobIsStarting(j) ? 1 : 0;
            if (!jobIsActive(j)) continue;
            ++s.jobsActive;
            s.jobsInGoodput += j.no_step_telemetry() ? 0 : 1;
        }
        // The KPI counts the incidents the dock lists: the same list, the same count.
        const std::uint32_t openIncidents = fleet.openIncidentCount();
        s.activeIncidents += openIncidents;
        s.activeIncidentsStale += live ? 0 : openIncidents;
        const v1::FleetGoodput* f = fleet.fleetGoodput();
        if (!f) continue;
        ++s.endpointsReporting;
        s.gpusTotal += f->gpus_total();
        s.gpusHealthy += f->gpus_healthy();
        s.gpusDegraded += f->gpus_degraded();
        s.gpusDown += f->gpus_down();
        s.interruptions += f->interruptions();
        if (!live) {
            s.gpusTotalStale += f->gpus_total();
            s.gpusHealthyStale += f->gpus_healthy();
            s.gpusDegradedStale += f->gpus_degraded();
            s.gpusDownStale += f->gpus_down();
        }
    }
    // The ratios: the one merge the Goodput page shows too.
    const MergedFleetGoodput merged = mergeFleetGoodput(store);
    s.goodputRatio = merged.goodput;
    s.ettrSliding1hRatio = merged.ettr1h;
    s.mfuRatio = merged.mfu;
    s.ratioWeightStale = merged.weightStale;
    return s;
}

double goodputWeight(const EndpointFleet& fleet) {
    const v1::FleetGoodput* f = fleet.fleetGoodput();
    if (!f) return 0;
    double measuredGpus = 0;
    int measured = 0;
    for (std::uint32_t slot = 0; slot < fleet.jobCount(); ++slot) {
        const v1::Job& j = fleet.job(slot);
        if (!jobIsActive(j) || j.no_step_telemetry() || jobIsStarting(j)) continue;
        ++measured;
        measuredGpus += j.gpu_count();
    }
    // No job to average (none running, none publishing its steps, or all still starting): no goodput
    // to show, rather than the 0 % an empty average reads as.
    if (measured == 0) return 0.0;
    return measuredGpus > 0 ? measuredGpus : double(f->gpus_total());
}

}  // namespace watchfloor::client
