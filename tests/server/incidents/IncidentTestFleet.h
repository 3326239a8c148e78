#pragma once
// The default twin fleet (2 regions, 7 racks) as a topology for grouping tests, entities by name,
// and builders for the events and jobs the rules read.

#include "DigitalTwin.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QtTest>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace watchfloor::server::incidents::testing {

namespace v1 = watchfloor::v1;

class IncidentTestFleet {
public:
    IncidentTestFleet() {
        sim::SimConfig config;
        server::ConfigError error;
        twin_ = sim::DigitalTwin::create(config, &error);
        if (!twin_) qFatal("twin: %s", error.toString().c_str());
        const auto& t = twin_->topology();
        auto add = [&](const auto& list) {
            for (const auto& item : list) byName_[item.name()] = item.index();
        };
        add(t.regions());
        add(t.racks());
        add(t.nodes());
        add(t.gpus());
        add(t.cooling_loops());
        add(t.power_shelves());
        add(t.nvswitch_trays());
        add(t.nic_ports());
        add(t.nvlinks());
    }

    const v1::Topology& topology() const { return twin_->topology(); }
    std::uint32_t operator()(const std::string& name) const {
        auto it = byName_.find(name);
        if (it == byName_.end()) qFatal("no entity %s", name.c_str());
        return it->second;
    }
    std::string cduOf(const std::string& rack) const {
        for (const auto& loop : topology().cooling_loops())
            if (loop.rack_index() == (*this)(rack)) return loop.cdu_name();
        return {};
    }
    // Two NIC ports of different trays that end on the same leaf switch.
    std::pair<const v1::NicPort*, const v1::NicPort*> portsOnOneLeaf() const {
        const auto& ports = topology().nic_ports();
        for (const auto& a : ports)
            for (const auto& b : ports)
                if (a.node_index() != b.node_index() && a.switch_name() == b.switch_name()) return {&a, &b};
        qFatal("no two trays share a leaf");
    }

    static constexpr std::uint32_t kJob = 900'000;  // past the topology: jobs live outside it
    static constexpr std::uint32_t kOtherJob = 900'001;

    v1::Event event(v1::EventType type, v1::Severity severity, std::uint32_t entity, const std::string& cause = {},
                    std::vector<std::uint32_t> related = {}, const std::string& message = {}) {
        v1::Event e;
        e.set_id(nextEventId_++);
        e.set_type(type);
        e.set_severity(severity);
        e.set_entity_index(entity);
        e.set_cause(cause);
        for (std::uint32_t r : related) e.add_related_entity_indexes(r);
        e.set_message(message.empty() ? v1::EventType_Name(type) : message);
        return e;
    }

    v1::Job job(std::uint32_t index, const std::vector<std::string>& trays, double wastedS = 0) const {
        v1::Job j;
        j.set_index(index);
        j.set_name(index == kJob ? "llm-test" : "llm-other");
        j.set_gpu_count(static_cast<std::uint32_t>(trays.size() * 4));
        for (const auto& tray : trays) j.add_node_indexes((*this)(tray));
        j.mutable_breakdown()->set_wasted_progress_s(wastedS);
        return j;
    }

private:
    std::unique_ptr<sim::DigitalTwin> twin_;
    std::map<std::string, std::uint32_t> byName_;
    std::uint64_t nextEventId_ = 1;
};

}  // namespace watchfloor::server::incidents::testing
