#include "IncidentGrouper.h"

#include "Plural.h"

#include <algorithm>

namespace watchfloor::server::incidents {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::uint32_t kNone = CauseTopology::kNone;

CauseKey keyOf(v1::CauseScope scope, std::uint32_t id) { return CauseKey{static_cast<std::uint8_t>(scope), id}; }

// Which symptoms a cause can explain: the facility water and a CDU only heat; a loop or a rack
// both heat and take trays down; power, network and jobs never explain heat; a tray both.
bool explains(std::uint8_t scope, Domain domain) {
    switch (static_cast<v1::CauseScope>(scope)) {
    case v1::CAUSE_SCOPE_FACILITY:
    case v1::CAUSE_SCOPE_CDU: return domain == Domain::Cooling;
    case v1::CAUSE_SCOPE_COOLING_LOOP:
    case v1::CAUSE_SCOPE_RACK:
    case v1::CAUSE_SCOPE_TRAY: return true;
    default: return domain == Domain::General;
    }
}

std::string causeWords(const std::string& cause) {
    static const std::map<std::string, std::string, std::less<>> words = {
        {"valve_fault", "control valve fault"},
        {"leak", "coolant leak"},
        {"leak_sensor_fault", "leak sensor fault"},
        {"low_flow", "low or no flow"},
        {"pump_failure", "pump failure"},
        {"filter_clog", "filter clogged (differential pressure high)"},
        {"supply_temperature_high", "secondary supply temperature high"},
        {"facility_water", "facility water temperature high"},
        {"thermal", "GPUs throttling on heat, no cooling alarm"},
        {"thermal_shutdown", "GPU over-temperature shutdown"},
        {"gpu_hard_fault", "GPU hard fault"},
        {"hbm_uncorrectable", "HBM uncorrectable ECC error"},
        {"straggler", "straggler"},
    };
    if (auto it = words.find(cause); it != words.end()) return it->second;
    std::string text = cause;
    std::replace(text.begin(), text.end(), '_', ' ');
    return text;
}

double disruptionGpuSeconds(const v1::Job& job) {
    const auto& b = job.breakdown();
    return double(job.gpu_count()) *
           (b.accelerator_init_s() + b.training_prep_s() + b.program_startup_s() + b.checkpoint_restore_s() +
            b.wasted_progress_s() + b.infra_recovery_s() + b.straggler_slowdown_s());
}

}  // namespace

IncidentGrouper::IncidentGrouper(const v1::Topology& topology, GrouperOptions options)
    : topology_(topology), options_(options) {}

IncidentGrouper::Open* IncidentGrouper::byKey(const CauseKey& key) {
    auto it = byKey_.find(key);
    return it == byKey_.end() ? nullptr : &open_.at(it->second);
}

IncidentGrouper::Open* IncidentGrouper::coveringTrayMember(std::uint32_t tray, Domain domain) {
    for (auto it = memberTrays_.lower_bound({tray, 0}); it != memberTrays_.end() && it->first == tray; ++it) {
        Open& candidate = open_.at(it->second);
        if (explains(candidate.key.scope, domain)) return &candidate;  // the oldest that explains it
    }
    return nullptr;
}

// The open incident whose cause explains a symptom at `subject`, the most specific first: its
// tray, an incident it is already part of, its rack (loop, rack, power shelf), its CDU, its
// region's facility water.
IncidentGrouper::Open* IncidentGrouper::covering(std::uint32_t subject, Domain domain) {
    if (subject == kNone) return nullptr;
    if (!topology_.known(subject)) {  // a job: the incident that already holds it
        for (auto it = jobIncidents_.lower_bound({subject, 0}); it != jobIncidents_.end() && it->first == subject; ++it)
            if (Open& candidate = open_.at(it->second); explains(candidate.key.scope, domain)) return &candidate;
        return nullptr;
    }
    const std::uint32_t tray = topology_.trayOf(subject);
    if (tray != kNone) {
        if (Open* found = byKey(keyOf(v1::CAUSE_SCOPE_TRAY, tray))) return found;
        if (Open* found = coveringTrayMember(tray, domain)) return found;
    }
    const std::uint32_t rack = topology_.rackOf(subject);
    if (rack == kNone) return nullptr;
    if (Open* found = byKey(keyOf(v1::CAUSE_SCOPE_COOLING_LOOP, topology_.loopOfRack(rack)))) return found;
    if (Open* found = byKey(keyOf(v1::CAUSE_SCOPE_RACK, rack))) return found;
    if (domain == Domain::General)
        for (std::uint32_t shelf : topology_.shelvesOfRack(rack))
            if (Open* found = byKey(keyOf(v1::CAUSE_SCOPE_POWER_SHELF, shelf))) return found;
    if (domain == Domain::Cooling) {
        if (Open* found = byKey(keyOf(v1::CAUSE_SCOPE_CDU, topology_.cduOfRack(rack)))) return found;
        if (Open* found = byKey(keyOf(v1::CAUSE_SCOPE_FACILITY, topology_.regionOf(rack)))) return found;
    }
    return nullptr;
}

IncidentGrouper::Open& IncidentGrouper::open(const CauseKey& key, std::int64_t nowMs) {
    const std::uint64_t id = nextId_++;
    Open& incident = open_[id];
    incident.id = id;
    incident.key = key;
    incident.startedMs = incident.lastChangeMs = nowMs;
    byKey_[key] = id;
    return incident;
}

void IncidentGrouper::noteJob(Open& incident, std::uint32_t job) {
    if (incident.jobs.insert(job).second) jobIncidents_.insert({job, incident.id});
}

void IncidentGrouper::noteTray(Open& incident, std::uint32_t tray) {
    if (tray == kNone) return;
    if (incident.trays.insert(tray).second) memberTrays_.insert({tray, incident.id});
    incident.racks.insert(topology_.rackOf(tray));
    if (tray < jobOfTray_.size() && jobOfTray_[tray] != kNone) noteJob(incident, jobOfTray_[tray]);
}

void IncidentGrouper::addToBlast(Open& incident, std::uint32_t entity, bool wholeRack) {
    switch (topology_.kind(entity)) {
    case v1::ENTITY_KIND_GPU:
    case v1::ENTITY_KIND_NVLINK:
    case v1::ENTITY_KIND_CPU:
    case v1::ENTITY_KIND_NIC_PORT:
        if (const std::uint32_t gpu = topology_.gpuOf(entity); gpu != kNone) incident.gpus.insert(gpu);
        noteTray(incident, topology_.trayOf(entity));
        break;
    case v1::ENTITY_KIND_NODE:
        noteTray(incident, entity);
        for (std::uint32_t gpu : topology_.gpusOfTray(entity)) incident.gpus.insert(gpu);
        break;
    case v1::ENTITY_KIND_RACK:
        incident.racks.insert(entity);
        if (wholeRack)  // isolated: every tray and GPU of the rack is out
            for (std::uint32_t tray : topology_.traysOfRack(entity)) addToBlast(incident, tray, false);
        break;
    case v1::ENTITY_KIND_COOLING_LOOP:
    case v1::ENTITY_KIND_POWER_SHELF:
    case v1::ENTITY_KIND_NVSWITCH_TRAY: incident.racks.insert(topology_.rackOf(entity)); break;
    case v1::ENTITY_KIND_UNSPECIFIED:  // jobs live outside the topology
        noteJob(incident, entity);
        break;
    default:  // the fleet, a region: no narrower scope
        break;
    }
}

void IncidentGrouper::join(Open& incident, const v1::Event& event, const EventRule& rule, std::int64_t nowMs) {
    ++incident.members;
    if (incident.firstIds.size() < options_.memberIdsKept) {
        incident.firstIds.push_back(event.id());
    } else {
        incident.newestIds.push_back(event.id());
        if (incident.newestIds.size() > options_.memberIdsKept) incident.newestIds.pop_front();
    }
    incident.severity = std::max(incident.severity, event.severity());
    incident.lastChangeMs = nowMs;
    incident.dirty = true;
    const bool names = incident.members == 1 || (rule.role == Role::Root && !incident.namedByRoot);
    if (names) {
        if (rule.role == Role::Root && !incident.namedByRoot && incident.key.scope == v1::CAUSE_SCOPE_TRAY) {
            // A lemon tray: this tray's Nth incident with a fault of its own within the window.
            auto& times = trayIncidentTimes_[incident.key.id];
            while (!times.empty() && times.front() < nowMs - options_.lemonWindow.count()) times.pop_front();
            times.push_back(nowMs);
            while (times.size() > 4 * std::size_t(options_.lemonFaults)) times.pop_front();
            incident.lemonFaults = static_cast<std::uint32_t>(times.size());
        }
        incident.namedByRoot = rule.role == Role::Root;
        incident.causeClass = rule.causeClass;
        incident.causeMessage = event.message();
        incident.causeEvidence = event.entity_index();
    }
    const auto scope = static_cast<v1::CauseScope>(incident.key.scope);
    if (rule.role == Role::Root && scope == v1::CAUSE_SCOPE_LEAF_SWITCH) incident.evidence.insert(event.entity_index());
    if (rule.role == Role::Root && scope == v1::CAUSE_SCOPE_NVSWITCH_TRAY)
        incident.evidence.insert(topology_.gpuOf(event.entity_index()));
    // A CDU alarm's entity stands for the CDU (its first loop): the rack it names is its scope.
    if (event.type() != v1::EVENT_TYPE_CDU_ALARM)
        addToBlast(incident, event.entity_index(), event.type() == v1::EVENT_TYPE_RACK_ISOLATED);
    for (std::uint32_t related : event.related_entity_indexes()) addToBlast(incident, related, false);
    if (!rule.sustained) return;
    auto [it, inserted] = conditions_.try_emplace(rule.condition, incident.id);
    if (!inserted && it->second != incident.id) {  // it now belongs to this incident (a job hit again)
        if (auto previous = open_.find(it->second); previous != open_.end()) {
            previous->second.active.erase(rule.condition);
            previous->second.lastChangeMs = nowMs;
            previous->second.dirty = true;
        }
        it->second = incident.id;
    }
    incident.active.insert(rule.condition);
}

void IncidentGrouper::clear(const ConditionKey& condition, std::int64_t nowMs) {
    auto it = conditions_.find(condition);
    if (it == conditions_.end()) return;  // raised before any incident held it, or never raised
    if (auto incident = open_.find(it->second); incident != open_.end()) {
        incident->second.active.erase(condition);
        incident->second.lastChangeMs = nowMs;
        incident->second.dirty = true;
    }
    conditions_.erase(it);
}

void IncidentGrouper::refreshJobs(std::span<const v1::Job> jobs) {
    for (const v1::Job& job : jobs) {
        jobNames_[job.index()] = job.name();
        auto& trays = jobTrays_[job.index()];
        if (std::equal(trays.begin(), trays.end(), job.node_indexes().begin(), job.node_indexes().end())) continue;
        for (std::uint32_t tray : trays)
            if (tray < jobOfTray_.size() && jobOfTray_[tray] == job.index()) jobOfTray_[tray] = kNone;
        trays.assign(job.node_indexes().begin(), job.node_indexes().end());
        for (std::uint32_t tray : trays) {
            if (tray >= jobOfTray_.size()) jobOfTray_.resize(std::size_t(tray) + 1, kNone);
            jobOfTray_[tray] = job.index();
        }
    }
}

// What a job's disruption badput grew by since its last report is charged to the open
// incidents that interrupted it (they hold its interruption condition). What its straggler
// slowdown grew by while it runs is charged to the incidents that hold its straggler condition,
// else to those whose blast radius holds it (a failing link slows collectives). Split evenly;
// a job's own start-up and checkpoints are nobody's incident.
void IncidentGrouper::attributeCost(std::span<const v1::Job> jobs) {
    std::vector<std::uint64_t> holders;
    auto charge = [&](double gpuSeconds) {
        for (std::uint64_t id : holders) {
            Open& incident = open_.at(id);
            incident.costGpuSeconds += gpuSeconds / double(holders.size());
            incident.costDirty = true;
        }
    };
    auto holding = [&](v1::EventType family, std::uint32_t job) {
        ConditionKey key;
        key.family = static_cast<std::uint8_t>(family);
        key.entity = job;
        auto held = conditions_.find(key);
        if (held != conditions_.end() && open_.count(held->second)) holders.push_back(held->second);
    };
    for (const v1::Job& job : jobs) {
        const Disruption now{disruptionGpuSeconds(job),
                             double(job.gpu_count()) * job.breakdown().straggler_slowdown_s()};
        auto [it, first] = jobDisruption_.try_emplace(job.index(), now);
        const Disruption before = it->second;
        it->second = now;
        if (first) continue;
        holders.clear();
        holding(v1::EVENT_TYPE_JOB_INTERRUPTED, job.index());
        if (!holders.empty()) {
            if (now.all > before.all) charge(now.all - before.all);
            continue;
        }
        if (now.slowdown <= before.slowdown) continue;
        holding(v1::EVENT_TYPE_STRAGGLER_DETECTED, job.index());
        if (holders.empty())
            for (auto h = jobIncidents_.lower_bound({job.index(), 0});
                 h != jobIncidents_.end() && h->first == job.index(); ++h)
                holders.push_back(h->second);
        charge(now.slowdown - before.slowdown);
    }
}

void IncidentGrouper::forget(const Open& incident) {
    byKey_.erase(incident.key);
    for (std::uint32_t tray : incident.trays) memberTrays_.erase({tray, incident.id});
    for (std::uint32_t job : incident.jobs) jobIncidents_.erase({job, incident.id});
}

bool IncidentGrouper::inMaintenance(const v1::Event& event, const MaintenanceCover& cover) const {
    auto covered = [&](std::uint32_t entity) {
        if (!topology_.known(entity)) return false;
        const std::uint32_t tray = topology_.trayOf(entity);
        if (tray != kNone && cover.coversNode(tray)) return true;
        const std::uint32_t rack = topology_.rackOf(entity);
        return rack != kNone && cover.coversRack(rack);
    };
    // A CDU alarm's entity stands for the whole CDU: the rack it names is where it is.
    if (event.type() == v1::EVENT_TYPE_CDU_ALARM)
        for (std::uint32_t related : event.related_entity_indexes())
            if (topology_.kind(related) == v1::ENTITY_KIND_RACK) return covered(related);
    if (topology_.known(event.entity_index())) return covered(event.entity_index());
    // A job's event lies in maintenance when one of the trays or racks it names does.
    return std::any_of(event.related_entity_indexes().begin(), event.related_entity_indexes().end(), covered);
}

void IncidentGrouper::route(const v1::Event& event, const EventRule& rule, std::int64_t nowMs, bool released) {
    Open* incident = nullptr;
    switch (rule.role) {
    case Role::Ignore:
    case Role::Clear: return;
    case Role::Root: {
        const auto scope = static_cast<v1::CauseScope>(rule.key.scope);
        // A GPU's own fault takes the events of its links (they fail with it).
        if ((scope == v1::CAUSE_SCOPE_LEAF_SWITCH || scope == v1::CAUSE_SCOPE_NVSWITCH_TRAY) && rule.subject != kNone)
            incident = byKey(keyOf(v1::CAUSE_SCOPE_TRAY, rule.subject));
        if (!incident) incident = byKey(rule.key);
        break;
    }
    case Role::Symptom:
        incident = covering(rule.subject, rule.domain);
        if (!incident) incident = byKey(rule.key);
        break;
    case Role::Follower:
        incident = covering(rule.subject, rule.domain);
        if (!incident) return;
        break;
    }
    if (!incident) {
        if (!rule.key.valid()) return;
        incident = &open(rule.key, nowMs);
        incident->raisedAfterMaintenance = released;
    }
    join(*incident, event, rule, nowMs);
}

// A condition held through a maintenance window that is still active when no window covers it
// any more raises its incident now.
void IncidentGrouper::releaseHeld(std::int64_t nowMs, const MaintenanceCover* maintenance) {
    released_.clear();
    for (auto it = held_.begin(); it != held_.end();) {
        if (maintenance && inMaintenance(it->second, *maintenance)) {
            ++it;
            continue;
        }
        released_.push_back(std::move(it->second));
        it = held_.erase(it);
    }
    for (const v1::Event& event : released_) route(event, classify(event, topology_), nowMs, true);
}

void IncidentGrouper::observe(std::int64_t nowMs, std::span<const v1::Event> events, std::span<const v1::Job> jobs,
                              std::vector<v1::Incident>* changed, const MaintenanceCover* maintenance) {
    refreshJobs(jobs);
    releaseHeld(nowMs, maintenance);
    for (const v1::Event& event : events) {
        const EventRule rule = classify(event, topology_);
        if (rule.role == Role::Ignore) continue;
        if (rule.role == Role::Clear) {
            held_.erase(rule.condition);
            clear(rule.condition, nowMs);
            continue;
        }
        if (maintenance && inMaintenance(event, *maintenance)) {
            // Journaled and streamed as always, but no incident (nothing pages) while it lasts.
            if (rule.sustained) held_.insert_or_assign(rule.condition, event);
            continue;
        }
        route(event, rule, nowMs, false);
    }
    attributeCost(jobs);
    for (auto it = open_.begin(); it != open_.end();) {
        Open& incident = it->second;
        if (incident.active.empty() && nowMs - incident.lastChangeMs >= options_.hold.count()) {
            changed->push_back(publish(incident, v1::INCIDENT_STATE_RESOLVED, nowMs));
            forget(incident);
            it = open_.erase(it);
            continue;
        }
        if (incident.dirty ||
            (incident.costDirty && nowMs - incident.lastPublishedMs >= options_.costPublishPeriod.count())) {
            changed->push_back(publish(incident, v1::INCIDENT_STATE_OPEN, 0));
            incident.dirty = incident.costDirty = false;
            incident.lastPublishedMs = nowMs;
        }
        ++it;
    }
}

bool IncidentGrouper::resolveNow(std::uint64_t id, std::int64_t nowMs, std::vector<v1::Incident>* changed) {
    const auto found = open_.find(id);
    if (found == open_.end()) return false;
    changed->push_back(publish(found->second, v1::INCIDENT_STATE_RESOLVED, nowMs));
    forget(found->second);
    std::erase_if(conditions_, [id](const auto& held) { return held.second == id; });
    open_.erase(found);
    return true;
}

std::vector<v1::Incident> IncidentGrouper::openIncidents() const {
    std::vector<v1::Incident> out;
    out.reserve(open_.size());
    for (const auto& [id, incident] : open_) out.push_back(publish(incident, v1::INCIDENT_STATE_OPEN, 0));
    return out;
}

void IncidentGrouper::describe(const Open& incident, v1::ProbableCause* cause) const {
    const auto scope = static_cast<v1::CauseScope>(incident.key.scope);
    const std::uint32_t id = incident.key.id;
    const std::string words = causeWords(incident.causeClass);
    auto entity = [&](v1::CauseScope s, std::uint32_t index) {
        cause->set_scope(s);
        cause->set_has_entity(true);
        cause->set_entity_index(index);
        cause->set_name(topology_.name(index));
    };
    cause->set_cause(incident.causeClass);
    switch (scope) {
    case v1::CAUSE_SCOPE_CDU: {
        cause->set_scope(scope);
        cause->set_name(topology_.cduName(id));
        std::string racks;
        std::size_t shown = 0;
        for (std::uint32_t rack : incident.racks) {
            if (shown++ == 4) {
                racks += ", ...";
                break;
            }
            racks += (racks.empty() ? "" : ", ") + topology_.name(rack);
        }
        cause->set_summary(cause->name() + ": " + words + (racks.empty() ? "" : " (" + racks + ")"));
        return;
    }
    case v1::CAUSE_SCOPE_LEAF_SWITCH:
        if (incident.evidence.size() >= 2) {
            cause->set_scope(scope);
            cause->set_name(topology_.leafName(id));
            cause->set_summary(cause->name() + ": link errors on " + plural(incident.evidence.size(), "port"));
            return;
        }
        entity(v1::CAUSE_SCOPE_LINK, incident.causeEvidence);
        cause->set_summary(incident.causeMessage + " (leaf " + topology_.leafName(id) + ")");
        return;
    case v1::CAUSE_SCOPE_NVSWITCH_TRAY:
        if (incident.evidence.size() >= 2) {
            entity(scope, id);
            cause->set_summary(cause->name() + ": NVLink errors on " + plural(incident.evidence.size(), "GPU"));
            return;
        }
        entity(v1::CAUSE_SCOPE_LINK, incident.causeEvidence);
        cause->set_summary(incident.causeMessage + " (switch tray " + topology_.name(id) + ")");
        return;
    case v1::CAUSE_SCOPE_TRAY:
        entity(scope, id);
        if (incident.lemonFaults >= options_.lemonFaults) {
            cause->set_cause("lemon_tray");
            cause->set_summary(cause->name() + ": lemon tray, incident " + std::to_string(incident.lemonFaults) +
                               " in 7 days (" + incident.causeMessage + ")");
        } else if (incident.causeClass == "straggler") {
            cause->set_summary(cause->name() + ": straggler (" + incident.causeMessage + ")");
        } else {
            cause->set_summary(cause->name() + ": " + words + " (" + incident.causeMessage + ")");
        }
        return;
    case v1::CAUSE_SCOPE_JOB: {
        cause->set_scope(scope);
        cause->set_has_entity(true);
        cause->set_entity_index(id);
        auto name = jobNames_.find(id);
        cause->set_name(name != jobNames_.end() ? name->second : "job " + std::to_string(id));
        cause->set_summary(cause->name() + ": " + words + " (" + incident.causeMessage + ")");
        return;
    }
    default:  // facility, loop, rack, power shelf: the entity of the key
        entity(scope, id);
        cause->set_summary(cause->name() + ": " + words);
        return;
    }
}

v1::Incident IncidentGrouper::publish(const Open& incident, v1::IncidentState state, std::int64_t resolvedMs) const {
    v1::Incident out;
    out.set_id(incident.id);
    out.set_state(state);
    out.set_severity(incident.severity);
    describe(incident, out.mutable_root_cause());
    auto* blast = out.mutable_blast_radius();
    auto bounded = [&](const std::set<std::uint32_t>& from, auto* to) {
        to->Reserve(static_cast<int>(std::min(from.size(), options_.listBound)));
        for (std::uint32_t index : from) {
            if (std::size_t(to->size()) == options_.listBound) break;
            to->Add(index);
        }
    };
    blast->set_racks(static_cast<std::uint32_t>(incident.racks.size()));
    blast->set_trays(static_cast<std::uint32_t>(incident.trays.size()));
    blast->set_gpus(static_cast<std::uint32_t>(incident.gpus.size()));
    blast->set_jobs(static_cast<std::uint32_t>(incident.jobs.size()));
    bounded(incident.racks, blast->mutable_rack_indexes());
    bounded(incident.trays, blast->mutable_node_indexes());
    bounded(incident.gpus, blast->mutable_gpu_indexes());
    bounded(incident.jobs, blast->mutable_job_indexes());
    out.set_started_unix_ms(incident.startedMs);
    out.set_last_change_unix_ms(state == v1::INCIDENT_STATE_RESOLVED ? resolvedMs : incident.lastChangeMs);
    out.set_resolved_unix_ms(resolvedMs);
    out.set_member_count(incident.members);
    for (std::uint64_t id : incident.firstIds) out.add_member_event_ids(id);
    for (std::uint64_t id : incident.newestIds) out.add_member_event_ids(id);
    out.set_active_members(static_cast<std::uint32_t>(incident.active.size()));
    out.set_goodput_cost_gpu_hours(incident.costGpuSeconds / 3600.0);
    std::string scope = plural(incident.racks.size(), "rack") + ", " + plural(incident.trays.size(), "tray") + ", " +
                        plural(incident.gpus.size(), "GPU") + ", " + plural(incident.jobs.size(), "job");
    out.set_title(out.root_cause().summary() + " · " + scope);
    out.set_raised_after_maintenance(incident.raisedAfterMaintenance);
    return out;
}

}  // namespace watchfloor::server::incidents
