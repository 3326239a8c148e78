#pragma once
// Private state of DigitalTwin, shared by its implementation files:
// DigitalTwin.cpp (clock, jobs, trays), TwinFaults.cpp (failure streams, cooling incidents,
// scripted faults), TwinTelemetry.cpp (samples, states, goodput reports) and TwinActions.cpp
// (operator actions, the published read view).

#include "CoolingLoop.h"
#include "DigitalTwin.h"
#include "FailureCauses.h"
#include "FleetModel.h"
#include "Rng.h"
#include "ScenarioScript.h"
#include "TrainingJob.h"

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

inline constexpr std::uint32_t kNoJob = 0xFFFFFFFFu;
inline constexpr std::uint32_t kNoRack = 0xFFFFFFFFu;

enum class TrayActivity : std::uint8_t { Off, Idle, Recovering, Checkpointing, Training };

struct TrayState {
    watchfloor::v1::NodeState node = watchfloor::v1::NODE_STATE_IDLE;
    watchfloor::v1::HealthState health = watchfloor::v1::HEALTH_STATE_HEALTHY;
    std::string reason;
    std::int64_t sinceMs = 0;
    std::uint32_t job = kNoJob;
    bool faulted = false;           // waiting for repair (DOWN or DRAINED)
    bool thermalShutdown = false;   // powered off by GPU over-temperature
    float lemonFactor = 1.0f;       // hazard multiplier (1 for most trays)
    float persistentSlowdown = 1.0f;
    // A slowdown for a while: random fail-slow episodes ("communication", "compute") and a
    // scenario's straggler ("scripted") each in a slot of their own, so a link flap's episode on a
    // scripted straggler neither replaces its factor nor ends it early; they multiply.
    struct TimedSlowdown {
        float factor = 1.0f;
        std::uint32_t epoch = 0;
        const char* kind = "";
    };
    TimedSlowdown episodic;
    TimedSlowdown scripted;
    std::uint32_t failures = 0;     // lemon signal: xid_cnt / out_count
    std::uint32_t repairEpoch = 0;
    bool drainRequested = false;    // operator drain: back from a repair or restore as DRAINED
    std::string drainReason;
};

struct GpuState {
    float offsetC = 0;              // part-to-part thermal variation
    std::uint8_t recoveryAction = 0;
    std::uint8_t clocksReasons = 0;
    watchfloor::v1::HealthState health = watchfloor::v1::HEALTH_STATE_HEALTHY;
    bool countersChanged = false;
    float lastXid = 0;
    bool xidChanged = false;
    std::uint32_t eccDbe = 0;
    std::uint32_t rowRemap = 0;
    std::uint8_t rowRemapFailure = 0;
    std::uint32_t nvlinkCrc = 0, nvlinkReplay = 0, nvlinkRecovery = 0;
};

// Links and NIC ports that ever left the healthy baseline (sparse: 2.3 M links at 1,800 racks).
struct PortState {
    watchfloor::v1::LinkState state = watchfloor::v1::LINK_STATE_UP;
    std::int64_t sinceMs = 0;
    std::uint32_t crcOrSymbol = 0;
    std::uint32_t replayOrRecovery = 0;
    std::uint32_t recoveryOrDowned = 0;
    std::uint32_t rcvErrors = 0;
    float ber = 0;                  // 0 = baseline
    bool changed = false;
    std::uint32_t quietEpoch = 0;
};

struct RackRuntime {
    std::unique_ptr<CoolingLoop> loop;
    double powerKw = 0;
    std::uint32_t exposedGpus = 0;  // on powered trays that are not waiting for repair
    // Health counts as of the last physics update, for the fleet totals.
    std::uint32_t gpusDown = 0;
    std::uint32_t gpusDegraded = 0;
    std::uint32_t throttledGpus = 0;
    std::uint32_t trayIncidents = 0;
    bool liquidIsolated = false;
    bool electricalIsolated = false;
    std::string isolatedWhy;  // "leak", "manual isolation", the operator's reason: the rack's state reason
    bool valveStuck = false;
    std::uint32_t leakWet = 0;
    std::uint32_t leakFaulted = 0;
    float maxOffsetC = 0;
    double throttleFactor = 1.0;    // clock factor of the rack's hottest training GPU
    watchfloor::v1::RackState state = watchfloor::v1::RACK_STATE_IN_SERVICE;
    watchfloor::v1::HealthState health = watchfloor::v1::HEALTH_STATE_HEALTHY;
    bool stateDirty = true;
    std::array<std::uint16_t, 60> linkErrorsBySecond{};
    std::uint32_t restoreEpoch = 0;
    std::uint32_t valveEpoch = 0;
    bool supplyHighAlarm = false;
    bool flowLowAlarm = false;
    std::int64_t flowLowSinceMs = -1;  // a loop refilling after a restore is not an alarm
    bool dpHighAlarm = false;
};

struct CduRuntime {
    std::uint32_t pumpsRunning = 2;  // N+1 pair
    double clog = 0;
    double clogRatePerS = 0;         // while a filter is loading
    std::map<std::string, bool> alarms;  // alarm text -> active
    std::uint32_t pumpEpoch = 0;
    std::uint32_t clogEpoch = 0;
};

struct RegionRuntime {
    double excursionC = 0;
    double excursionTargetC = 0;
    double diurnalPhaseH = 0;
    std::uint32_t excursionEpoch = 0;
};

struct TimedAction {
    std::int64_t atMs;
    std::uint64_t sequence;          // FIFO among equal times: deterministic
    std::function<void()> run;
    bool operator>(const TimedAction& other) const {
        return atMs != other.atMs ? atMs > other.atMs : sequence > other.sequence;
    }
};

// Requests from other threads, applied by advanceTo().
struct PendingAction {
    std::uint64_t id = 0;
    TwinAction action;
    std::promise<TwinActionResult> result;
};

// What the read view serves between ticks: written only by the thread running advanceTo(),
// under `mutex`; other threads read under a shared lock.
struct PublishedFacts {
    struct Tray {
        watchfloor::v1::NodeState state = watchfloor::v1::NODE_STATE_UNSPECIFIED;
        std::uint32_t job = 0xFFFFFFFFu;
        bool drainRequested = false;
        std::string reason;
        std::string drainReason;
        std::uint64_t version = 0;
    };
    struct Job {
        std::vector<std::uint32_t> trays;  // held now: a job waiting for spares holds fewer
        std::uint32_t gpus = 0;
        double checkpointAgeS = 0;
        double unsavedProgressS = 0;
        bool recovering = false;
        std::uint32_t interruptions = 0;
        std::uint64_t version = 0;
    };
    struct Rack {
        watchfloor::v1::RackState state = watchfloor::v1::RACK_STATE_UNSPECIFIED;
        bool leakActive = false;
        bool isolated = false;
        std::uint64_t version = 0;
    };
    mutable std::shared_mutex mutex;
    std::vector<Tray> trays;
    std::vector<Job> jobs;
    std::vector<Rack> racks;
    std::uint64_t lastVersion = 0;
};

struct DigitalTwin::Impl {
    SimConfig config;
    FleetSpec spec;
    std::unique_ptr<FleetModel> model;
    std::vector<TrainingJob> jobs;
    std::vector<double> jobFailuresPerS;   // configured Λ per job
    std::vector<std::uint32_t> waitingJobs;
    std::vector<ScriptedFault> script;

    Rng topologyRng, failureRng, coolingRng, jobRng, noiseRng, linkRng;

    std::int64_t nowMs = 0;              // since config.start
    std::int64_t lastPhysicsMs = 0;
    std::int64_t lastTelemetryPeriod = -1;
    std::int64_t lastReportMs = -1;
    bool telemetry = true;
    bool initialStatesSent = false;
    std::priority_queue<TimedAction, std::vector<TimedAction>, std::greater<>> queue;
    std::uint64_t sequence = 0;
    FleetChanges* out = nullptr;

    std::vector<TrayState> trays;
    std::vector<GpuState> gpus;
    std::vector<RackRuntime> racks;
    std::vector<CduRuntime> cdus;
    std::vector<RegionRuntime> regions;
    std::map<std::uint32_t, PortState> links;   // by link ordinal
    std::map<std::uint32_t, PortState> nics;    // by NIC ordinal
    std::vector<std::uint32_t> changedLinks;    // counters to report, each once
    std::vector<std::uint32_t> changedNics;
    double meanLemonFactor = 1.0;
    double hazardBound = 1.0;
    std::vector<double> jobGpuWeights;          // cumulative, for the software stream

    DigitalTwin::Statistics stats;

    // --- operator actions and the read view (TwinActions.cpp) ---
    std::map<std::string, std::uint32_t> jobByName;    // immutable after create(): read lock-free
    std::vector<double> jobStartS;                     // first start (< 0 when warm), NaN before
    std::vector<std::set<std::uint32_t>> jobExcludedTrays;
    std::mutex pendingMutex;
    std::deque<PendingAction> pending;
    std::uint64_t nextTicket = 1;
    PublishedFacts facts;
    // Set by every write to what the view shows of trays and racks (tray state, reason, job,
    // drain; rack state, leak, isolation): publishing then rescans them, else only the jobs.
    bool viewDirty = true;
    void applyPendingActions();
    TwinActionResult apply(const TwinAction& action);
    TwinActionResult drainNode(std::uint32_t t, const std::string& reason);
    TwinActionResult resumeNode(std::uint32_t t, const std::string& reason);
    TwinActionResult requeueJob(std::uint32_t j, const std::vector<std::uint32_t>& exclude, const std::string& reason);
    TwinActionResult isolateRackByOperator(std::uint32_t r, const std::string& reason);
    TwinActionResult restoreRackByOperator(std::uint32_t r, const std::string& reason);
    void operatorEvent(watchfloor::v1::Severity severity, std::uint32_t entity, const std::string& message);
    // Restarts a job that is waiting for trays (or about to get them) so its placement is redone.
    void replaceJob(std::uint32_t j);
    void publishFacts();
    // The node state a tray in working order returns to (repair, rack restore, reboot).
    watchfloor::v1::NodeState serviceState(std::uint32_t t) const;
    const std::string& serviceReason(std::uint32_t t) const;

    // --- clock and queue (DigitalTwin.cpp) ---
    double nowS() const { return static_cast<double>(nowMs) / 1000.0; }
    std::int64_t unixMs(std::int64_t simMs) const { return toUnixMs(config.start) + simMs; }
    std::int64_t unixNowMs() const { return unixMs(nowMs); }
    void at(double simS, std::function<void()> action);
    void after(double delayS, std::function<void()> action) { at(nowS() + delayS, std::move(action)); }

    // --- events and states ---
    // The returned reference is valid until the next event is emitted (the vector may grow).
    watchfloor::v1::Event& event(watchfloor::v1::Severity severity, watchfloor::v1::EventType type,
                                 std::uint32_t entity, std::string message);
    // A new EntityState in the current change set, stamped now. Same lifetime rule as event().
    watchfloor::v1::EntityState& state(std::uint32_t entity, watchfloor::v1::HealthState health,
                                       const std::string& reason = {});
    // The tray's EntityState, with its drain owner, into this tick's changes.
    void emitTrayState(std::uint32_t t);
    void setTray(std::uint32_t t, watchfloor::v1::NodeState state, watchfloor::v1::HealthState health,
                 const std::string& reason, bool announce);
    void setRackState(std::uint32_t r);

    // --- trays and jobs (DigitalTwin.cpp) ---
    bool trayUsable(std::uint32_t t) const;
    // Tray t can carry job j's work: usable, held by j and not excluded from j.
    bool slotUsable(std::uint32_t j, std::uint32_t t) const;
    // Job j gives tray t back: a draining tray becomes DRAINED, an allocated one IDLE.
    void releaseTray(std::uint32_t t);
    TrayActivity activity(std::uint32_t t) const;
    void startJobs();
    void warmStartJob(std::uint32_t j, double historyS);
    void interruptJob(std::uint32_t j, double detectS, const std::string& cause, std::uint32_t entity);
    void beginReschedule(std::uint32_t j);
    bool tryPlace(std::uint32_t j);
    void offerTrays();
    void beginInit(std::uint32_t j, double initS);
    // The next blocking save after `delayS` (default: the job's checkpoint interval).
    void scheduleCheckpoint(std::uint32_t j, double delayS = -1);
    void updateJobSlowdown(std::uint32_t j);     // full: trays, stragglers, thermal, diurnal
    double trayPace(std::uint32_t t) const;      // the tray's compute time over the ideal (stragglers, thermal)
    double trayStepS(std::uint32_t j, std::uint32_t t) const;  // NODE_STEP_TIME_S of job j's tray t
    void applyDiurnalSlowdown(std::uint32_t j);  // cheap: diurnal part only
    void setRackAlarm(std::uint32_t r, bool& state, bool raise, bool clear, const char* alarm, watchfloor::v1::Severity severity,
                      const char* cause);
    double regionSupplyOffsetC(std::uint32_t region) const;

    // --- faults (TwinFaults.cpp) ---
    void seedFleetRandomness();
    void scheduleStreams();
    void scheduleHardwareCandidate();
    void scheduleSoftwareCandidate();
    void scheduleLinkNoise();
    void scheduleCoolingIncidents();
    void scheduleEpisodicStragglers();
    double hazardMultiplier(std::uint32_t gpu) const;
    void applyFailure(std::size_t cause, std::uint32_t gpu, const FailureOutcome& outcome);
    void applyJobFailure(std::uint32_t j, std::size_t cause, const FailureOutcome& outcome);
    void applyXid(std::uint32_t gpu, std::uint32_t xid);
    void emitXid(std::uint32_t gpu, std::uint32_t xid, std::uint32_t relatedJob, const std::string& cause);
    void repairTray(std::uint32_t t, std::uint32_t epoch);
    void markChanged(bool nvlink, std::uint32_t ordinal, PortState& port);
    void portDown(bool nvlink, std::uint32_t ordinal, const std::string& why);
    void portUp(bool nvlink, std::uint32_t ordinal);
    void portFlap(bool nvlink, std::uint32_t ordinal, std::uint32_t count);
    void portBer(bool nvlink, std::uint32_t ordinal, double ber);
    void addLinkErrors(std::uint32_t rack, std::uint32_t count);
    void leak(std::uint32_t r);
    // `why` is shown to operators; `cause` is the failure class jobs are interrupted with.
    void isolateRack(std::uint32_t r, const std::string& why, const std::string& cause, bool automatic);
    void restoreRack(std::uint32_t r, const std::string& why);
    void pumpFail(std::uint32_t cdu);
    void filterClog(std::uint32_t cdu, double serviceAfterS);
    void sensorFault(std::uint32_t r, double clearAfterS);
    void facilityExcursion(std::uint32_t region, double deltaC, double forS);
    void valveClose(std::uint32_t r, double forS);
    // `cause` is the alarm's class (Event.cause: "pump_failure", "valve_fault", ...); `rack`, when the
    // alarm is about one rack's loop, becomes the event's related entity.
    void setCduAlarm(std::uint32_t cdu, const std::string& alarm, bool active, watchfloor::v1::Severity severity,
                     const char* cause, std::uint32_t rack = kNoRack);
    void startStraggler(std::uint32_t t, double factor, double forS, const char* kind,
                        TrayState::TimedSlowdown TrayState::*slot = &TrayState::episodic);
    void runScripted(const ScriptedFault& fault);
    void thermalShutdown(std::uint32_t r);

    // --- physics and telemetry (TwinTelemetry.cpp) ---
    void updatePhysics(double dtS);
    std::vector<double> regionOffsetsC;  // per physics update
    void updateRackPower(std::uint32_t r);
    void updateThermalState(std::uint32_t r);
    void emitTelemetry();
    void emitInitialStates();
    void emitPortCounters();
    void emitJobsAndFleet(bool samples);
    void fillJob(std::uint32_t j, watchfloor::v1::Job& job) const;
    void fillFleet(watchfloor::v1::FleetGoodput& fleet) const;
    void fillJobsGoodput(watchfloor::v1::FleetGoodput& fleet) const;  // ratios, budget, breakdown, interruption rate
    void accountExposure(double dtS);
};

}  // namespace watchfloor::server::sim
