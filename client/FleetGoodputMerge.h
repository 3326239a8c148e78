#pragma once
// The fleet's goodput numbers merged over every endpoint, derived once for every page: ratios and
// the ETTR budget weighted by the GPUs of jobs whose goodput is measured (goodputWeight),
// breakdowns, counts and exposures summed. The Fleet page's KPI (FleetSummary) and the Goodput
// page both read this, so two endpoints can never make them disagree.

#include "watchfloor/v1/fleet.pb.h"

#include <QtGlobal>

#include <cmath>

#include <limits>
#include <string>

namespace watchfloor::client {

class EndpointFleet;
class FleetStore;

// Fleet numbers merged over all endpoints.
struct FleetSummary {
    double goodputRatio = std::numeric_limits<double>::quiet_NaN();  // weighted by running-job GPUs
    double ettrSliding1hRatio = std::numeric_limits<double>::quiet_NaN();
    double mfuRatio = std::numeric_limits<double>::quiet_NaN();
    quint32 gpusTotal = 0;
    quint32 gpusHealthy = 0;
    quint32 gpusDegraded = 0;
    quint32 gpusDown = 0;
    quint32 activeIncidents = 0;
    quint32 interruptions = 0;
    int endpointsReporting = 0;  // endpoints that sent fleet numbers
    int endpointsLive = 0;
    int endpointsTotal = 0;
    // The ratios are over jobs with step telemetry only: a real site's job that publishes no step
    // progress has no goodput, and counting it as 0 % would drag the fleet down for nothing.
    int jobsActive = 0;     // running, checkpointing or recovering
    int jobsInGoodput = 0;  // of those, the ones with step telemetry
    // Jobs not finished that have no productive step yet (JobProgress.h). While every job with step
    // telemetry is starting the ratios are NaN and starting() is true: no value yet, not 0 %.
    int jobsStarting = 0;

    // How much of each merged number comes from endpoints that are not Live: their last values,
    // aging. An operator must see that "720 healthy" is half last-known.
    quint32 gpusTotalStale = 0;
    quint32 gpusHealthyStale = 0;
    quint32 gpusDegradedStale = 0;
    quint32 gpusDownStale = 0;
    quint32 activeIncidentsStale = 0;
    double ratioWeightStale = 0;  // share (0..1) of the ratios' weight from endpoints not Live

    bool allLive() const { return endpointsLive == endpointsTotal; }
    bool starting() const { return std::isnan(goodputRatio) && jobsStarting > 0; }
};

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

// The Fleet page's KPIs: GPU and incident counts summed (and how much of them is stale), job
// counts, and the ratios of mergeFleetGoodput().
FleetSummary summarizeFleet(const FleetStore& store);

// How much an endpoint's fleet ratios weigh in the merged fleet: the GPUs of its active jobs
// with step telemetry that have made a productive step; 0 when there is no such job, since
// fleetd's ratios then describe no job at all (or read 0 % for jobs that are only starting).
double goodputWeight(const EndpointFleet& fleet);

}  // namespace watchfloor::client
