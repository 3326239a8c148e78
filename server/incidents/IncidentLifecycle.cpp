#include "IncidentLifecycle.h"

#include "FleetStateKinds.h"
#include "UtcTime.h"

#include <algorithm>

namespace watchfloor::server::incidents {

namespace v1 = watchfloor::v1;

namespace {

std::string stateWord(v1::IncidentState state) {
    const std::string& full = v1::IncidentState_Name(state);
    constexpr std::string_view prefix = "INCIDENT_STATE_";
    return full.starts_with(prefix) ? full.substr(prefix.size()) : full;
}

v1::IncidentTimelineEntry entry(v1::TimelineEntryKind kind, std::int64_t timeMs, std::string text,
                                std::string principal = {}) {
    v1::IncidentTimelineEntry out;
    out.set_kind(kind);
    out.set_time_unix_ms(timeMs);
    out.set_text(std::move(text));
    out.set_principal(std::move(principal));
    return out;
}

bool contains(const google::protobuf::RepeatedField<std::uint32_t>& list, std::uint32_t value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

// Causes at rack level or above: an action anywhere in their racks is part of handling them.
bool rackWide(v1::CauseScope scope) {
    return scope == v1::CAUSE_SCOPE_FACILITY || scope == v1::CAUSE_SCOPE_CDU || scope == v1::CAUSE_SCOPE_COOLING_LOOP ||
           scope == v1::CAUSE_SCOPE_RACK || scope == v1::CAUSE_SCOPE_POWER_SHELF;
}

}  // namespace

IncidentLifecycle::IncidentLifecycle(const v1::Topology& topology) {
    for (const auto& node : topology.nodes())
        nodeByName_.emplace(node.name(), NodePlace{node.index(), node.rack_index()});
    for (const auto& rack : topology.racks()) rackByName_.emplace(rack.name(), rack.index());
}

v1::IncidentState IncidentLifecycle::effectiveState(const Record& record) {
    if (record.grouped.state() == v1::INCIDENT_STATE_RESOLVED) return v1::INCIDENT_STATE_RESOLVED;
    if (record.operatorState != v1::INCIDENT_STATE_UNSPECIFIED) return record.operatorState;
    return v1::INCIDENT_STATE_OPEN;
}

IncidentLifecycle::Verdict IncidentLifecycle::checkLocked(Step step, std::uint64_t id, const std::string& owner) const {
    const std::string name = "incident " + std::to_string(id);
    const auto found = records_.find(id);
    if (found == records_.end())
        return {Code::NotFound,
                "no " + name + " in this fleetd run (it keeps every open incident and the newest " +
                    std::to_string(fleetstate::Incidents::kRetiredKept) +
                    " resolved ones; ids start again when fleetd restarts)",
                0};
    const Record& record = found->second;
    const v1::IncidentState state = effectiveState(record);
    const std::string now = stateWord(state);
    auto refused = [&](std::string why) {
        return Verdict{Code::FailedPrecondition, name + " is " + now + ": " + why, record.version};
    };
    auto allowed = [&](std::string what) { return Verdict{Code::Ok, name + ": " + what, record.version}; };
    const std::string resolvedHow = record.resolvedBy.empty()
                                        ? "it resolved by itself once its members had cleared for the hold time"
                                        : "resolved by " + record.resolvedBy;
    switch (step) {
    case Step::Acknowledge:
        if (state == v1::INCIDENT_STATE_RESOLVED)
            return refused(resolvedHow +
                           "; a resolved incident cannot be acknowledged (new events open a new "
                           "incident; NOTE_INCIDENT still adds a note)");
        if (state != v1::INCIDENT_STATE_OPEN)
            return refused("already acknowledged by " + record.owner + " at " + utcTime(record.acknowledgedMs));
        return allowed(now + " -> ACKNOWLEDGED, owner " + owner);
    case Step::Mitigate:
        if (state == v1::INCIDENT_STATE_RESOLVED) return refused(resolvedHow + "; there is nothing left to mitigate");
        if (state == v1::INCIDENT_STATE_MITIGATED)
            return refused("already mitigated at " + utcTime(record.mitigatedMs) + " (owner " + record.owner + ")");
        return allowed(now + " -> MITIGATED" +
                       (record.owner.empty() ? ", owner " + owner + " (it was not acknowledged)" : std::string()));
    case Step::Resolve:
        if (state == v1::INCIDENT_STATE_RESOLVED) return refused(resolvedHow + "; it is already resolved");
        if (const std::uint32_t active = record.grouped.active_members(); active > 0)
            return refused(std::to_string(active) + " of its members " + (active == 1 ? "is" : "are") +
                           " still active; it resolves by itself once they have cleared for the hold time (mitigate "
                           "it meanwhile)");
        return allowed(now + " -> RESOLVED now, without waiting out the hold time; later events open a new incident");
    case Step::Note: return allowed("note added to its timeline (" + now + ")");
    }
    return {Code::FailedPrecondition, "unknown step", 0};
}

IncidentLifecycle::Verdict IncidentLifecycle::check(Step step, std::uint64_t id, const std::string& owner) const {
    std::lock_guard lock(mutex_);
    return checkLocked(step, id, owner);
}

void IncidentLifecycle::addEntry(Record& record, v1::IncidentTimelineEntry added) {
    ++record.timelineCount;
    if (record.first.size() < kTimelineFirst) {
        record.first.push_back(std::move(added));
        return;
    }
    record.newest.push_back(std::move(added));
    if (record.newest.size() > kTimelineNewest) record.newest.pop_front();
}

IncidentLifecycle::Verdict IncidentLifecycle::apply(Step step, std::uint64_t id, const std::string& principal,
                                                    const std::string& ownerAsked, const std::string& note,
                                                    const std::string& operationId) {
    const std::string owner = ownerAsked.empty() ? principal : ownerAsked;
    std::lock_guard lock(mutex_);
    const std::int64_t nowMs = nowMs_;
    Verdict verdict = checkLocked(step, id, owner);
    if (!verdict.ok()) return verdict;
    Record& record = records_.at(id);
    auto stateChange = [&](v1::IncidentState state, std::string text) {
        v1::IncidentTimelineEntry change =
            entry(v1::TIMELINE_ENTRY_KIND_STATE_CHANGE, nowMs, std::move(text), principal);
        change.set_state(state);
        change.set_operation_id(operationId);
        addEntry(record, std::move(change));
        record.operatorState = state;
        record.timelineState = state;
    };
    switch (step) {
    case Step::Acknowledge:
        record.owner = owner;
        record.acknowledgedMs = nowMs;
        stateChange(v1::INCIDENT_STATE_ACKNOWLEDGED, "acknowledged by " + principal + ", owner " + owner);
        break;
    case Step::Mitigate:
        if (record.owner.empty()) record.owner = owner;
        record.mitigatedMs = nowMs;
        stateChange(v1::INCIDENT_STATE_MITIGATED, "mitigated, says " + principal);
        break;
    case Step::Resolve:
        record.resolvedBy = principal;
        stateChange(v1::INCIDENT_STATE_RESOLVED, "resolved by " + principal);
        resolves_.push_back(id);
        break;
    case Step::Note: break;
    }
    if (!note.empty()) {
        record.note = note;
        v1::IncidentTimelineEntry added = entry(v1::TIMELINE_ENTRY_KIND_NOTE, nowMs, note, principal);
        added.set_operation_id(operationId);
        addEntry(record, std::move(added));
    }
    ++record.version;
    record.dirty = true;
    verdict.stateVersion = record.version;
    return verdict;
}

bool IncidentLifecycle::hits(const Record& record, const OperatorAction& action) const {
    const v1::BlastRadius& blast = record.grouped.blast_radius();
    switch (action.target) {
    case OperatorAction::Target::Node: {
        const auto node = nodeByName_.find(action.name);
        if (node == nodeByName_.end()) return false;
        if (contains(blast.node_indexes(), node->second.node)) return true;
        return rackWide(record.grouped.root_cause().scope()) && contains(blast.rack_indexes(), node->second.rack);
    }
    case OperatorAction::Target::Rack: {
        const auto rack = rackByName_.find(action.name);
        return rack != rackByName_.end() && contains(blast.rack_indexes(), rack->second);
    }
    case OperatorAction::Target::Job: {
        const auto job = jobByName_.find(action.name);
        return job != jobByName_.end() && contains(blast.job_indexes(), job->second);
    }
    }
    return false;
}

void IncidentLifecycle::recordAction(const OperatorAction& action) {
    std::lock_guard lock(mutex_);
    const std::int64_t nowMs = nowMs_;
    for (auto& [id, record] : records_) {
        if (effectiveState(record) == v1::INCIDENT_STATE_RESOLVED || !hits(record, action) ||
            !record.operations.insert(action.operationId).second)
            continue;
        v1::IncidentTimelineEntry added =
            entry(v1::TIMELINE_ENTRY_KIND_OPERATOR_ACTION, nowMs,
                  action.action + " " + action.description + ": " + action.outcome, action.principal);
        added.set_action(action.action);
        added.set_target(action.description);
        added.set_operation_id(action.operationId);
        addEntry(record, std::move(added));
        record.dirty = true;
    }
}

std::optional<v1::Incident> IncidentLifecycle::incident(std::uint64_t id) const {
    std::lock_guard lock(mutex_);
    const auto found = records_.find(id);
    if (found == records_.end()) return std::nullopt;
    return decorated(found->second);
}

std::vector<std::uint64_t> IncidentLifecycle::takeResolves() {
    std::lock_guard lock(mutex_);
    return std::exchange(resolves_, {});
}

v1::Incident IncidentLifecycle::decorated(const Record& record) const {
    v1::Incident out = record.grouped;
    out.set_state(effectiveState(record));
    out.set_owner(record.owner);
    out.set_note(record.note);
    out.set_acknowledged_unix_ms(record.acknowledgedMs);
    out.set_mitigated_unix_ms(record.mitigatedMs);
    out.set_resolved_by(record.resolvedBy);
    out.mutable_timeline()->Reserve(static_cast<int>(record.first.size() + record.newest.size()));
    for (const auto& added : record.first) *out.add_timeline() = added;
    for (const auto& added : record.newest) *out.add_timeline() = added;
    out.set_timeline_count(record.timelineCount);
    return out;
}

void IncidentLifecycle::forgetOldResolved() {
    while (resolvedIds_.size() > fleetstate::Incidents::kRetiredKept) {
        records_.erase(*resolvedIds_.begin());
        resolvedIds_.erase(resolvedIds_.begin());
    }
}

void IncidentLifecycle::publish(std::int64_t nowMs, std::span<const v1::Event> events,
                                std::span<const v1::Event> released, std::span<const v1::Job> jobs,
                                std::vector<v1::Incident>* changed) {
    std::vector<std::pair<v1::Incident, v1::IncidentState>> notifications;
    {
        std::lock_guard lock(mutex_);
        nowMs_ = nowMs;
        for (const v1::Job& job : jobs) jobByName_[job.name()] = job.index();
        std::unordered_map<std::uint64_t, const v1::Event*> byId;
        if (!changed->empty()) {
            byId.reserve(events.size() + released.size());
            for (const v1::Event& event : events) byId.emplace(event.id(), &event);
            for (const v1::Event& event : released) byId.emplace(event.id(), &event);
        }
        auto notifyIfChanged = [&](Record& record, const v1::Incident& published) {
            if (published.state() == record.notifiedState) return;
            notifications.emplace_back(published, record.notifiedState);
            record.notifiedState = published.state();
        };
        std::set<std::uint64_t> published;
        for (v1::Incident& incident : *changed) {
            Record& record = records_[incident.id()];
            record.grouped = incident;
            if (record.timelineState == v1::INCIDENT_STATE_UNSPECIFIED) {
                v1::IncidentTimelineEntry opened =
                    entry(v1::TIMELINE_ENTRY_KIND_STATE_CHANGE, incident.started_unix_ms(),
                          "opened: " + incident.root_cause().summary() +
                              (incident.raised_after_maintenance()
                                   ? " (its fault began inside a maintenance window and was still active when it ended)"
                                   : ""));
                opened.set_state(v1::INCIDENT_STATE_OPEN);
                addEntry(record, std::move(opened));
                record.timelineState = v1::INCIDENT_STATE_OPEN;
            }
            // The newest member ids are the ones that joined since the last publication.
            const std::uint32_t joined =
                incident.member_count() - std::min(record.membersSeen, incident.member_count());
            const int ids = incident.member_event_ids_size();
            for (int i = std::max(0, ids - static_cast<int>(joined)); i < ids; ++i) {
                const std::uint64_t eventId = incident.member_event_ids(i);
                const auto found = byId.find(eventId);
                v1::IncidentTimelineEntry member =
                    found != byId.end()
                        ? entry(v1::TIMELINE_ENTRY_KIND_MEMBER_EVENT, found->second->time_unix_ms(),
                                found->second->message())
                        : entry(v1::TIMELINE_ENTRY_KIND_MEMBER_EVENT, nowMs, "event " + std::to_string(eventId));
                member.set_event_id(eventId);
                addEntry(record, std::move(member));
            }
            record.membersSeen = incident.member_count();
            const v1::IncidentState state = effectiveState(record);
            if (state != record.timelineState) {
                v1::IncidentTimelineEntry change = entry(v1::TIMELINE_ENTRY_KIND_STATE_CHANGE, nowMs,
                                                         "resolved: every member clear for the hold time");
                change.set_state(state);
                addEntry(record, std::move(change));
                record.timelineState = state;
            }
            if (incident.state() == v1::INCIDENT_STATE_RESOLVED) resolvedIds_.insert(incident.id());
            incident = decorated(record);
            record.dirty = false;
            notifyIfChanged(record, incident);
            published.insert(incident.id());
        }
        for (auto& [id, record] : records_) {
            if (!record.dirty || published.count(id)) continue;
            changed->push_back(decorated(record));
            record.dirty = false;
            notifyIfChanged(record, changed->back());
        }
        forgetOldResolved();
    }
    if (listener_)
        for (const auto& [incident, previous] : notifications) listener_(incident, previous);
}

}  // namespace watchfloor::server::incidents
