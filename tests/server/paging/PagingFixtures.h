#pragma once
// A small fleet for the pager's tests — region "us-east", hall "h1" with rows 1 and 2, hall "h2"
// with row 1, one rack each, two trays per rack — and incidents placed in it.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <initializer_list>
#include <string>

namespace watchfloor::test {

namespace v1 = watchfloor::v1;

// Entity indexes: region 0, racks 10 + r, nodes 100 + 2r + slot.
inline v1::Topology pagingFleet() {
    v1::Topology t;
    t.set_fleet_name("testfleet");
    auto* region = t.add_regions();
    region->set_index(0);
    region->set_name("us-east");
    const struct {
        const char* name;
        const char* hall;
        std::uint32_t row;
    } racks[] = {{"r01", "h1", 1}, {"r02", "h1", 2}, {"r03", "h2", 1}};
    for (std::uint32_t r = 0; r < 3; ++r) {
        auto* rack = t.add_racks();
        rack->set_index(10 + r);
        rack->set_name(racks[r].name);
        rack->set_hall(racks[r].hall);
        rack->set_row(racks[r].row);
        rack->set_region_index(0);
        region->add_rack_indexes(10 + r);
        for (std::uint32_t slot = 0; slot < 2; ++slot) {
            auto* node = t.add_nodes();
            node->set_index(100 + 2 * r + slot);
            node->set_name(std::string(racks[r].name) + "-n0" + std::to_string(slot + 1));
            node->set_rack_index(10 + r);
            rack->add_node_indexes(node->index());
        }
    }
    return t;
}

// An open incident touching `racks` (0..2) and, when `nodes` lists some, those trays.
inline v1::Incident pagingIncident(std::uint64_t id, std::initializer_list<std::uint32_t> racks,
                                   std::initializer_list<std::uint32_t> nodes, std::int64_t startedMs) {
    v1::Incident i;
    i.set_id(id);
    i.set_state(v1::INCIDENT_STATE_OPEN);
    i.set_severity(v1::SEVERITY_CRITICAL);
    i.set_started_unix_ms(startedMs);
    i.set_member_count(3);
    i.set_active_members(2);
    i.set_title("incident " + std::to_string(id) + ": \"quoted\" cause");
    auto* cause = i.mutable_root_cause();
    cause->set_scope(v1::CAUSE_SCOPE_COOLING_LOOP);
    cause->set_cause("valve_fault");
    cause->set_name("r01-loop");
    cause->set_summary("r01-loop: control valve fault");
    auto* radius = i.mutable_blast_radius();
    radius->set_racks(static_cast<std::uint32_t>(racks.size()));
    for (const auto r : racks) radius->add_rack_indexes(10 + r);
    radius->set_trays(static_cast<std::uint32_t>(nodes.size()));
    for (const auto n : nodes) radius->add_node_indexes(100 + n);
    radius->set_gpus(4 * static_cast<std::uint32_t>(nodes.size()));
    return i;
}

inline v1::Incident resolved(v1::Incident incident, std::int64_t resolvedMs) {
    incident.set_state(v1::INCIDENT_STATE_RESOLVED);
    incident.set_resolved_unix_ms(resolvedMs);
    incident.set_active_members(0);
    return incident;
}

}  // namespace watchfloor::test
