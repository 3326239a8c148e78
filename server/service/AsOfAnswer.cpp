#include "AsOfAnswer.h"

#include "FleetStateKinds.h"
#include "TextBounds.h"

#include <algorithm>
#include <map>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;
using grpc::Status;
using grpc::StatusCode;

namespace {

std::string timeText(std::int64_t ms) { return std::to_string(ms) + " ms"; }

// The moment to answer for, or the refusal (fleet.proto, AsOfRequest).
Status checkMoment(const v1::AsOfRequest& request, std::int64_t earliest, std::int64_t latest, std::int64_t* asOf) {
    *asOf = request.as_of_unix_ms();
    if (*asOf <= 0) return Status(StatusCode::INVALID_ARGUMENT, "as_of_unix_ms must be set (fleet time, Unix ms)");
    if (earliest == 0)
        return Status(StatusCode::FAILED_PRECONDITION, "fleetd has applied no tick yet: nothing to rewind to");
    if (*asOf > latest)
        return Status(StatusCode::INVALID_ARGUMENT, "as_of_unix_ms " + timeText(*asOf) +
                                                        " is after fleetd's latest tick " + timeText(latest) +
                                                        " (the future; Subscribe shows the live fleet)");
    if (*asOf < earliest) {
        if (!request.earliest_if_before())
            return Status(StatusCode::OUT_OF_RANGE, "as_of_unix_ms " + timeText(*asOf) +
                                                        " is before the retained window; the earliest is " +
                                                        timeText(earliest) + " (earliest_unix_ms)");
        *asOf = earliest;
    }
    return Status::OK;
}

Status resolveFilter(const v1::AsOfRequest& request, const FleetStateStore& store, SubscriptionFilter* filter) {
    if (!v1::DetailLevel_IsValid(request.detail()))
        return Status(StatusCode::INVALID_ARGUMENT,
                      "detail " + std::to_string(request.detail()) + " is not a watchfloor.v1.DetailLevel");
    if (request.max_events() > kMaxAsOfEvents)
        return Status(StatusCode::INVALID_ARGUMENT, "max_events " + std::to_string(request.max_events()) +
                                                        " exceeds the maximum of " + std::to_string(kMaxAsOfEvents));
    FilterError error;
    const std::vector<std::string> racks(request.rack_names().begin(), request.rack_names().end());
    if (!SubscriptionFilter::resolve(store.index(), {}, racks, request.detail(), filter, &error))
        return Status(error.kind == FilterError::Kind::NotFound ? StatusCode::NOT_FOUND : StatusCode::INVALID_ARGUMENT,
                      truncatedWithMarker(error.message, 1024));
    const std::size_t racksAsked = racks.empty() ? std::size_t(store.index().topology().racks_size()) : racks.size();
    if (filter->tier() >= DetailTier::Standard && racksAsked > kMaxAsOfStandardRacks)
        return Status(StatusCode::INVALID_ARGUMENT, "node, GPU and CPU values of " + std::to_string(racksAsked) +
                                                        " racks: at most " + std::to_string(kMaxAsOfStandardRacks) +
                                                        " racks at STANDARD detail; ask for SUMMARY or name the racks");
    return Status::OK;
}

// Readings at `asOf`, one SampleBlock per (metric, sample time).
void addSamples(const FleetStateStore& store, const HistoryStore& history, const SubscriptionFilter& filter,
                std::int64_t asOf, v1::AsOfState* response) {
    const auto& index = store.index();
    const auto series = store.seriesWhere(
        [&](std::uint32_t entity, v1::Metric) { return !store.isJob(entity) && filter.wantsValuesOf(index, entity); });
    std::vector<std::uint32_t> ids;
    ids.reserve(series.size());
    for (const auto& s : series)
        if (history.keeps(s.id)) ids.push_back(s.id);
    const auto values = history.valuesAt(asOf, ids);
    std::map<std::pair<int, std::int64_t>, v1::SampleBlock*> blocks;
    std::size_t next = 0;
    for (const auto& s : series) {
        if (next == ids.size() || ids[next] != s.id) continue;
        const auto& value = values[next++];
        if (!value) continue;
        auto& block = blocks[{int(s.metric), value->sampleTimeMs}];
        if (!block) {
            block = response->add_samples();
            block->set_metric(s.metric);
            block->set_sample_time_unix_ms(value->sampleTimeMs);
        }
        block->add_entity_indexes(s.entity);
        block->add_values(value->value);
    }
}

// The live incident's timeline and member ids, cut at `asOf`, onto its version at `asOf`.
void cutAtMoment(const v1::Incident& live, std::int64_t asOf, std::uint64_t lastEventId, v1::Incident* past) {
    for (const auto& entry : live.timeline())
        if (entry.time_unix_ms() <= asOf) *past->add_timeline() = entry;
    for (std::uint64_t id : live.member_event_ids())
        if (id <= lastEventId) past->add_member_event_ids(id);
}

void addIncidents(const FleetStateStore& store, std::int64_t asOf, v1::AsOfState* response) {
    bool more = false;
    std::map<std::uint64_t, v1::Incident> live;
    for (auto& incident : store.incidents(
             0, SIZE_MAX, [](const v1::Incident&) { return true; }, &more))
        live.emplace(incident.id(), std::move(incident));
    const std::uint64_t lastEventId = store.journal().lastIdAtOrBefore(asOf);
    // What a live snapshot at that moment carried: every open one, the newest resolved ones.
    fleetstate::HeldRecords<fleetstate::Incidents> held;
    for (const auto& version : store.rewind().incidentsAsOf(asOf)) held.upsert(version);
    for (const bool resolved : {false, true})
        for (const auto& [id, version] : held.byKey()) {
            if (fleetstate::Incidents::retired(version) != resolved) continue;
            v1::Incident* past = response->add_incidents();
            *past = version;
            if (auto it = live.find(id); it != live.end()) cutAtMoment(it->second, asOf, lastEventId, past);
        }
    response->mutable_fleet()->set_active_incidents(std::uint32_t(held.live()));
}

// The fleet's numbers history keeps, from the samples already in the answer.
void addFleetNumbers(const FleetStateStore& store, std::int64_t asOf, v1::AsOfState* response) {
    v1::FleetGoodput* fleet = response->mutable_fleet();
    fleet->set_time_unix_ms(asOf);
    const std::uint32_t fleetIndex = store.index().fleetIndex();
    for (const auto& block : response->samples())
        for (int i = 0; i < block.entity_indexes_size(); ++i) {
            if (block.entity_indexes(i) != fleetIndex) continue;
            const double v = block.values(i);
            switch (block.metric()) {
            case v1::FLEET_GOODPUT_RATIO: fleet->set_goodput_ratio(v); break;
            case v1::FLEET_ETTR_SLIDING_1H_RATIO: fleet->set_ettr_sliding_1h_ratio(v); break;
            case v1::FLEET_MFU_RATIO: fleet->set_mfu_ratio(v); break;
            case v1::FLEET_GPUS_HEALTHY: fleet->set_gpus_healthy(std::uint32_t(v)); break;
            case v1::FLEET_GPUS_DEGRADED: fleet->set_gpus_degraded(std::uint32_t(v)); break;
            case v1::FLEET_GPUS_DOWN: fleet->set_gpus_down(std::uint32_t(v)); break;
            default: break;
            }
        }
    fleet->set_gpus_total(std::uint32_t(store.index().topology().gpus_size()));
}

}  // namespace

Status answerStateAsOf(const v1::AsOfRequest& request, const FleetStateStore& store, const HistoryStore& history,
                       const std::string& runId, v1::AsOfState* response) {
    SubscriptionFilter filter;
    if (Status s = resolveFilter(request, store, &filter); !s.ok()) return s;
    const std::int64_t earliest = store.rewind().earliest();
    const std::int64_t latest = toUnixMs(store.lastSampleTime());
    std::int64_t asOf = 0;
    if (Status s = checkMoment(request, earliest, latest, &asOf); !s.ok()) return s;

    response->set_as_of_unix_ms(asOf);
    response->set_earliest_unix_ms(earliest);
    response->set_server_time_unix_ms(latest);
    response->set_run_id(runId);
    const auto& index = store.index();
    for (auto& state : store.rewind().statesAsOf(asOf))
        if (filter.selectsEntity(index, state.entity_index())) *response->add_states() = std::move(state);
    addSamples(store, history, filter, asOf, response);
    addIncidents(store, asOf, response);
    addFleetNumbers(store, asOf, response);
    const std::uint32_t maxEvents = request.max_events() == 0 ? kDefaultAsOfEvents : request.max_events();
    for (auto& e : store.journal().recent(
             maxEvents, [&](const v1::Event& e) { return e.time_unix_ms() <= asOf && filter.wantsEvent(index, e); }))
        *response->add_recent_events() = std::move(e);
    return Status::OK;
}

}  // namespace watchfloor::server::service
