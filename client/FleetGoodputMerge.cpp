#include "client/FleetGoodputMerge.h"

#include "client/ConnectionState.h"
#include "client/FleetStore.h"
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
        const double w = store.goodputWeight(i);
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

}  // namespace watchfloor::client
