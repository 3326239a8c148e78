#pragma once
// A small fleet for the pager's tests — region "us-east": hall "h1" with r01 and r04 in row 1 and
// r02 in row 2, hall "h2" with r03 in row 1; two trays per rack; each rack's loop fed by its row's
// CDU (cdu-h1-row1 feeds r01 and r04); one NIC port per tray, on leaf-h1 or leaf-h2 — and
// incidents placed in it.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <initializer_list>
#include <string>

namespace watchfloor::test {

namespace v1 = watchfloor::v1;

// Entity indexes: region 0, racks 10 + r, nodes 100 + 2r + slot, loops 200 + r, NIC ports 300 +
// (node - 100), the fleet 999.
inline v1::Topology makePagingFleet() {
    v1::Topology t;
    t.set_fleet_name("testfleet");
    t.set_fleet_index(999);
    auto* region = t.add_regions();
    region->set_index(0);
    region->set_name("us-east");
    const struct {
        const char* name;
        const char* hall;
        std::uint32_t row;
    } racks[] = {{"r01", "h1", 1}, {"r02", "h1", 2}, {"r03", "h2", 1}, {"r04", "h1", 1}};
    for (std::uint32_t r = 0; r < 4; ++r) {
        auto* rack = t.add_racks();
        rack->set_index(10 + r);
        rack->set_name(racks[r].name);
        rack->set_hall(racks[r].hall);
        rack->set_row(racks[r].row);
        rack->set_region_index(0);
        rack->set_cooling_loop_index(200 + r);
        region->add_rack_indexes(10 + r);
        auto* loop = t.add_cooling_loops();
        loop->set_index(200 + r);
        loop->set_name(std::string(racks[r].name) + "-loop");
        loop->set_rack_index(10 + r);
        loop->set_cdu_name("cdu-" + std::string(racks[r].hall) + "-row" + std::to_string(racks[r].row));
        for (std::uint32_t slot = 0; slot < 2; ++slot) {
            auto* node = t.add_nodes();
            node->set_index(100 + 2 * r + slot);
            node->set_name(std::string(racks[r].name) + "-n0" + std::to_string(slot + 1));
            node->set_rack_index(10 + r);
            rack->add_node_indexes(node->index());
            auto* port = t.add_nic_ports();
            port->set_index(300 + 2 * r + slot);
            port->set_name(node->name() + "-ib0");
            port->set_node_index(node->index());
            port->set_switch_name("leaf-" + std::string(racks[r].hall));
            node->add_nic_port_indexes(port->index());
        }
    }
    return t;
}

// One for the whole test: the pager keeps a reference to its topology, as to a FleetSource's.
inline const v1::Topology& pagingFleet() {
    static const v1::Topology fleet = makePagingFleet();
    return fleet;
}

// An open incident touching `racks` (0..3) and, when `nodes` lists some, those trays; its cause
// is the first rack's loop (a valve fault), none when no rack is given.
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
    if (racks.size() > 0) {
        const std::string rack = "r0" + std::to_string(*racks.begin() + 1);
        cause->set_has_entity(true);
        cause->set_entity_index(200 + *racks.begin());
        cause->set_name(rack + "-loop");
        cause->set_summary(rack + "-loop: control valve fault");
    }
    auto* radius = i.mutable_blast_radius();
    radius->set_racks(static_cast<std::uint32_t>(racks.size()));
    for (const auto r : racks) radius->add_rack_indexes(10 + r);
    radius->set_trays(static_cast<std::uint32_t>(nodes.size()));
    for (const auto n : nodes) radius->add_node_indexes(100 + n);
    radius->set_gpus(4 * static_cast<std::uint32_t>(nodes.size()));
    return i;
}

// The incident's cause set to an entity of the topology (a tray, a loop, a NIC port, a region).
inline v1::Incident causedBy(v1::Incident incident, v1::CauseScope scope, std::uint32_t entity, const std::string& name,
                             const std::string& cause) {
    auto* c = incident.mutable_root_cause();
    c->set_scope(scope);
    c->set_has_entity(true);
    c->set_entity_index(entity);
    c->set_name(name);
    c->set_cause(cause);
    c->set_summary(name + ": " + cause);
    return incident;
}

// The incident's cause set to a CDU or a leaf switch (no entity of the topology: a name).
inline v1::Incident causedByNamed(v1::Incident incident, v1::CauseScope scope, const std::string& name,
                                  const std::string& cause) {
    auto* c = incident.mutable_root_cause();
    c->set_scope(scope);
    c->set_has_entity(false);
    c->clear_entity_index();
    c->set_name(name);
    c->set_cause(cause);
    c->set_summary(name + ": " + cause);
    return incident;
}

inline v1::Incident resolved(v1::Incident incident, std::int64_t resolvedMs) {
    incident.set_state(v1::INCIDENT_STATE_RESOLVED);
    incident.set_resolved_unix_ms(resolvedMs);
    incident.set_active_members(0);
    return incident;
}

}  // namespace watchfloor::test
