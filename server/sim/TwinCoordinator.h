#pragma once
// The twin's coordinator, behind DigitalTwin: owns the components and runs a tick in a fixed
// order (README.md, "How a tick runs"). Its methods live in TwinCoordinator.cpp (create, the
// tick, tray state), TwinFaults.cpp (what a failure, Xid or scripted fault does), TwinCooling.cpp
// (cooling incidents, the physics step, rack isolation) and TwinTelemetry.cpp (samples and
// goodput reports). The components keep their own state: TwinScheduler (clock and timed
// actions), CoolingModel (loops, CDUs, facility water), FailureProcess (random failure streams),
// JobRunner (jobs, recovery, checkpoints, stragglers), LinkFabric (NVLink and NIC ports, link
// noise), ActionEffects (what an operator's action does), TwinRepairs (break/fix steps),
// ActionQueue (requests from other threads), TelemetryPublisher (change set and read view).
// It does not know DigitalTwin, which owns it: the public class, the coordinator and the
// components each depend only on what is below them, so none can loop back through another.

#include "ActionEffects.h"
#include "ActionQueue.h"
#include "ConfigError.h"
#include "CoolingModel.h"
#include "FailureCauses.h"
#include "FailureProcess.h"
#include "FleetChanges.h"
#include "FleetModel.h"
#include "FleetSpec.h"
#include "JobRunner.h"
#include "LinkFabric.h"
#include "RailLinks.h"
#include "Rng.h"
#include "ScenarioScript.h"
#include "SimConfig.h"
#include "TelemetryPublisher.h"
#include "TrainingJob.h"
#include "TwinRepairs.h"
#include "TwinScheduler.h"
#include "TwinState.h"
#include "TwinStatistics.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

struct TwinCoordinator final : JobHost, FabricHost, RailLinkHost, ActionHost, RepairHost {
    // Builds the fleet, its jobs and components; nullptr with `error` set for a malformed fleet or
    // scenario file.
    [[nodiscard]] static std::unique_ptr<TwinCoordinator> create(const SimConfig& config, ConfigError* error);
    // A tick (DigitalTwin::advanceTo).
    void advanceTo(UnixTime until, FleetChanges& out);

    SimConfig config;
    FleetSpec spec;
    std::unique_ptr<FleetModel> model;
    std::vector<ScriptedFault> script;

    // --- components ---
    TwinScheduler clock;
    std::unique_ptr<CoolingModel> cooling;
    std::unique_ptr<FailureProcess> failures;
    std::unique_ptr<TelemetryPublisher> publisher;
    std::unique_ptr<JobRunner> jobRunner;
    std::unique_ptr<LinkFabric> fabric;
    std::unique_ptr<RailLinks> rails;  // the NIC ports' link trajectories, on the rail stream (seed, 8)
    std::unique_ptr<ActionEffects> actions;
    std::unique_ptr<TwinRepairs> repairs;  // break/fix steps
    ActionQueue requests;                  // from other threads, applied by advanceTo()

    Rng topologyRng, coolingRng, noiseRng;  // the failure, job, link and repair streams are their components'

    std::int64_t lastPhysicsMs = 0;
    std::int64_t lastTelemetryPeriod = -1;
    std::int64_t lastReportMs = -1;
    bool telemetry = true;
    bool initialStatesSent = false;
    bool railLinksReported = false;  // every port's counters went out with the first samples

    ViewedTable<TrayState> trays;
    ViewedTable<RackStatus> racks;
    std::vector<RackLoad> loads;  // by rack
    std::vector<GpuState> gpus;

    TwinStatistics stats;

    const std::vector<TrainingJob>& jobs() const { return jobRunner->jobs(); }

    void publishView() { publisher->publishView(trays, racks, jobRunner->jobs(), jobRunner->startTimes()); }

    // --- clock ---
    double nowS() const { return clock.nowS(); }
    std::int64_t nowMs() const { return clock.nowMs(); }
    std::int64_t unixNowMs() const { return publisher->unixNowMs(); }
    void at(double simS, std::function<void()> action) { clock.at(simS, std::move(action)); }
    void after(double delayS, std::function<void()> action) { clock.after(delayS, std::move(action)); }
    FleetChanges* out() const { return publisher->changes(); }

    // --- events and states (TelemetryPublisher) ---
    watchfloor::v1::Event& event(watchfloor::v1::Severity severity, watchfloor::v1::EventType type,
                                 std::uint32_t entity, std::string message) {
        return publisher->event(severity, type, entity, std::move(message));
    }
    watchfloor::v1::EntityState& state(std::uint32_t entity, watchfloor::v1::HealthState health,
                                       const std::string& reason = {}) {
        return publisher->state(entity, health, reason);
    }
    // The tray's EntityState, with its drain owner, into this tick's changes.
    void emitTrayState(std::uint32_t t) override;
    void setTray(std::uint32_t t, watchfloor::v1::NodeState state, watchfloor::v1::HealthState health,
                 const std::string& reason, bool announce) override;
    void setRackState(std::uint32_t r);

    // --- trays (TwinCoordinator.cpp), and what the job runner asks of them (JobHost) ---
    TrayActivity activity(std::uint32_t t) const;
    const ViewedTable<TrayState>& trayStates() const override { return trays; }
    bool trayUsable(std::uint32_t t) const override;
    double trayPace(std::uint32_t t) const override;
    void assignTray(std::uint32_t t, std::uint32_t j) override;
    void markAllocated(std::uint32_t t) override;
    void releaseTray(std::uint32_t t) override;
    double supplyOffsetC(std::uint32_t region) const override;
    void startEpisode(std::uint32_t t, double factor, double forS, const char* kind) override {
        startStraggler(t, factor, forS, kind);
    }
    // A slowdown of tray t for `forS` in one of its slots (random episodes, a scenario's straggler).
    void startStraggler(std::uint32_t t, double factor, double forS, const char* kind,
                        TrayState::TimedSlowdown TrayState::*slot = &TrayState::episodic);

    // --- faults (TwinFaults.cpp) ---
    void seedFleetRandomness();
    void scheduleStreams();
    void scheduleHardwareCandidate();
    void scheduleSoftwareCandidate();
    double hazardMultiplier(std::uint32_t gpu) const;
    void applyFailure(std::size_t cause, std::uint32_t gpu, const FailureOutcome& outcome);
    void applyJobFailure(std::uint32_t j, std::size_t cause, const FailureOutcome& outcome);
    void applyXid(std::uint32_t gpu, std::uint32_t xid);
    void emitXid(std::uint32_t gpu, std::uint32_t xid, std::uint32_t relatedJob, const std::string& cause);
    void repairTray(std::uint32_t t, std::uint32_t epoch);
    void clearTrayFault(std::uint32_t t);  // the GPUs and ports of a repaired tray, its state left alone
    // What a break/fix step asks (RepairHost; setTray and emitTrayState above serve it too).
    void clearFault(std::uint32_t t) override;
    void faultPersists(std::uint32_t t) override;
    void offerTrays() override { jobRunner->offerTrays(); }
    std::string jobName(std::uint32_t j) const override { return jobs()[j].name(); }
    void runScripted(const ScriptedFault& fault);
    // What the link fabric and the rail links ask of the GPUs and trays (FabricHost, RailLinkHost).
    bool trayPowered(std::uint32_t t) const override { return activity(t) != TrayActivity::Off; }
    void railLinkFailed(std::uint32_t nic) override;
    // A person's treatment of a rail link (TwinActionType::MendLink).
    TwinActionResult mendLink(const std::string& nic);
    void railLinkFlapped(std::uint32_t nic) override;
    void addGpuNvlinkErrors(std::uint32_t g, std::uint32_t crc, std::uint32_t replay, std::uint32_t recovery) override;

    // --- cooling incidents, isolation and the physics step (TwinCooling.cpp) ---
    void scheduleCoolingIncidents();
    void leak(std::uint32_t r);
    // `why` is shown to operators; `cause` is the failure class jobs are interrupted with.
    void isolateRack(std::uint32_t r, const std::string& why, const std::string& cause, bool automatic) override;
    void restoreRack(std::uint32_t r, const std::string& why) override;
    void pumpFail(std::uint32_t cdu);
    void filterClog(std::uint32_t cdu, double serviceAfterS);
    void sensorFault(std::uint32_t r, double clearAfterS);
    void facilityExcursion(std::uint32_t region, double deltaC, double forS);
    void valveClose(std::uint32_t r, double forS);
    // `cause` is the alarm's class (Event.cause: "pump_failure", "valve_fault", ...); `rack`, when the
    // alarm is about one rack's loop, becomes the event's related entity.
    void setCduAlarm(std::uint32_t cdu, const std::string& alarm, bool active, watchfloor::v1::Severity severity,
                     const char* cause, std::uint32_t rack = kNoRack);
    void thermalShutdown(std::uint32_t r);
    void updatePhysics(double dtS);
    void updateRackPower(std::uint32_t r);
    void updateThermalState(std::uint32_t r);
    void rebootCooledTrays(std::uint32_t r);

    // --- telemetry (TwinTelemetry.cpp) ---
    // What a rack's GPUs added up to this tick, for its RACK_GPU_* samples.
    struct RackTally {
        float maxTemp = 0;
        double sumTemp = 0;
        std::uint32_t reporting = 0, healthy = 0, degraded = 0, down = 0;
    };
    void emitTelemetry();
    void emitGpuSamples(std::uint32_t t, TrayActivity a, float coldPlate, double slowdownC, std::uint32_t second,
                        RackTally& tally);
    void emitHostSamples(std::uint32_t t, TrayActivity a, float coldPlate);
    // Port p of tray t: both ends' counters (RailLinks) and, while its host reports, its state.
    void emitRailLink(std::uint32_t t, std::uint32_t p, bool busy, float noise);
    void emitRackSamples(std::uint32_t r, const RackTally& tally, std::uint32_t second);
    void emitInitialStates();
    void emitJobsAndFleet(bool samples);
    void fillJob(std::uint32_t j, watchfloor::v1::Job& job) const;
    void fillFleet(watchfloor::v1::FleetGoodput& fleet) const;
    // One GPU's health as RACK_GPUS_HEALTHY/DEGRADED/DOWN and FleetGoodput.gpus_* count it (one
    // definition; the fleet's counts are the sum of its racks'): down = powered off, fallen off the
    // bus or its tray failed; degraded = a thermal clocks event, its tray flagged degraded, or its
    // tray drained (powered, held out of service); healthy otherwise.
    watchfloor::v1::HealthState countedGpuHealth(std::uint32_t g) const;
    void fillJobsGoodput(watchfloor::v1::FleetGoodput& fleet) const;  // ratios, budget, breakdown, interruption rate
    void accountExposure(double dtS);
};

}  // namespace watchfloor::server::sim
