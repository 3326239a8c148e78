#pragma once
// The fleet's goodput numbers merged over every endpoint, derived once for every page: ratios and
// the ETTR budget weighted by the GPUs of jobs whose goodput is measured (FleetStore::goodputWeight),
// breakdowns, counts and exposures summed. The Fleet page's KPI (FleetSummary) and the Goodput
// page both read this, so two endpoints can never make them disagree.

#include "watchfloor/v1/fleet.pb.h"

#include <QtGlobal>

#include <limits>
#include <string>

namespace watchfloor::client {

class FleetStore;

struct MergedFleetGoodput {
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

    bool any = false;       // some endpoint sent fleet numbers
    bool measured = false;  // and some of them weigh jobs with measured goodput: the ratios mean something
    int endpoints = 0;      // endpoints that sent fleet numbers
    // NaN unless measured: no job to average is no value, not 0 %.
    double goodput = kNaN, confirmed = kNaN, ettr = kNaN, ettr1h = kNaN, goodput1h = kNaN, expectedEttr = kNaN,
           mfu = kNaN;
    double weightStale = 0;  // share (0..1) of the ratios' weight from endpoints not Live
    double checkpointGapGpuHoursPerDay = 0;
    quint32 gpus = 0, interruptions = 0;
    watchfloor::v1::GoodputBreakdown breakdown;
    watchfloor::v1::EttrBudget budget;
    // The rates: summed counts over summed exposure. One endpoint's 95 % intervals are its own;
    // merged ones would need the chi-square quantiles of the sums (fleetd's), so they are kept
    // only when a single endpoint sent them.
    double hardwareFailures = 0, poweredGpuHours = 0, jobGpuHours = 0;
    double hardwareLow = 0, hardwareHigh = 0, allLow = 0, allHigh = 0;
    std::string failureCauses;

    double hardwareRate() const { return poweredGpuHours > 0 ? hardwareFailures / poweredGpuHours : 0.0; }
    double interruptionRate() const { return jobGpuHours > 0 ? interruptions / jobGpuHours : 0.0; }
};

MergedFleetGoodput mergeFleetGoodput(const FleetStore& store);

}  // namespace watchfloor::client
