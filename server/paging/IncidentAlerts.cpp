#include "IncidentAlerts.h"

#include <algorithm>
#include <cstdio>
#include <optional>

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

// The one value `field` takes over every listed rack, when the list is complete and agrees.
template <typename Field>
std::optional<std::string> shared(const v1::BlastRadius& radius, const Field& field) {
    if (radius.rack_indexes_size() == 0 || std::uint32_t(radius.rack_indexes_size()) != radius.racks())
        return std::nullopt;
    std::optional<std::string> value;
    for (const std::uint32_t rack : radius.rack_indexes()) {
        const std::string* v = field(rack);
        if (!v || v->empty() || (value && *value != *v)) return std::nullopt;
        value = *v;
    }
    return value;
}

}  // namespace

IncidentAlerts::IncidentAlerts(const v1::Topology& topology) : fleet_(topology.fleet_name()) {
    std::unordered_map<std::uint32_t, std::string> regions;
    for (const auto& region : topology.regions()) regions[region.index()] = region.name();
    for (const auto& rack : topology.racks())
        racks_[rack.index()] = {rack.name(), rack.hall(), rack.row() ? std::to_string(rack.row()) : std::string(),
                                regions[rack.region_index()]};
    for (const auto& node : topology.nodes()) nodes_[node.index()] = node.name();
}

void IncidentAlerts::addPlaceLabels(const v1::BlastRadius& radius, LabelSet& labels) const {
    auto rackField = [this](auto member) {
        return [this, member](std::uint32_t rack) -> const std::string* {
            const auto it = racks_.find(rack);
            return it == racks_.end() ? nullptr : &(it->second.*member);
        };
    };
    const auto region = shared(radius, rackField(&RackPlace::region));
    const auto hall = shared(radius, rackField(&RackPlace::hall));
    if (region) labels.emplace_back("region", *region);
    if (hall) {
        labels.emplace_back("hall", *hall);
        // A row number names a row within its hall only.
        if (const auto row = shared(radius, rackField(&RackPlace::row))) labels.emplace_back("row", *row);
    }
    if (radius.racks() == 1 && radius.rack_indexes_size() == 1)
        if (const auto rack = racks_.find(radius.rack_indexes(0)); rack != racks_.end())
            labels.emplace_back("rack", rack->second.name);
    if (radius.trays() == 1 && radius.node_indexes_size() == 1)
        if (const auto node = nodes_.find(radius.node_indexes(0)); node != nodes_.end())
            labels.emplace_back("node", node->second);
}

PagedAlert IncidentAlerts::alertOf(const v1::Incident& incident) const {
    PagedAlert alert;
    const auto& cause = incident.root_cause();
    alert.labels = {{"alertname", kAlertName},
                    {"fleet", fleet_},
                    {"incident", std::to_string(incident.id())},
                    {"severity", severityName(incident.severity())},
                    {"cause", cause.cause().empty() ? "unknown" : cause.cause()},
                    {"scope", scopeName(cause.scope())}};
    addPlaceLabels(incident.blast_radius(), alert.labels);
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
    alert.annotations = {{"title", incident.title()},
                         {"summary", cause.summary().empty() ? incident.title() : cause.summary()},
                         {"root_cause", cause.name()},
                         {"blast_radius", blast},
                         {"goodput_cost_gpu_hours", cost}};
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
