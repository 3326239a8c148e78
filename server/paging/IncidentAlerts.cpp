#include "IncidentAlerts.h"

#include <algorithm>
#include <cstdio>

namespace watchfloor::server::paging {

namespace {

namespace v1 = watchfloor::v1;

const char* severityName(v1::Severity severity) {
    switch (severity) {
    case v1::SEVERITY_CRITICAL: return "critical";
    case v1::SEVERITY_WARNING: return "warning";
    case v1::SEVERITY_INFO: return "info";
    default: return "none";
    }
}

// CAUSE_SCOPE_COOLING_LOOP -> "cooling_loop": the enum's own spelling, as Event.cause is spelled.
std::string scopeName(v1::CauseScope scope) {
    std::string name = v1::CauseScope_Name(scope);
    constexpr std::string_view prefix = "CAUSE_SCOPE_";
    if (name.rfind(prefix, 0) == 0) name.erase(0, prefix.size());
    for (char& c : name) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return name.empty() ? "unspecified" : name;
}

void sortByName(LabelSet& set) {
    std::sort(set.begin(), set.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

void addUnique(std::vector<std::uint32_t>& list, std::uint32_t value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

IncidentAlerts::IncidentAlerts(const v1::Topology& topology) : topology_(topology), fleet_(topology.fleet_name()) {
    for (const auto& region : topology.regions()) regions_[region.index()] = region.name();
    for (const auto& rack : topology.racks())
        racks_[rack.index()] = {rack.name(), rack.hall(), rack.row() ? std::to_string(rack.row()) : std::string(),
                                regions_[rack.region_index()]};
    // Named as the grouper names them (CauseTopology): a loop without a CDU name is its own CDU.
    for (const auto& loop : topology.cooling_loops())
        addUnique(cduRacks_[loop.cdu_name().empty() ? loop.name() : loop.cdu_name()], loop.rack_index());
    for (const auto& port : topology.nic_ports())
        if (const auto rack = topology_.rackOf(port.node_index()); rack != incidents::CauseTopology::kNone)
            addUnique(leafRacks_[port.switch_name().empty() ? port.name() : port.switch_name()], rack);
}

std::vector<std::uint32_t> IncidentAlerts::racksOfCause(const v1::ProbableCause& cause) const {
    auto named = [](const auto& map, const std::string& name) {
        const auto it = map.find(name);
        return it == map.end() ? std::vector<std::uint32_t>{} : it->second;
    };
    switch (cause.scope()) {
    case v1::CAUSE_SCOPE_CDU: return named(cduRacks_, cause.name());
    case v1::CAUSE_SCOPE_LEAF_SWITCH: return named(leafRacks_, cause.name());
    case v1::CAUSE_SCOPE_FACILITY:  // a region: no narrower place
    case v1::CAUSE_SCOPE_JOB:       // a job's trays move; it has no place of its own
        return {};
    default: break;
    }
    if (!cause.has_entity()) return {};
    // One NIC port is named while its leaf switch has one failing port: the incident is the
    // leaf's (it takes the next port's failure), so it is placed where the leaf is.
    if (const auto leaf = topology_.leafOfPort(cause.entity_index()); leaf != incidents::CauseTopology::kNone)
        return named(leafRacks_, topology_.leafName(leaf));
    const auto rack = topology_.rackOf(cause.entity_index());
    if (rack == incidents::CauseTopology::kNone) return {};
    return {rack};
}

void IncidentAlerts::addPlaceLabels(const v1::ProbableCause& cause, LabelSet& labels) const {
    if (cause.scope() == v1::CAUSE_SCOPE_FACILITY && cause.has_entity()) {
        if (const auto region = regions_.find(topology_.regionOf(cause.entity_index())); region != regions_.end())
            labels.emplace_back("region", region->second);
        return;
    }
    const auto racks = racksOfCause(cause);
    std::vector<const RackPlace*> places;
    for (const std::uint32_t rack : racks)
        if (const auto place = racks_.find(rack); place != racks_.end()) places.push_back(&place->second);
    if (places.empty() || places.size() != racks.size()) return;
    // The one value a field takes over every rack of the cause, if they agree.
    auto shared = [&](std::string RackPlace::*field) -> const std::string* {
        const std::string& first = places.front()->*field;
        for (const auto* place : places)
            if (place->*field != first) return nullptr;
        return first.empty() ? nullptr : &first;
    };
    if (const auto* region = shared(&RackPlace::region)) labels.emplace_back("region", *region);
    if (const auto* hall = shared(&RackPlace::hall)) {
        labels.emplace_back("hall", *hall);
        // A row number names a row within its hall only.
        if (const auto* row = shared(&RackPlace::row)) labels.emplace_back("row", *row);
    }
    if (places.size() == 1) labels.emplace_back("rack", places.front()->name);
    if (cause.scope() == v1::CAUSE_SCOPE_TRAY && cause.has_entity() &&
        topology_.kind(cause.entity_index()) == v1::ENTITY_KIND_NODE)
        labels.emplace_back("node", topology_.name(cause.entity_index()));
}

std::string IncidentAlerts::rackNames(const v1::BlastRadius& radius) const {
    constexpr int kShown = 12;
    std::string names;
    int shown = 0;
    for (const std::uint32_t index : radius.rack_indexes()) {
        const auto rack = racks_.find(index);
        if (rack == racks_.end()) continue;
        if (shown++ == kShown) break;
        names += (names.empty() ? "" : ", ") + rack->second.name;
    }
    if (radius.racks() > std::uint32_t(std::min(shown, kShown)))
        names += (names.empty() ? "" : ", ") + std::string("... (") + std::to_string(radius.racks()) + " racks)";
    return names;
}

PagedAlert IncidentAlerts::alertOf(const v1::Incident& incident) const {
    PagedAlert alert;
    const auto& cause = incident.root_cause();
    alert.labels = {{"alertname", kAlertName},
                    {"fleet", fleet_},
                    {"incident", std::to_string(incident.id())},
                    {"severity", severityName(incident.severity())},
                    {"cause", cause.cause().empty() ? "unknown" : cause.cause()}};
    addPlaceLabels(cause, alert.labels);
    // Alertmanager reads an empty label as an absent one; sending it would only add noise.
    std::erase_if(alert.labels, [](const auto& label) { return label.second.empty(); });
    sortByName(alert.labels);

    const auto& radius = incident.blast_radius();
    char blast[200];
    std::snprintf(blast, sizeof blast, "%u racks, %u trays, %u GPUs, %u jobs; %u member events (%u active)",
                  radius.racks(), radius.trays(), radius.gpus(), radius.jobs(), incident.member_count(),
                  incident.active_members());
    char cost[64];
    std::snprintf(cost, sizeof cost, "%.1f", incident.goodput_cost_gpu_hours());
    alert.annotations = {
        {"title", incident.title()},     {"summary", cause.summary().empty() ? incident.title() : cause.summary()},
        {"root_cause", cause.name()},    {"scope", scopeName(cause.scope())},
        {"blast_radius", blast},         {"racks", rackNames(radius)},
        {"goodput_cost_gpu_hours", cost}};
    std::erase_if(alert.annotations, [](const auto& annotation) { return annotation.second.empty(); });
    sortByName(alert.annotations);
    return alert;
}

LabelSet IncidentAlerts::matchersOf(const SilencedPlace& place) const {
    LabelSet matchers{{"alertname", kAlertName}, {"fleet", fleet_}};
    switch (place.kind) {
    case SilencedPlace::Kind::Hall: matchers.emplace_back("hall", place.hall); break;
    case SilencedPlace::Kind::Row:
        matchers.emplace_back("hall", place.hall);
        matchers.emplace_back("row", std::to_string(place.row));
        break;
    case SilencedPlace::Kind::Rack: matchers.emplace_back("rack", place.name); break;
    case SilencedPlace::Kind::Node: matchers.emplace_back("node", place.name); break;
    }
    sortByName(matchers);
    return matchers;
}

}  // namespace watchfloor::server::paging
