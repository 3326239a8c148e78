#include "RequestHandlers.h"

#include "TextBounds.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;
using grpc::Status;
using grpc::StatusCode;

namespace {
constexpr std::string_view kPageTokenPrefix = "before-event-";
constexpr std::string_view kIncidentPageTokenPrefix = "before-incident-";
constexpr std::size_t kMaxNameBytes = 256;
constexpr std::size_t kMaxMessageBytes = 1024;

// "<prefix><id>" with id > 0; an empty token is the first page (id 0).
bool parsePageToken(const std::string& token, std::string_view prefix, std::uint64_t* beforeId) {
    *beforeId = 0;
    if (token.empty()) return true;
    const char* digits = token.data() + prefix.size();
    const char* end = token.data() + token.size();
    return token.rfind(prefix, 0) == 0 && std::from_chars(digits, end, *beforeId).ptr == end && *beforeId != 0;
}

std::string metricName(v1::Metric metric) {
    const std::string& name = v1::Metric_Name(metric);
    return name.empty() ? std::to_string(int(metric)) : name;
}
}  // namespace

Status planSubscribe(const v1::SubscribeRequest& request, const FleetStateStore& store, const ReplayLog& log,
                     const std::string& runId, SubscribePlan* plan) {
    if (request.client_api_version() != v1::API_VERSION_UNSPECIFIED &&
        request.client_api_version() != v1::API_VERSION_1)
        return Status(StatusCode::FAILED_PRECONDITION,
                      "client API version " + std::to_string(request.client_api_version()) +
                          " is not supported; this fleetd speaks watchfloor.v1 (API_VERSION_1)");
    for (const auto* names : {&request.region_names(), &request.rack_names()})
        for (const std::string& name : *names)
            if (name.size() > kMaxNameBytes)
                return Status(StatusCode::INVALID_ARGUMENT, "a region or rack name of " + std::to_string(name.size()) +
                                                                " bytes; names are at most " +
                                                                std::to_string(kMaxNameBytes) + " bytes");
    FilterError error;
    const std::vector<std::string> regions(request.region_names().begin(), request.region_names().end());
    const std::vector<std::string> racks(request.rack_names().begin(), request.rack_names().end());
    if (!SubscriptionFilter::resolve(store.index(), regions, racks, request.detail(), &plan->filter, &error))
        // The message lists every unknown name: keep it well inside gRPC's metadata limit.
        return Status(error.kind == FilterError::Kind::NotFound ? StatusCode::NOT_FOUND : StatusCode::INVALID_ARGUMENT,
                      truncatedWithMarker(error.message, kMaxMessageBytes));
    const std::uint64_t after = request.resume_after_sequence();
    if (after == 0) {
        plan->snapshotReason = "initial";
        return Status::OK;
    }
    if (request.resume_run_id() != runId) {
        plan->snapshotReason = "restart";
        return Status::OK;
    }
    const std::uint64_t latest = store.lastSequence();
    if (after > latest)
        return Status(StatusCode::INVALID_ARGUMENT, "resume_after_sequence " + std::to_string(after) +
                                                        " is ahead of this server's latest sequence " +
                                                        std::to_string(latest));
    if (log.canResumeAfter(after)) {
        plan->cursor = after;
        plan->snapshotReason.clear();
    } else {
        plan->snapshotReason = "resync: fell off log";
    }
    return Status::OK;
}

namespace {

Status historyAnswer(const v1::GetHistoryRequest& request, const std::string& entityName, const HistoryResult& result,
                     v1::GetHistoryResponse* response) {
    response->set_entity_name(entityName);
    response->set_metric(request.metric());
    response->set_step_ms(result.stepMs);
    for (const auto& p : result.points) {
        auto* point = response->add_points();
        point->set_time_unix_ms(p.startMs);
        point->set_mean(p.mean);
        point->set_min(p.min);
        point->set_max(p.max);
        point->set_last(p.last);
        point->set_count(p.count);
    }
    return Status::OK;
}

}  // namespace

Status answerHistory(const v1::GetHistoryRequest& request, const FleetStateStore& store, const HistoryStore& history,
                     v1::GetHistoryResponse* response) {
    const std::int64_t start = request.start_unix_ms(), end = request.end_unix_ms(), step = request.step_ms();
    if (end <= start)
        return Status(StatusCode::INVALID_ARGUMENT,
                      "end_unix_ms " + std::to_string(end) + " must be after start_unix_ms " + std::to_string(start));
    if (end - start > kMaxHistoryRange.count())
        return Status(StatusCode::INVALID_ARGUMENT,
                      "range of " + std::to_string((end - start) / 3'600'000) + " h exceeds the 31-day maximum");
    if (step < 0) return Status(StatusCode::INVALID_ARGUMENT, "step_ms must not be negative");
    if (step > 0 && (end - start + step - 1) / step > kMaxHistoryBuckets)
        return Status(StatusCode::INVALID_ARGUMENT,
                      "step_ms " + std::to_string(step) + " gives " + std::to_string((end - start + step - 1) / step) +
                          " buckets; at most 10000 (use a step of at least " +
                          std::to_string((end - start + kMaxHistoryBuckets - 1) / kMaxHistoryBuckets) + " ms)");
    if (request.metric() == v1::METRIC_UNSPECIFIED || !v1::Metric_IsValid(request.metric()))
        return Status(StatusCode::INVALID_ARGUMENT,
                      "metric " + std::to_string(int(request.metric())) + " is not a watchfloor.v1.Metric");
    if (request.has_entity_index() && !request.entity_name().empty())
        return Status(StatusCode::INVALID_ARGUMENT, "set entity_name or entity_index, not both");
    if (!request.has_entity_index() && request.entity_name().empty())
        return Status(StatusCode::INVALID_ARGUMENT, "entity_name is empty");
    const std::string name =
        request.has_entity_index() ? store.entityName(request.entity_index()) : request.entity_name();
    const auto entity = store.findEntity(name);
    const std::string quoted = quotedForMessage(name);
    if (request.has_entity_index() && entity != request.entity_index())
        return Status(StatusCode::NOT_FOUND, "no entity with index " + std::to_string(request.entity_index()));
    if (!entity) return Status(StatusCode::NOT_FOUND, "no entity named " + quoted);
    if (const ExternalHistory* external = history.external()) {
        auto answer = external->query(*entity, request.metric(), start, end, step);
        if (!answer.error.empty())
            return Status(StatusCode::UNAVAILABLE,
                          "the metrics store did not answer for " + quoted + ": " + answer.error);
        if (answer.result) return historyAnswer(request, name, *answer.result, response);
    }
    const auto series = store.findSeries(*entity, request.metric());
    if (!series) return Status(StatusCode::NOT_FOUND, quoted + " has no " + metricName(request.metric()) + " samples");
    if (!history.keeps(*series) && request.latest_if_live_only()) {
        HistoryResult newest;
        newest.stepMs = 0;
        if (const auto latest = store.latest(*entity, request.metric()); latest && !std::isnan(latest->value))
            newest.points.push_back(
                {latest->sampleTimeMs, latest->value, latest->value, latest->value, latest->value, 1});
        return historyAnswer(request, name, newest, response);
    }
    if (!history.keeps(*series))
        return Status(StatusCode::FAILED_PRECONDITION, "no history is kept for " + metricName(request.metric()) +
                                                           " of " + quoted +
                                                           " (NVLink and NIC port series are live only)");
    return historyAnswer(request, name, history.query(*series, start, end, step), response);
}

Status answerListEvents(const v1::ListEventsRequest& request, const FleetStateStore& store,
                        v1::ListEventsResponse* response) {
    if (request.page_size() > kMaxEventPageSize)
        return Status(StatusCode::INVALID_ARGUMENT,
                      "page_size " + std::to_string(request.page_size()) + " exceeds the maximum of 1000");
    if (request.types_size() > kMaxEventTypes)
        return Status(StatusCode::INVALID_ARGUMENT, "too many event types: " + std::to_string(request.types_size()) +
                                                        " (at most " + std::to_string(kMaxEventTypes) + ")");
    if (request.start_unix_ms() < 0 || request.end_unix_ms() < 0)
        return Status(StatusCode::INVALID_ARGUMENT, "start_unix_ms and end_unix_ms must not be negative");
    if (request.start_unix_ms() != 0 && request.end_unix_ms() != 0 && request.end_unix_ms() <= request.start_unix_ms())
        return Status(StatusCode::INVALID_ARGUMENT, "end_unix_ms must be after start_unix_ms");
    if (!v1::Severity_IsValid(request.min_severity()))
        return Status(StatusCode::INVALID_ARGUMENT,
                      "min_severity " + std::to_string(request.min_severity()) + " is not a watchfloor.v1.Severity");
    for (int type : request.types())
        if (!v1::EventType_IsValid(type) || type == v1::EVENT_TYPE_UNSPECIFIED)
            return Status(StatusCode::INVALID_ARGUMENT,
                          "event type " + std::to_string(type) + " is not a watchfloor.v1.EventType");
    std::uint64_t beforeId = 0;
    if (!parsePageToken(request.page_token(), kPageTokenPrefix, &beforeId))
        return Status(StatusCode::INVALID_ARGUMENT, "page_token " + quotedForMessage(request.page_token()) +
                                                        " was not issued by this server; start without one");
    std::optional<std::uint32_t> within;
    if (!request.entity_name().empty()) {
        within = store.findEntity(request.entity_name());
        if (!within) return Status(StatusCode::NOT_FOUND, "no entity named " + quotedForMessage(request.entity_name()));
    }
    const auto& index = store.index();
    auto isAbout = [&](std::uint32_t entity) { return index.isInside(entity, *within); };
    auto matches = [&](const v1::Event& e) {
        if (request.start_unix_ms() != 0 && e.time_unix_ms() < request.start_unix_ms()) return false;
        if (request.end_unix_ms() != 0 && e.time_unix_ms() >= request.end_unix_ms()) return false;
        if (e.severity() < request.min_severity()) return false;
        if (request.types_size() > 0 &&
            std::find(request.types().begin(), request.types().end(), e.type()) == request.types().end())
            return false;
        if (!within) return true;
        if (isAbout(e.entity_index())) return true;
        return std::any_of(e.related_entity_indexes().begin(), e.related_entity_indexes().end(), isAbout);
    };
    const std::uint32_t pageSize = request.page_size() == 0 ? kDefaultEventPageSize : request.page_size();
    bool more = false;
    auto page = store.journal().newestFirst(beforeId, pageSize, matches, &more);
    for (auto& e : page) *response->add_events() = std::move(e);
    if (more && !page.empty())
        response->set_next_page_token(std::string(kPageTokenPrefix) +
                                      std::to_string(response->events().rbegin()->id()));
    return Status::OK;
}

Status answerListIncidents(const v1::ListIncidentsRequest& request, const FleetStateStore& store,
                           v1::ListIncidentsResponse* response) {
    if (request.page_size() > kMaxIncidentPageSize)
        return Status(StatusCode::INVALID_ARGUMENT, "page_size " + std::to_string(request.page_size()) +
                                                        " exceeds the maximum of " +
                                                        std::to_string(kMaxIncidentPageSize));
    if (request.states_size() > v1::IncidentState_ARRAYSIZE)
        return Status(StatusCode::INVALID_ARGUMENT, "too many states: " + std::to_string(request.states_size()));
    for (int state : request.states())
        if (!v1::IncidentState_IsValid(state) || state == v1::INCIDENT_STATE_UNSPECIFIED)
            return Status(StatusCode::INVALID_ARGUMENT,
                          "state " + std::to_string(state) + " is not a watchfloor.v1.IncidentState");
    std::uint64_t beforeId = 0;
    if (!parsePageToken(request.page_token(), kIncidentPageTokenPrefix, &beforeId))
        return Status(StatusCode::INVALID_ARGUMENT, "page_token " + quotedForMessage(request.page_token()) +
                                                        " was not issued by this server; start without one");
    auto wanted = [&](const v1::Incident& incident) {
        return request.states_size() == 0 ||
               std::find(request.states().begin(), request.states().end(), incident.state()) != request.states().end();
    };
    const std::uint32_t pageSize = request.page_size() == 0 ? kDefaultIncidentPageSize : request.page_size();
    bool more = false;
    for (auto& incident : store.incidents(beforeId, pageSize, wanted, &more)) {
        if (!request.include_member_ids()) incident.clear_member_event_ids();
        *response->add_incidents() = std::move(incident);
    }
    if (more && response->incidents_size() > 0)
        response->set_next_page_token(std::string(kIncidentPageTokenPrefix) +
                                      std::to_string(response->incidents().rbegin()->id()));
    response->set_open_count(store.openIncidents());
    return Status::OK;
}

Status answerTopology(const v1::GetTopologyRequest& request, const FleetStateStore& store, v1::Topology* response) {
    if (!v1::DetailLevel_IsValid(request.detail()))
        return Status(StatusCode::INVALID_ARGUMENT,
                      "detail " + std::to_string(request.detail()) + " is not a watchfloor.v1.DetailLevel");
    *response = *store.topologyFor(SubscriptionFilter::everything(detailTierOf(request.detail())));
    return Status::OK;
}

}  // namespace watchfloor::server::service
