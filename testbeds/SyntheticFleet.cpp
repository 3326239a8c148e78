#include "SyntheticFleet.h"

#include <cmath>
#include <cstdio>

namespace watchfloor::testing {

namespace v1 = watchfloor::v1;

namespace {

std::string twoDigits(int n, const char* prefix) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%02d", prefix, n);
    return buf;
}

std::uint32_t mix(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

}  // namespace

const std::vector<v1::Metric>& SyntheticFleet::gpuMetrics() {
    static const std::vector<v1::Metric> m{v1::DCGM_FI_DEV_GPU_TEMP,
                                           v1::DCGM_FI_DEV_MEMORY_TEMP,
                                           v1::DCGM_FI_DEV_POWER_USAGE,
                                           v1::DCGM_FI_DEV_GPU_UTIL,
                                           v1::DCGM_FI_DEV_SM_CLOCK,
                                           v1::DCGM_FI_DEV_CLOCKS_EVENT_REASONS,
                                           v1::DCGM_FI_PROF_GR_ENGINE_ACTIVE,
                                           v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE,
                                           v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL,
                                           v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_TOTAL};
    return m;
}

const std::vector<v1::Metric>& SyntheticFleet::rackMetrics() {
    static const std::vector<v1::Metric> m{
        v1::RACK_POWER_KW,      v1::RACK_GPU_TEMP_MAX_C, v1::RACK_GPU_TEMP_MEAN_C,    v1::RACK_GPUS_HEALTHY,
        v1::RACK_GPUS_DEGRADED, v1::RACK_GPUS_DOWN,      v1::RACK_LINK_ERRORS_PER_MIN};
    return m;
}

const std::vector<v1::Metric>& SyntheticFleet::loopMetrics() {
    static const std::vector<v1::Metric> m{
        v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C,      v1::RACK_LIQUID_RETURN_TEMPERATURE_C, v1::RACK_LIQUID_FLOW_LPM,
        v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR, v1::RACK_CONTROL_VALVE_POSITION_PCT,  v1::RACK_LEAK_DETECT};
    return m;
}

float SyntheticFleet::valueFor(v1::Metric metric, std::uint32_t entity, std::int64_t timeUnixMs) {
    const std::uint32_t noise =
        mix(entity * 2654435761U ^ std::uint32_t(timeUnixMs / 1000) ^ std::uint32_t(metric) << 20);
    const float jitter = float(noise % 1000) / 1000.0f;  // 0..1
    switch (metric) {
    case v1::DCGM_FI_DEV_GPU_TEMP: return 55.0f + 20.0f * jitter;
    case v1::DCGM_FI_DEV_MEMORY_TEMP: return 60.0f + 15.0f * jitter;
    case v1::DCGM_FI_DEV_POWER_USAGE: return 700.0f + 400.0f * jitter;
    case v1::DCGM_FI_DEV_GPU_UTIL: return 80.0f + 20.0f * jitter;
    case v1::DCGM_FI_DEV_SM_CLOCK: return 1800.0f + 200.0f * jitter;
    case v1::DCGM_FI_DEV_CLOCKS_EVENT_REASONS: return 0.0f;
    case v1::DCGM_FI_PROF_GR_ENGINE_ACTIVE: return 0.7f + 0.3f * jitter;
    case v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: return 0.5f + 0.3f * jitter;
    case v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL: return 400.0f + 300.0f * jitter;
    case v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_TOTAL: return float(entity % 7);
    case v1::RACK_POWER_KW: return 100.0f + 20.0f * jitter;
    case v1::RACK_GPU_TEMP_MAX_C: return 75.0f + 5.0f * jitter;
    case v1::RACK_GPU_TEMP_MEAN_C: return 62.0f + 5.0f * jitter;
    case v1::RACK_GPUS_HEALTHY: return 72.0f;
    case v1::RACK_GPUS_DEGRADED: return 0.0f;
    case v1::RACK_GPUS_DOWN: return 0.0f;
    case v1::RACK_LINK_ERRORS_PER_MIN: return 0.0f;
    case v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C: return 25.0f + jitter;
    case v1::RACK_LIQUID_RETURN_TEMPERATURE_C: return 35.0f + 2.0f * jitter;
    case v1::RACK_LIQUID_FLOW_LPM: return 170.0f + 10.0f * jitter;
    case v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR: return 1.0f + 0.1f * jitter;
    case v1::RACK_CONTROL_VALVE_POSITION_PCT: return 60.0f + 10.0f * jitter;
    case v1::RACK_LEAK_DETECT: return 0.0f;
    default: return jitter;
    }
}

SyntheticFleet::SyntheticFleet(SyntheticFleetSpec spec) : m_spec(std::move(spec)) {
    v1::Topology& t = m_topology;
    std::uint32_t next = 0;
    t.set_fleet_name(m_spec.fleetName);
    t.set_fleet_index(next++);
    for (int r = 0; r < m_spec.regions; ++r) {
        auto* region = t.add_regions();
        region->set_index(next++);
        region->set_name(m_spec.regionPrefix + "-" + std::to_string(r + 1));
    }
    for (int r = 0; r < m_spec.racks; ++r) {
        const std::string rackName = twoDigits(r + 1, "r");
        auto* rack = t.add_racks();
        rack->set_index(next++);
        rack->set_name(rackName);
        const int regionSlot = r % std::max(1, m_spec.regions);
        rack->set_region_index(t.regions(regionSlot).index());
        t.mutable_regions(regionSlot)->add_rack_indexes(rack->index());
        rack->set_hall("h1");
        rack->set_row(std::uint32_t(r / 10 + 1));
        rack->set_position(std::uint32_t(r % 10 + 1));
        rack->set_design_power_kw(120);
        m_rackIndexes.push_back(rack->index());

        auto* loop = t.add_cooling_loops();
        loop->set_index(next++);
        loop->set_name(rackName + "-loop");
        loop->set_rack_index(rack->index());
        loop->set_cdu_name("cdu-" + std::to_string(r / 10 + 1));
        loop->set_supply_setpoint_c(25);
        loop->set_design_flow_lpm(180);
        loop->set_leak_sensor_count(20);
        rack->set_cooling_loop_index(loop->index());
        m_loopIndexes.push_back(loop->index());

        for (int n = 0; n < kNodesPerRack; ++n) {
            auto* node = t.add_nodes();
            node->set_index(next++);
            node->set_name(rackName + twoDigits(n + 1, "-n"));
            node->set_rack_index(rack->index());
            node->set_slot(std::uint32_t(n + 1));
            rack->add_node_indexes(node->index());
            for (int g = 0; g < kGpusPerNode; ++g) {
                auto* gpu = t.add_gpus();
                gpu->set_index(next++);
                gpu->set_name(node->name() + "-g" + std::to_string(g));
                gpu->set_node_index(node->index());
                gpu->set_local_id(std::uint32_t(g));
                gpu->set_model_name("NVIDIA GB200");
                gpu->set_slowdown_temp_c(87);
                gpu->set_shutdown_temp_c(92);
                gpu->set_power_limit_w(1200);
                node->add_gpu_indexes(gpu->index());
                m_gpuIndexes.push_back(gpu->index());
                for (int l = 0; m_spec.withLinks && l < kNvlinksPerGpu; ++l) {
                    auto* link = t.add_nvlinks();
                    link->set_index(next++);
                    link->set_name(gpu->name() + twoDigits(l, "-l"));
                    link->set_gpu_index(gpu->index());
                    link->set_link_id(std::uint32_t(l));
                    gpu->add_nvlink_indexes(link->index());
                }
            }
            for (int c = 0; c < kCpusPerNode; ++c) {
                auto* cpu = t.add_cpus();
                cpu->set_index(next++);
                cpu->set_name(node->name() + "-c" + std::to_string(c));
                cpu->set_node_index(node->index());
                node->add_cpu_indexes(cpu->index());
            }
            for (int p = 0; m_spec.withLinks && p < kNicPortsPerNode; ++p) {
                auto* port = t.add_nic_ports();
                port->set_index(next++);
                port->set_name(node->name() + "-ib" + std::to_string(p));
                port->set_node_index(node->index());
                port->set_port_id(std::uint32_t(p));
                port->set_rail(std::uint32_t(p));
                port->set_link_rate_gbps(800);
                node->add_nic_port_indexes(port->index());
            }
        }
        for (int s = 0; s < kSwitchTraysPerRack; ++s) {
            auto* sw = t.add_nvswitch_trays();
            sw->set_index(next++);
            sw->set_name(rackName + "-s" + std::to_string(s + 1));
            sw->set_rack_index(rack->index());
            sw->set_slot(std::uint32_t(s + 1));
            rack->add_nvswitch_tray_indexes(sw->index());
        }
        for (int p = 0; p < kPowerShelvesPerRack; ++p) {
            auto* ps = t.add_power_shelves();
            ps->set_index(next++);
            ps->set_name(rackName + "-ps" + std::to_string(p + 1));
            ps->set_rack_index(rack->index());
            ps->set_capacity_kw(33);
            rack->add_power_shelf_indexes(ps->index());
        }
    }
    // One job per 4 racks (at least one), spanning those racks' nodes.
    m_jobIndexBase = next;
    const int jobs = std::max(1, m_spec.racks / 4);
    m_jobNodes.resize(std::size_t(jobs));
    for (int r = 0; r < m_spec.racks; ++r) {
        for (std::uint32_t n : t.racks(r).node_indexes()) m_jobNodes[std::size_t(r % jobs)].push_back(n);
    }
}

std::uint32_t SyntheticFleet::gpuIndex(int rack, int node, int gpu) const {
    return m_gpuIndexes[std::size_t((rack * kNodesPerRack + node) * kGpusPerNode + gpu)];
}

std::uint32_t SyntheticFleet::nvlinkIndex(int rack, int node, int gpu, int link) const {
    const int gpuSlot = (rack * kNodesPerRack + node) * kGpusPerNode + gpu;
    return m_topology.gpus(gpuSlot).nvlink_indexes(link);
}

void SyntheticFleet::addSampleBlocks(google::protobuf::RepeatedPtrField<v1::SampleBlock>* blocks,
                                     std::int64_t timeUnixMs) const {
    auto addBlock = [&](v1::Metric metric, const std::vector<std::uint32_t>& entities) {
        v1::SampleBlock* b = blocks->Add();
        b->set_metric(metric);
        b->set_sample_time_unix_ms(timeUnixMs);
        b->mutable_entity_indexes()->Reserve(int(entities.size()));
        b->mutable_values()->Reserve(int(entities.size()));
        for (std::uint32_t e : entities) {
            b->add_entity_indexes(e);
            b->add_values(valueFor(metric, e, timeUnixMs));
        }
    };
    for (v1::Metric m : gpuMetrics()) addBlock(m, m_gpuIndexes);
    for (v1::Metric m : rackMetrics()) addBlock(m, m_rackIndexes);
    for (v1::Metric m : loopMetrics()) addBlock(m, m_loopIndexes);
}

v1::Job SyntheticFleet::makeJob(int job, std::int64_t timeUnixMs) const {
    v1::Job j;
    j.set_index(jobIndex(job));
    j.set_name("train-" + std::to_string(job + 1));
    j.set_slurm_job_id(std::to_string(1000 + job));
    j.set_state(v1::JOB_STATE_RUNNING);
    for (std::uint32_t n : m_jobNodes[std::size_t(job)]) j.add_node_indexes(n);
    j.set_gpu_count(std::uint32_t(m_jobNodes[std::size_t(job)].size() * kGpusPerNode));
    const std::int64_t elapsedS = (timeUnixMs - m_spec.startUnixMs) / 1000;
    j.set_step(std::uint64_t(std::max<std::int64_t>(0, elapsedS)));
    j.set_last_checkpoint_unix_ms(timeUnixMs - (elapsedS % 600) * 1000);
    j.set_step_time_s(1.0);
    j.set_ideal_step_time_s(0.95);
    j.set_mfu_ratio(0.42);
    j.set_goodput_ratio(0.9 - 0.01 * job);
    j.set_ettr_sliding_1h_ratio(0.92);
    j.set_straggler_slowdown(1.0);
    j.set_started_unix_ms(m_spec.startUnixMs);
    return j;
}

v1::SubscribeResponse SyntheticFleet::snapshot(std::uint64_t sequence, std::int64_t timeUnixMs,
                                               const std::string& runId, const std::string& reason) const {
    v1::SubscribeResponse r;
    v1::Snapshot* s = r.mutable_snapshot();
    s->set_api_version(v1::API_VERSION_1);
    s->set_server_version("synthetic-1");
    s->set_run_id(runId);
    s->set_sequence(sequence);
    s->set_server_time_unix_ms(timeUnixMs);
    *s->mutable_topology() = m_topology;
    addSampleBlocks(s->mutable_samples(), timeUnixMs);
    for (std::uint32_t rack : m_rackIndexes) {
        v1::EntityState* st = s->add_states();
        st->set_entity_index(rack);
        st->set_health(v1::HEALTH_STATE_HEALTHY);
        st->set_rack_state(v1::RACK_STATE_IN_SERVICE);
    }
    for (int j = 0; j < jobCount(); ++j) *s->add_jobs() = makeJob(j, timeUnixMs);
    v1::FleetGoodput* f = s->mutable_fleet();
    f->set_time_unix_ms(timeUnixMs);
    f->set_goodput_ratio(0.9);
    f->set_ettr_sliding_1h_ratio(0.92);
    f->set_mfu_ratio(0.42);
    f->set_gpus_total(std::uint32_t(m_gpuIndexes.size()));
    f->set_gpus_healthy(std::uint32_t(m_gpuIndexes.size()));
    s->set_reason(reason);
    s->set_sim_speed(1.0);
    return r;
}

v1::SubscribeResponse SyntheticFleet::delta(std::uint64_t sequence, std::int64_t timeUnixMs, int events) const {
    v1::SubscribeResponse r;
    v1::Delta* d = r.mutable_delta();
    d->set_sequence(sequence);
    d->set_first_sequence(sequence);
    d->set_server_time_unix_ms(timeUnixMs);
    addSampleBlocks(d->mutable_samples(), timeUnixMs);
    for (int j = 0; j < jobCount(); ++j) *d->add_jobs() = makeJob(j, timeUnixMs);
    for (int e = 0; e < events; ++e) {
        v1::Event* ev = d->add_events();
        ev->set_id(sequence * 1000 + std::uint64_t(e));
        ev->set_time_unix_ms(timeUnixMs);
        ev->set_severity(e % 3 == 0 ? v1::SEVERITY_WARNING : v1::SEVERITY_INFO);
        ev->set_type(v1::EVENT_TYPE_CLOCKS_EVENT);
        ev->set_entity_index(m_gpuIndexes[std::size_t(e) % m_gpuIndexes.size()]);
        ev->set_message("thermal clocks event began");
    }
    return r;
}

v1::SubscribeResponse SyntheticFleet::heartbeat(std::uint64_t sequence, std::int64_t timeUnixMs) const {
    v1::SubscribeResponse r;
    r.mutable_heartbeat()->set_sequence(sequence);
    r.mutable_heartbeat()->set_server_time_unix_ms(timeUnixMs);
    return r;
}

std::size_t SyntheticFleet::samplesPerDelta() const {
    return gpuMetrics().size() * m_gpuIndexes.size() + rackMetrics().size() * m_rackIndexes.size() +
           loopMetrics().size() * m_loopIndexes.size();
}

}  // namespace watchfloor::testing
