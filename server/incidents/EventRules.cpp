#include "EventRules.h"

namespace watchfloor::server::incidents {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::uint32_t kNone = CauseTopology::kNone;

CauseKey key(v1::CauseScope scope, std::uint32_t id) { return CauseKey{static_cast<std::uint8_t>(scope), id}; }

ConditionKey condition(v1::EventType family, std::uint32_t entity, std::uint32_t related = kNone,
                       std::string cause = {}) {
    return ConditionKey{static_cast<std::uint8_t>(family), entity, related, std::move(cause)};
}

std::uint32_t firstRelatedOfKind(const v1::Event& e, const CauseTopology& topology, v1::EntityKind kind) {
    for (std::uint32_t r : e.related_entity_indexes())
        if (topology.kind(r) == kind) return r;
    return kNone;
}

// The entity a job-level event points at: the GPU, tray or rack that interrupted or slowed it.
std::uint32_t firstRelatedInTopology(const v1::Event& e, const CauseTopology& topology) {
    for (std::uint32_t r : e.related_entity_indexes())
        if (topology.known(r)) return r;
    return kNone;
}

bool isThermal(const std::string& cause) { return cause == "thermal" || cause == "thermal_shutdown"; }

EventRule trayRoot(std::uint32_t tray, const std::string& cause) {
    EventRule rule;
    rule.role = Role::Root;
    rule.key = key(v1::CAUSE_SCOPE_TRAY, tray);
    rule.subject = tray;
    rule.causeClass = cause;
    return rule;
}

EventRule cduAlarm(const v1::Event& e, const CauseTopology& topology) {
    EventRule rule;
    const std::uint32_t rack = firstRelatedOfKind(e, topology, v1::ENTITY_KIND_RACK);
    rule.causeClass = e.cause();
    rule.condition = condition(v1::EVENT_TYPE_CDU_ALARM, e.entity_index(), rack, e.cause());
    if (e.severity() < v1::SEVERITY_WARNING) {
        rule.role = Role::Clear;
        return rule;
    }
    rule.sustained = true;
    const std::uint32_t rackOfAlarm = rack != kNone ? rack : topology.rackOf(e.entity_index());
    const std::string& c = e.cause();
    if (topology.kind(e.entity_index()) == v1::ENTITY_KIND_REGION) {
        rule.role = Role::Root;
        rule.key = key(v1::CAUSE_SCOPE_FACILITY, e.entity_index());
        rule.domain = Domain::Cooling;
    } else if (c == "pump_failure" || c == "filter_clog") {
        rule.role = Role::Root;
        rule.key = key(v1::CAUSE_SCOPE_CDU, topology.cduOfRack(rackOfAlarm));
    } else if (c == "supply_temperature_high") {
        // The CDU's supply: a consequence of a pump, a filter or the facility water.
        rule.role = Role::Symptom;
        rule.domain = Domain::Cooling;
        rule.subject = rackOfAlarm;
        rule.key = key(v1::CAUSE_SCOPE_CDU, topology.cduOfRack(rackOfAlarm));
    } else if (c == "low_flow") {
        rule.role = Role::Symptom;
        rule.domain = Domain::Cooling;
        rule.subject = rackOfAlarm;
        rule.key = key(v1::CAUSE_SCOPE_COOLING_LOOP, topology.loopOfRack(rackOfAlarm));
    } else if (rack != kNone) {  // valve_fault, leak, leak_sensor_fault, and what a CDU names at one rack
        rule.role = Role::Root;
        rule.key = key(v1::CAUSE_SCOPE_COOLING_LOOP, topology.loopOfRack(rack));
    } else {  // an alarm of the CDU as a whole
        rule.role = Role::Root;
        rule.key = key(v1::CAUSE_SCOPE_CDU, topology.cduOfRack(rackOfAlarm));
    }
    if (rule.causeClass.empty()) rule.causeClass = "cooling";
    return rule;
}

EventRule linkEvent(const v1::Event& e, const CauseTopology& topology) {
    EventRule rule;
    const std::uint32_t entity = e.entity_index();
    rule.causeClass = e.cause().empty() ? "link" : e.cause();
    rule.condition = condition(v1::EVENT_TYPE_LINK_DOWN, entity);
    if (e.type() == v1::EVENT_TYPE_LINK_UP) {
        rule.role = Role::Clear;
        return rule;
    }
    rule.role = Role::Root;
    rule.subject = topology.trayOf(entity);  // a GPU's own fault on its tray takes its links' events
    rule.sustained = e.type() == v1::EVENT_TYPE_LINK_DOWN;
    if (topology.kind(entity) == v1::ENTITY_KIND_NIC_PORT)
        rule.key = key(v1::CAUSE_SCOPE_LEAF_SWITCH, topology.leafOfPort(entity));
    else if (topology.kind(entity) == v1::ENTITY_KIND_NVLINK)
        rule.key = key(v1::CAUSE_SCOPE_NVSWITCH_TRAY, topology.switchTrayOfLink(entity));
    else
        rule.role = Role::Ignore;
    return rule;
}

}  // namespace

EventRule classify(const v1::Event& e, const CauseTopology& topology) {
    const std::uint32_t entity = e.entity_index();
    const bool raising = e.severity() >= v1::SEVERITY_WARNING;
    if (raising && topology.kind(entity) == v1::ENTITY_KIND_POWER_SHELF) {
        EventRule rule;
        rule.role = Role::Root;
        rule.key = key(v1::CAUSE_SCOPE_POWER_SHELF, entity);
        rule.causeClass = e.cause().empty() ? "power_shelf" : e.cause();
        return rule;
    }
    EventRule rule;
    switch (e.type()) {
    case v1::EVENT_TYPE_XID:
    case v1::EVENT_TYPE_SDC: {
        const std::uint32_t tray = topology.trayOf(entity);
        if (tray == kNone) return rule;
        if (e.type() == v1::EVENT_TYPE_XID && !raising) {  // e.g. Xid 45 after a fatal one: a follower
            rule.role = Role::Follower;
            rule.subject = tray;
            return rule;
        }
        return trayRoot(tray, e.cause().empty() ? (e.type() == v1::EVENT_TYPE_SDC ? "sdc" : "xid") : e.cause());
    }
    case v1::EVENT_TYPE_HARDWARE: {
        const std::uint32_t tray = topology.trayOf(entity);
        if (tray == kNone || !raising) return rule;
        if (e.cause() == "thermal_shutdown") {
            rule.role = Role::Symptom;
            rule.domain = Domain::Cooling;
            rule.subject = tray;
            rule.key = key(v1::CAUSE_SCOPE_COOLING_LOOP, topology.loopOfRack(topology.rackOf(tray)));
            rule.causeClass = e.cause();
            return rule;
        }
        return trayRoot(tray, e.cause().empty() ? "host_hardware" : e.cause());
    }
    case v1::EVENT_TYPE_CLOCKS_EVENT: {
        rule.condition = condition(v1::EVENT_TYPE_CLOCKS_EVENT, entity);
        if (!raising) {
            rule.role = Role::Clear;
            return rule;
        }
        if (!isThermal(e.cause()) && !e.cause().empty()) {  // a failure of the GPU itself (its sensor, its paste)
            const std::uint32_t tray = topology.trayOf(entity);
            return tray == kNone ? rule : trayRoot(tray, e.cause());
        }
        rule.role = Role::Symptom;
        rule.domain = Domain::Cooling;
        rule.subject = entity;
        rule.sustained = true;
        rule.causeClass = "thermal";
        rule.key = key(v1::CAUSE_SCOPE_COOLING_LOOP, topology.loopOfRack(topology.rackOf(entity)));
        return rule;
    }
    case v1::EVENT_TYPE_LINK_DOWN:
    case v1::EVENT_TYPE_LINK_UP:
    case v1::EVENT_TYPE_LINK_FLAP:
    case v1::EVENT_TYPE_LINK_BER:
        if (!raising && e.type() != v1::EVENT_TYPE_LINK_UP) return rule;
        return linkEvent(e, topology);
    case v1::EVENT_TYPE_CDU_ALARM: return cduAlarm(e, topology);
    case v1::EVENT_TYPE_LEAK:
        rule.role = Role::Root;
        rule.causeClass = "leak";
        rule.key = key(v1::CAUSE_SCOPE_COOLING_LOOP, topology.kind(entity) == v1::ENTITY_KIND_COOLING_LOOP
                                                         ? entity
                                                         : topology.loopOfRack(topology.rackOf(entity)));
        return rule;
    case v1::EVENT_TYPE_RACK_ISOLATED:
        rule.role = Role::Symptom;
        rule.subject = entity;
        rule.sustained = true;
        rule.condition = condition(v1::EVENT_TYPE_RACK_ISOLATED, entity);
        rule.key = key(v1::CAUSE_SCOPE_RACK, entity);
        rule.causeClass = e.cause().empty() ? "isolated" : e.cause();
        return rule;
    case v1::EVENT_TYPE_RACK_RESTORED:
        rule.role = Role::Clear;
        rule.condition = condition(v1::EVENT_TYPE_RACK_ISOLATED, entity);
        return rule;
    case v1::EVENT_TYPE_NODE_STATE:
        rule.condition = condition(v1::EVENT_TYPE_NODE_STATE, entity);
        if (!raising) {
            rule.role = Role::Clear;
            return rule;
        }
        rule.role = Role::Follower;  // a drain by hand is no incident; a tray down after a fault joins it
        rule.subject = entity;
        rule.sustained = true;
        return rule;
    case v1::EVENT_TYPE_AUTOMATED_ACTION:
        rule.role = Role::Follower;
        rule.subject = entity;
        return rule;
    case v1::EVENT_TYPE_JOB_INTERRUPTED: {
        const std::uint32_t cause = firstRelatedInTopology(e, topology);
        rule.role = Role::Symptom;
        rule.domain = isThermal(e.cause()) ? Domain::Cooling : Domain::General;
        rule.subject = cause != kNone ? cause : entity;
        rule.sustained = true;
        rule.condition = condition(v1::EVENT_TYPE_JOB_INTERRUPTED, entity);
        rule.key = key(v1::CAUSE_SCOPE_JOB, entity);
        rule.causeClass = e.cause().empty() ? "interrupted" : e.cause();
        return rule;
    }
    case v1::EVENT_TYPE_JOB_RESUMED:
    case v1::EVENT_TYPE_JOB_FINISHED:
        rule.role = Role::Clear;
        rule.condition = condition(v1::EVENT_TYPE_JOB_INTERRUPTED, entity);
        return rule;
    case v1::EVENT_TYPE_STRAGGLER_DETECTED: {
        const std::uint32_t tray = firstRelatedOfKind(e, topology, v1::ENTITY_KIND_NODE);
        rule.role = Role::Symptom;
        rule.subject = tray != kNone ? tray : entity;
        rule.sustained = true;
        rule.condition = condition(v1::EVENT_TYPE_STRAGGLER_DETECTED, entity);
        rule.key = tray != kNone ? key(v1::CAUSE_SCOPE_TRAY, tray) : key(v1::CAUSE_SCOPE_JOB, entity);
        rule.causeClass = "straggler";
        return rule;
    }
    case v1::EVENT_TYPE_STRAGGLER_CLEARED:
        rule.role = Role::Clear;
        rule.condition = condition(v1::EVENT_TYPE_STRAGGLER_DETECTED, entity);
        return rule;
    default: return rule;  // job progress, checkpoints, operator actions, sources: not incidents
    }
}

}  // namespace watchfloor::server::incidents
