#include "RackRollup.h"

#include "FleetStore.h"

#include <QMap>

#include <algorithm>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

void RackJobs::rebuild(const FleetStore& store) {
    m_jobRowByRack.assign(std::size_t(store.rackCount()), -1);
    m_jobNames.clear();
    std::vector<QMap<int, int>> traysPerJob(std::size_t(store.rackCount()));
    for (int row = 0; row < store.jobCount(); ++row) {
        const v1::Job* job = store.job(row);
        m_jobNames << (job ? QString::fromStdString(job->name()) : QString());
        if (!job || job->state() == v1::JOB_STATE_FINISHED || job->state() == v1::JOB_STATE_PENDING) continue;
        const EntityId jobId = store.jobAt(row);
        for (std::uint32_t node : job->node_indexes()) {
            const int rackRow = store.rackRow(store.rackOf(EntityId{jobId.endpoint, node}));
            if (rackRow >= 0) ++traysPerJob[std::size_t(rackRow)][row];
        }
    }
    for (std::size_t rack = 0; rack < traysPerJob.size(); ++rack) {
        int best = -1, bestTrays = 0;
        for (auto it = traysPerJob[rack].cbegin(); it != traysPerJob[rack].cend(); ++it) {
            if (it.value() > bestTrays) {
                best = it.key();
                bestTrays = it.value();
            }
        }
        m_jobRowByRack[rack] = best;
    }
}

QList<int> RackJobs::jobRowsOnRack(const FleetStore& store, int rackRow) const {
    QList<int> rows;
    const EntityId rack = store.rackAt(rackRow);
    for (int row = 0; row < store.jobCount(); ++row) {
        const v1::Job* job = store.job(row);
        if (!job || job->state() == v1::JOB_STATE_FINISHED || store.jobAt(row).endpoint != rack.endpoint) continue;
        for (std::uint32_t node : job->node_indexes()) {
            if (store.rackOf(EntityId{rack.endpoint, node}) == rack) {
                rows << row;
                break;
            }
        }
    }
    return rows;
}

namespace {

Reading difference(const Reading& minuend, const Reading& subtrahend) {
    Reading r;
    r.freshness = worseFreshness(minuend.freshness, subtrahend.freshness);
    if (!minuend.hasValue() || !subtrahend.hasValue()) return r;
    r.value = minuend.value - subtrahend.value;
    r.sampleTimeUnixMs = std::min(minuend.sampleTimeUnixMs, subtrahend.sampleTimeUnixMs);
    r.age = std::max(minuend.age, subtrahend.age);
    return r;
}

Reading jobGoodput(const FleetStore& store, int jobRow, Freshness stateFreshness) {
    const v1::Job* job = jobRow >= 0 ? store.job(jobRow) : nullptr;
    if (!job) return {};
    const Reading sampled = store.reading(store.jobAt(jobRow), v1::JOB_GOODPUT_RATIO);
    if (sampled.hasValue()) return sampled;
    // No JOB_GOODPUT_RATIO samples: the Job message itself carries the ratio, as current as the
    // job list, which is as current as the endpoint's connection.
    Reading fromJob;
    fromJob.value = float(job->goodput_ratio());
    fromJob.freshness = stateFreshness;
    return fromJob;
}

// Every tray silent: the rack's values are the last read, whatever their age or the connection says.
void markSilent(RackRollup& r) {
    for (Reading* reading : {&r.gpusDown, &r.gpusDegraded, &r.gpuTempMax, &r.power, &r.coolantFlow, &r.coolantDeltaT,
                             &r.linkErrors, &r.jobGoodput})
        if (reading->hasValue()) reading->freshness = Freshness::Silent;
    r.stateFreshness = Freshness::Silent;
}

}  // namespace

RackRollup rackRollup(const FleetStore& store, int row, const RackJobs& jobs) {
    RackRollup r;
    r.row = row;
    r.rack = store.rackAt(row);
    r.status = store.status(r.rack);
    r.stateFreshness =
        store.endpointState(r.rack.endpoint) == ConnectionState::Live ? Freshness::Fresh : Freshness::Stale;
    r.gpusDown = store.rackReading(row, v1::RACK_GPUS_DOWN);
    r.gpusDegraded = store.rackReading(row, v1::RACK_GPUS_DEGRADED);
    r.gpuTempMax = store.rackReading(row, v1::RACK_GPU_TEMP_MAX_C);
    r.power = store.rackReading(row, v1::RACK_POWER_KW);
    r.coolantFlow = store.rackReading(row, v1::RACK_LIQUID_FLOW_LPM);
    r.coolantDeltaT = difference(store.rackReading(row, v1::RACK_LIQUID_RETURN_TEMPERATURE_C),
                                 store.rackReading(row, v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C));
    r.linkErrors = store.rackReading(row, v1::RACK_LINK_ERRORS_PER_MIN);
    r.jobRow = jobs.jobRowOfRack(row);
    r.jobGoodput = jobGoodput(store, r.jobRow, r.stateFreshness);
    if (const v1::Rack* info = store.rackInfo(r.rack)) r.trays = info->node_indexes_size();
    r.silentTrays = store.silentTraysInRack(r.rack);
    if (r.everyTraySilent()) markSilent(r);
    return r;
}

std::vector<RackRollup> rackRollups(const FleetStore& store, const RackJobs& jobs) {
    std::vector<RackRollup> racks;
    racks.reserve(std::size_t(store.rackCount()));
    for (int row = 0; row < store.rackCount(); ++row) racks.push_back(rackRollup(store, row, jobs));
    return racks;
}

}  // namespace watchfloor::client
