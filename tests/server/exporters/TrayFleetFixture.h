#pragma once
// A hand-built fleet of one rack with two GB200 compute trays, and a store fed with exactly the
// samples a test chooses: golden exposition text needs a state nobody else can move.

#include "FleetStateStore.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace watchfloor::testing {

namespace v1 = watchfloor::v1;

struct TrayFleetFixture {
    // Entity indexes: fleet 0, region 1, rack 2, tray A 3 (GPUs 4-7, CPUs 8-9, NIC ports 10-13),
    // tray B 14 (GPUs 15-18, CPUs 19-20, NIC ports 21-24).
    static constexpr std::uint32_t kRack = 2, kTrayA = 3, kTrayB = 14;
    static constexpr std::uint32_t gpuA(std::uint32_t k) { return 4 + k; }
    static constexpr std::uint32_t cpuA(std::uint32_t c) { return 8 + c; }
    static constexpr std::uint32_t nicA(std::uint32_t k) { return 10 + k; }
    static constexpr std::uint32_t gpuB(std::uint32_t k) { return 15 + k; }
    static constexpr std::int64_t kT1 = 1'800'000'000'000;

    v1::Topology topology;
    std::unique_ptr<server::service::FleetStateStore> store;

    // With `nvlinksPerGpu`, each GPU's NVLinks too: GPU ordinal o (tray A 0-3, tray B 4-7), link l
    // is entity linkOf(o, l).
    static constexpr std::uint32_t linkOf(std::uint32_t gpuOrdinal, std::uint32_t link) {
        return 100 + gpuOrdinal * 18 + link;
    }

    explicit TrayFleetFixture(const std::string& hostnameA = "gb200-r01-n01", std::uint32_t nvlinksPerGpu = 0) {
        topology.set_fleet_name("fixture");
        topology.set_fleet_index(0);
        auto* region = topology.add_regions();
        region->set_index(1);
        region->set_name("us-east");
        region->add_rack_indexes(kRack);
        auto* rack = topology.add_racks();
        rack->set_index(kRack);
        rack->set_name("r01");
        rack->set_region_index(1);
        addTray(kTrayA, "r01-n01", hostnameA, 1);
        addTray(kTrayB, "r01-n02", "", 2);
        for (int g = 0; g < topology.gpus_size(); ++g) {
            auto* gpu = topology.mutable_gpus(g);
            for (std::uint32_t l = 0; l < nvlinksPerGpu; ++l) {
                auto* link = topology.add_nvlinks();
                link->set_index(linkOf(std::uint32_t(g), l));
                link->set_name(gpu->name() + "-l" + (l < 10 ? "0" : "") + std::to_string(l));
                link->set_gpu_index(gpu->index());
                link->set_link_id(l);
                gpu->add_nvlink_indexes(link->index());
            }
        }
        store = std::make_unique<server::service::FleetStateStore>(topology);
    }

    void addTray(std::uint32_t index, const std::string& name, const std::string& hostname, std::uint32_t slot) {
        auto* node = topology.add_nodes();
        node->set_index(index);
        node->set_name(name);
        node->set_hostname(hostname);
        node->set_rack_index(kRack);
        node->set_slot(slot);
        topology.mutable_racks(0)->add_node_indexes(index);
        std::uint32_t next = index + 1;
        for (std::uint32_t k = 0; k < 4; ++k) {
            auto* gpu = topology.add_gpus();
            gpu->set_index(next++);
            gpu->set_name(name + "-g" + std::to_string(k));
            gpu->set_node_index(index);
            gpu->set_local_id(k);
            gpu->set_uuid("GPU-6b5c1e4d-" + std::to_string(slot) + "000-4000-8000-00000000000" + std::to_string(k));
            gpu->set_model_name("NVIDIA GB200");
            node->add_gpu_indexes(gpu->index());
        }
        for (std::uint32_t c = 0; c < 2; ++c) {
            auto* cpu = topology.add_cpus();
            cpu->set_index(next++);
            cpu->set_name(name + "-c" + std::to_string(c));
            cpu->set_node_index(index);
            node->add_cpu_indexes(cpu->index());
        }
        for (std::uint32_t k = 0; k < 4; ++k) {
            auto* port = topology.add_nic_ports();
            port->set_index(next++);
            port->set_name(name + "-ib" + std::to_string(k));
            port->set_node_index(index);
            port->set_port_id(k);
            port->set_rail(k);
            port->set_link_rate_gbps(400);
            node->add_nic_port_indexes(port->index());
        }
    }

    struct Value {
        std::uint32_t entity;
        v1::Metric metric;
        float value;
    };
    void apply(std::int64_t timeMs, const std::vector<Value>& values) {
        server::FleetChanges changes;
        changes.time = server::fromUnixMs(timeMs);
        for (const auto& v : values) changes.samples.push_back({v.entity, v.metric, v.value});
        store->apply(changes);
    }
};

}  // namespace watchfloor::testing
