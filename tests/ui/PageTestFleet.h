#pragma once
// A small, fully specified fleet for page tests (not tests/client's SyntheticFleet, a generator:
// one name for two types in one namespace would be an ODR hazard): one region, two NVL72 racks (r01 healthy,
// r02 with a failed GPU, a wet leak sensor, an Xid and a flapping NVLink), two jobs, fleet
// goodput and events. Built as a Subscribe snapshot so it goes through FleetStore's real
// ingest path.

#include "watchfloor/v1/fleet.pb.h"

#include <QString>

#include <cstdint>
#include <string>

namespace watchfloor::testing {

namespace v1 = watchfloor::v1;

struct PageTestFleet {
    static constexpr std::int64_t kNowMs = 1'780'000'000'000;

    v1::SubscribeResponse snapshot;
    std::uint32_t nextIndex = 1;
    std::uint32_t failedGpu = 0;
    std::uint32_t flappingLink = 0;
    std::uint32_t r02 = 0;
    std::uint32_t bigJob = 0;

    v1::Snapshot& s() { return *snapshot.mutable_snapshot(); }

    void sample(v1::Metric metric, std::uint32_t entity, float value) {
        v1::SampleBlock* block = s().add_samples();
        block->set_metric(metric);
        block->set_sample_time_unix_ms(kNowMs);
        block->add_entity_indexes(entity);
        block->add_values(value);
    }

    void state(std::uint32_t entity, auto setter) {
        v1::EntityState* st = s().add_states();
        st->set_entity_index(entity);
        st->set_since_unix_ms(kNowMs - 60'000);
        setter(*st);
    }

    PageTestFleet() {
        v1::Snapshot& snap = s();
        snap.set_api_version(v1::API_VERSION_1);
        snap.set_server_version("synthetic");
        snap.set_run_id("run-1");
        snap.set_sequence(1);
        snap.set_server_time_unix_ms(kNowMs);
        snap.set_reason("initial");
        snap.set_sim_speed(1.0);
        v1::Topology& t = *snap.mutable_topology();
        t.set_fleet_name("synthetic");
        t.set_fleet_index(0);
        v1::Region* region = t.add_regions();
        region->set_index(nextIndex++);
        region->set_name("us-east");

        std::vector<std::uint32_t> allNodes;
        for (int r = 1; r <= 2; ++r) {
            v1::Rack* rack = t.add_racks();
            rack->set_index(nextIndex++);
            rack->set_name(QStringLiteral("r%1").arg(r, 2, 10, QChar(u'0')).toStdString());
            rack->set_region_index(region->index());
            rack->set_hall("h1");
            rack->set_row(1);
            rack->set_position(std::uint32_t(r));
            rack->set_design_power_kw(120);
            region->add_rack_indexes(rack->index());
            const std::string rackName = rack->name();
            const bool bad = r == 2;
            if (bad) r02 = rack->index();
            for (int n = 1; n <= 18; ++n) {
                v1::Node* node = t.add_nodes();
                node->set_index(nextIndex++);
                node->set_name(rackName + QStringLiteral("-n%1").arg(n, 2, 10, QChar(u'0')).toStdString());
                node->set_rack_index(rack->index());
                node->set_slot(std::uint32_t(n));
                rack->add_node_indexes(node->index());
                allNodes.push_back(node->index());
                state(node->index(), [](v1::EntityState& st) { st.set_node_state(v1::NODE_STATE_ALLOCATED); });
                for (int g = 0; g < 4; ++g) {
                    v1::Gpu* gpu = t.add_gpus();
                    gpu->set_index(nextIndex++);
                    gpu->set_name(node->name() + "-g" + std::to_string(g));
                    gpu->set_node_index(node->index());
                    gpu->set_local_id(std::uint32_t(g));
                    gpu->set_model_name("NVIDIA GB200");
                    gpu->set_slowdown_temp_c(87);
                    gpu->set_shutdown_temp_c(92);
                    gpu->set_power_limit_w(1200);
                    node->add_gpu_indexes(gpu->index());
                    const bool failed = bad && n == 7 && g == 2;
                    if (failed) failedGpu = gpu->index();
                    sample(v1::DCGM_FI_DEV_GPU_TEMP, gpu->index(), 60.0f + float(n % 7) + float(g));
                    sample(v1::DCGM_FI_DEV_POWER_USAGE, gpu->index(), 950.0f);
                    state(gpu->index(), [failed](v1::EntityState& st) {
                        st.set_health(failed ? v1::HEALTH_STATE_FAILED : v1::HEALTH_STATE_HEALTHY);
                    });
                    for (int l = 0; l < 18; ++l) {
                        v1::NvLink* link = t.add_nvlinks();
                        link->set_index(nextIndex++);
                        link->set_name(gpu->name() + QStringLiteral("-l%1").arg(l, 2, 10, QChar(u'0')).toStdString());
                        link->set_gpu_index(gpu->index());
                        link->set_link_id(std::uint32_t(l));
                        gpu->add_nvlink_indexes(link->index());
                        const bool flapping = bad && n == 3 && g == 1 && l == 5;
                        if (flapping) flappingLink = link->index();
                        sample(v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL, link->index(),
                               flapping ? 800.0f : 0.0f);
                        state(link->index(), [flapping](v1::EntityState& st) {
                            st.set_link_state(flapping ? v1::LINK_STATE_FLAPPING : v1::LINK_STATE_UP);
                        });
                    }
                }
                for (int c = 0; c < 2; ++c) {
                    v1::Cpu* cpu = t.add_cpus();
                    cpu->set_index(nextIndex++);
                    cpu->set_name(node->name() + "-c" + std::to_string(c));
                    cpu->set_node_index(node->index());
                    node->add_cpu_indexes(cpu->index());
                }
                for (int p = 0; p < 4; ++p) {
                    v1::NicPort* port = t.add_nic_ports();
                    port->set_index(nextIndex++);
                    port->set_name(node->name() + "-ib" + std::to_string(p));
                    port->set_node_index(node->index());
                    port->set_port_id(std::uint32_t(p));
                    port->set_rail(std::uint32_t(p));
                    port->set_switch_name("leaf-us-east-rail" + std::to_string(p) + "-01");
                    port->set_switch_port(std::uint32_t(n));
                    port->set_link_rate_gbps(400);
                    node->add_nic_port_indexes(port->index());
                    sample(v1::IB_PHY_STATE, port->index(), 5);
                    sample(v1::IB_EFFECTIVE_BER, port->index(), bad && n == 3 && p == 1 ? 1e-9f : 1e-15f);
                }
            }
            for (int sw = 1; sw <= 9; ++sw) {
                v1::NvSwitchTray* tray = t.add_nvswitch_trays();
                tray->set_index(nextIndex++);
                tray->set_name(rackName + "-s" + std::to_string(sw));
                tray->set_rack_index(rack->index());
                tray->set_slot(std::uint32_t(sw));
                rack->add_nvswitch_tray_indexes(tray->index());
            }
            for (int ps = 1; ps <= 2; ++ps) {
                v1::PowerShelf* shelf = t.add_power_shelves();
                shelf->set_index(nextIndex++);
                shelf->set_name(rackName + "-ps" + std::to_string(ps));
                shelf->set_rack_index(rack->index());
                shelf->set_capacity_kw(66);
                rack->add_power_shelf_indexes(shelf->index());
            }
            v1::CoolingLoop* loop = t.add_cooling_loops();
            loop->set_index(nextIndex++);
            loop->set_name(rackName + "-loop");
            loop->set_rack_index(rack->index());
            loop->set_cdu_name("cdu-h1-row1");
            loop->set_supply_setpoint_c(25);
            loop->set_design_flow_lpm(180);
            loop->set_leak_sensor_count(20);
            rack->set_cooling_loop_index(loop->index());

            sample(v1::RACK_POWER_KW, rack->index(), bad ? 98.0f : 112.0f);
            sample(v1::RACK_GPU_TEMP_MAX_C, rack->index(), bad ? 84.0f : 71.0f);
            sample(v1::RACK_GPU_TEMP_MEAN_C, rack->index(), 65.0f);
            sample(v1::RACK_GPUS_HEALTHY, rack->index(), bad ? 71.0f : 72.0f);
            sample(v1::RACK_GPUS_DEGRADED, rack->index(), 0);
            sample(v1::RACK_GPUS_DOWN, rack->index(), bad ? 1.0f : 0.0f);
            sample(v1::RACK_LINK_ERRORS_PER_MIN, rack->index(), bad ? 40.0f : 0.0f);
            sample(v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C, loop->index(), 25.0f);
            sample(v1::RACK_LIQUID_RETURN_TEMPERATURE_C, loop->index(), bad ? 37.0f : 34.5f);
            sample(v1::RACK_LIQUID_FLOW_LPM, loop->index(), bad ? 120.0f : 176.0f);
            sample(v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR, loop->index(), 1.1f);
            sample(v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_SP_BAR, loop->index(), 1.2f);
            sample(v1::RACK_CONTROL_VALVE_POSITION_PCT, loop->index(), 64.0f);
            sample(v1::RACK_LEAK_DETECT, loop->index(), bad ? 1.0f : 0.0f);
            sample(v1::RACK_LEAK_SENSOR_FAULT, loop->index(), 0);
            sample(v1::RACK_LIQUID_ISOLATION_STATUS, loop->index(), 0);
            state(rack->index(), [bad](v1::EntityState& st) {
                st.set_rack_state(bad ? v1::RACK_STATE_DEGRADED : v1::RACK_STATE_IN_SERVICE);
                st.set_health(bad ? v1::HEALTH_STATE_DEGRADED : v1::HEALTH_STATE_HEALTHY);
                if (bad) st.set_reason("1 tray down after Xid 79");
            });
        }

        // Jobs: a big one across both racks, a small one on r01.
        for (int j = 0; j < 2; ++j) {
            v1::Job* job = snap.add_jobs();
            job->set_index(nextIndex++);
            job->set_name(j == 0 ? "llm-405b-pretrain" : "vision-ft");
            job->set_slurm_job_id(std::to_string(1000 + j));
            job->set_state(v1::JOB_STATE_RUNNING);
            const std::size_t count = j == 0 ? 30 : 4;
            const std::size_t first = j == 0 ? 6 : 0;
            for (std::size_t k = 0; k < count; ++k) job->add_node_indexes(allNodes[first + k]);
            job->set_gpu_count(std::uint32_t(count * 4));
            job->mutable_model()->set_name(j == 0 ? "llm-405b" : "vit-22b");
            job->set_step(12000);
            job->set_checkpoint_interval_s(1800);
            job->set_young_daly_interval_s(1500);
            job->set_checkpoint_save_s(40);
            job->set_last_checkpoint_unix_ms(kNowMs - 600'000);
            job->set_goodput_ratio(j == 0 ? 0.87 : 0.93);
            job->set_confirmed_goodput_ratio(j == 0 ? 0.84 : 0.91);
            job->set_ettr_ratio(0.9);
            job->set_ettr_sliding_1h_ratio(0.88);
            job->set_goodput_sliding_1h_ratio(j == 0 ? 0.85 : 0.92);
            job->set_expected_ettr_ratio(0.91);
            job->set_mfu_ratio(0.41);
            job->set_step_time_s(9.8);
            job->set_ideal_step_time_s(9.1);
            job->set_straggler_slowdown(1.07);
            job->set_started_unix_ms(kNowMs - 3'600'000);
            v1::GoodputBreakdown* b = job->mutable_breakdown();
            b->set_total_s(3600);
            b->set_productive_s(3130);
            b->set_checkpoint_save_s(80);
            b->set_wasted_progress_s(200);
            b->set_infra_recovery_s(190);
            if (j == 0) {
                bigJob = job->index();
                job->add_straggler_node_indexes(allNodes[20]);
            }
        }

        v1::FleetGoodput& fleet = *snap.mutable_fleet();
        fleet.set_time_unix_ms(kNowMs);
        fleet.set_goodput_ratio(0.875);
        fleet.set_confirmed_goodput_ratio(0.85);
        fleet.set_ettr_ratio(0.9);
        fleet.set_ettr_sliding_1h_ratio(0.88);
        fleet.set_goodput_sliding_1h_ratio(0.86);
        fleet.set_mfu_ratio(0.41);
        fleet.set_gpus_total(144);
        fleet.set_gpus_healthy(143);
        fleet.set_gpus_down(1);
        fleet.set_active_incidents(2);
        fleet.set_interruptions(1);
        fleet.set_failures_per_gpu_hour(2e-5);
        fleet.mutable_breakdown()->set_total_s(3600 * 136);
        fleet.mutable_breakdown()->set_productive_s(3130 * 136);

        addEvent(1, v1::SEVERITY_CRITICAL, v1::EVENT_TYPE_XID, failedGpu,
                 "Xid 79 on r02-n07-g2: GPU has fallen off the bus", [](v1::Event& e) {
                     e.mutable_xid()->set_xid(79);
                     e.mutable_xid()->set_mnemonic("GPU_HAS_FALLEN_OFF_THE_BUS");
                     e.mutable_xid()->set_recommended_action(v1::XID_ACTION_RESTART_BM);
                     e.mutable_xid()->set_fatal(true);
                     e.mutable_xid()->set_fleet_policy("Drain, then power-cycle the node");
                 });
        addEvent(2, v1::SEVERITY_WARNING, v1::EVENT_TYPE_LINK_FLAP, flappingLink, "NVLink flapping", [](v1::Event&) {});
        addEvent(3, v1::SEVERITY_CRITICAL, v1::EVENT_TYPE_LEAK, r02, "Leak sensor wet on r02", [](v1::Event&) {});
        addEvent(4, v1::SEVERITY_INFO, v1::EVENT_TYPE_JOB_CHECKPOINT, bigJob, "Checkpoint saved", [](v1::Event&) {});
    }

    void addEvent(std::uint64_t id, v1::Severity severity, v1::EventType type, std::uint32_t entity,
                  const char* message, auto extra) {
        v1::Event* e = s().add_recent_events();
        e->set_id(id);
        e->set_time_unix_ms(kNowMs - 60'000 + std::int64_t(id) * 1000);
        e->set_severity(severity);
        e->set_type(type);
        e->set_entity_index(entity);
        e->set_message(message);
        extra(*e);
    }
};

}  // namespace watchfloor::testing
