#include "TinyFleetSource.h"

#include <string>

namespace watchfloor::server::testing {

namespace v1 = watchfloor::v1;

TinyFleetSource::TinyFleetSource(TinyFleetShape shape) {
    std::uint32_t next = 0;
    topology_.set_fleet_name("tiny");
    topology_.set_fleet_index(next++);
    int rackNumber = 0;
    for (std::uint32_t g = 0; g < shape.regions; ++g) {
        auto* region = topology_.add_regions();
        region->set_index(next++);
        region->set_name("region-" + std::to_string(g + 1));
        for (std::uint32_t r = 0; r < shape.racksPerRegion; ++r) {
            auto* rack = topology_.add_racks();
            ++rackNumber;
            const std::string rackName = (rackNumber < 10 ? "r0" : "r") + std::to_string(rackNumber);
            rack->set_index(next++);
            rack->set_name(rackName);
            rack->set_region_index(region->index());
            rack->set_design_power_kw(120);
            region->add_rack_indexes(rack->index());
            auto* loop = topology_.add_cooling_loops();
            loop->set_index(next++);
            loop->set_name(rackName + "-loop");
            loop->set_rack_index(rack->index());
            rack->set_cooling_loop_index(loop->index());
            for (std::uint32_t n = 0; n < shape.nodesPerRack; ++n) {
                auto* node = topology_.add_nodes();
                node->set_index(next++);
                node->set_name(rackName + "-n" + std::to_string(n + 1));
                node->set_rack_index(rack->index());
                node->set_slot(n + 1);
                rack->add_node_indexes(node->index());
                for (std::uint32_t k = 0; k < shape.gpusPerNode; ++k) {
                    auto* gpu = topology_.add_gpus();
                    gpu->set_index(next++);
                    gpu->set_name(node->name() + "-g" + std::to_string(k));
                    gpu->set_node_index(node->index());
                    gpu->set_local_id(k);
                    node->add_gpu_indexes(gpu->index());
                    auto* link = topology_.add_nvlinks();
                    link->set_index(next++);
                    link->set_name(gpu->name() + "-l00");
                    link->set_gpu_index(gpu->index());
                    gpu->add_nvlink_indexes(link->index());
                }
                auto* cpu = topology_.add_cpus();
                cpu->set_index(next++);
                cpu->set_name(node->name() + "-c0");
                cpu->set_node_index(node->index());
                node->add_cpu_indexes(cpu->index());
                auto* nic = topology_.add_nic_ports();
                nic->set_index(next++);
                nic->set_name(node->name() + "-ib0");
                nic->set_node_index(node->index());
                node->add_nic_port_indexes(nic->index());
            }
        }
    }
}

float TinyFleetSource::gpuTempC(std::uint64_t tick, std::uint32_t gpuIndex) {
    return 40.0f + float(tick % 10) + float(gpuIndex % 7) * 0.5f;
}

std::vector<std::uint32_t> TinyFleetSource::gpus() const {
    std::vector<std::uint32_t> out;
    for (const auto& g : topology_.gpus()) out.push_back(g.index());
    return out;
}

void TinyFleetSource::advanceTo(UnixTime until, FleetChanges& out) {
    ++tick_;
    now_ = until;
    out.time = until;
    for (const auto& gpu : topology_.gpus()) {
        out.samples.push_back({gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP, gpuTempC(tick_, gpu.index())});
        out.samples.push_back({gpu.index(), v1::DCGM_FI_DEV_POWER_USAGE, 700.0f + float(tick_ % 50)});
    }
    for (const auto& link : topology_.nvlinks())
        out.samples.push_back({link.index(), v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK, float(tick_ % 100)});
    for (const auto& nic : topology_.nic_ports())
        out.samples.push_back({nic.index(), v1::IB_PORT_XMIT_DATA_GBPS, 300.0f + float(tick_ % 20)});
    for (const auto& cpu : topology_.cpus())
        out.samples.push_back({cpu.index(), v1::DCGM_FI_DEV_CPU_UTIL_TOTAL, float(tick_ % 100)});
    for (const auto& rack : topology_.racks())
        out.samples.push_back({rack.index(), v1::RACK_POWER_KW, 100.0f + float(tick_ % 7)});
    for (const auto& loop : topology_.cooling_loops())
        out.samples.push_back({loop.index(), v1::RACK_LIQUID_FLOW_LPM, 180.0f + float(tick_ % 3)});
    out.samples.push_back({topology_.fleet_index(), v1::FLEET_GOODPUT_RATIO, 0.9f});

    if (tick_ % 3 == 0) {
        const auto& gpu = topology_.gpus(static_cast<int>((tick_ / 3) % topology_.gpus_size()));
        v1::Event e;
        e.set_time_unix_ms(toUnixMs(until));
        e.set_severity(tick_ % 2 ? v1::SEVERITY_CRITICAL : v1::SEVERITY_WARNING);
        e.set_type(v1::EVENT_TYPE_XID);
        e.set_entity_index(gpu.index());
        e.add_related_entity_indexes(kJobIndex);
        e.set_message("Xid 79 on " + gpu.name());
        out.events.push_back(e);
    }
    if (tick_ % 5 == 0) {
        const auto& node = topology_.nodes(static_cast<int>((tick_ / 5) % topology_.nodes_size()));
        v1::EntityState s;
        s.set_entity_index(node.index());
        s.set_node_state((tick_ / 5) % 2 ? v1::NODE_STATE_DRAINED : v1::NODE_STATE_ALLOCATED);
        s.set_since_unix_ms(toUnixMs(until));
        out.states.push_back(s);
    }
    v1::Job job;
    job.set_index(kJobIndex);
    job.set_name("job-a");
    job.set_state(v1::JOB_STATE_RUNNING);
    job.set_step(tick_);
    out.jobs.push_back(job);
    out.hasFleet = true;
    out.fleet.set_time_unix_ms(toUnixMs(until));
    out.fleet.set_goodput_ratio(0.9);
}

}  // namespace watchfloor::server::testing
