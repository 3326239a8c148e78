#pragma once
// The training jobs (docs/domain/failure-rates.md, "Recovery pipeline" and "Stragglers"):
// placement on trays and warm spares, the recovery pipeline (detect, reschedule, init, restore,
// data load, first step) with the stage lengths of RestartTimes.h, blocking checkpoints, the
// step-time slowdown of the slowest tray and straggler detection, and each job's goodput ledger
// (TrainingJob). It owns the jobs and the job random stream; trays are the coordinator's, reached
// through JobHost.

#include "FleetModel.h"
#include "Rng.h"
#include "TelemetryPublisher.h"
#include "TrainingJob.h"
#include "TwinScheduler.h"
#include "TwinState.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

// What the job runner needs from the rest of the twin.
class JobHost {
public:
    virtual ~JobHost() = default;
    virtual const ViewedTable<TrayState>& trayStates() const = 0;
    // Powered, in working order and not drained or draining.
    virtual bool trayUsable(std::uint32_t t) const = 0;
    // The tray's compute time over the ideal: slow host, fail-slow episodes, thermal clocks.
    virtual double trayPace(std::uint32_t t) const = 0;
    // Tray t carries job j from now (ALLOCATED).
    virtual void assignTray(std::uint32_t t, std::uint32_t j) = 0;
    // Tray t, held by its job, is ALLOCATED (healthy) again as the job starts on it.
    virtual void markAllocated(std::uint32_t t) = 0;
    // Tray t leaves its job: a draining tray becomes DRAINED, an allocated one IDLE.
    virtual void releaseTray(std::uint32_t t) = 0;
    // Facility supply drift of a region now (diurnal and excursions), °C.
    virtual double supplyOffsetC(std::uint32_t region) const = 0;
    // A fail-slow episode on tray t for `forS`.
    virtual void startEpisode(std::uint32_t t, double factor, double forS, const char* kind) = 0;
};

class JobRunner {
public:
    JobRunner(std::vector<TrainingJob> jobs, Rng rng, const FleetModel& model, TwinScheduler& clock,
              TelemetryPublisher& publisher, JobHost& host);

    // Configured failure rates (per GPU-second) and u0 per job; returns the cumulative GPU
    // counts (for picking a job by size).
    std::vector<double> configureReliability(double hardwarePerGpuS, double softwarePerGpuS, double meanDetectS);
    // Cold: every job starts within the first minute. Warm (`warmS` > 0): mid-run, with history.
    void start(double warmS);
    // Fail-slow episodes at their per-job rates (a stream of its own).
    void scheduleEpisodes();

    // --- what happens to jobs ------------------------------------------------------------------
    // Job j stops; after `detectS` it reschedules. No-op unless j was exposed (running or starting).
    void interrupt(std::uint32_t j, double detectS, const std::string& cause, std::uint32_t entity);
    // Restarts a job that waits for trays (or is about to get them) so its placement is redone.
    void replace(std::uint32_t j);
    // Trays came back: waiting jobs may take them.
    void offerTrays();
    // A tray's pace changed (episode, thermal): the job's step time and straggler state follow.
    void updateSlowdown(std::uint32_t j);
    // The physics step moved the facility water: the diurnal drift of every computing job.
    void applyDiurnalDrift();
    // Job j never runs on tray t again.
    void exclude(std::uint32_t j, std::uint32_t t) { excluded_[j].insert(t); }
    // A GPU of job j, drawn from the job stream (what a software failure blames).
    std::uint32_t pickGpu(std::uint32_t j);

    // --- reading -------------------------------------------------------------------------------
    const std::vector<TrainingJob>& jobs() const { return jobs_; }
    const std::vector<double>& startTimes() const { return startS_; }  // < 0 warm-started, NaN before
    std::uint64_t interruptions() const { return interruptions_; }
    // NODE_STEP_TIME_S of job j's tray t.
    double trayStepS(std::uint32_t j, std::uint32_t t) const;
    // Brings each job's ledger up to now before a report.
    void sync(double nowS);

private:
    bool slotUsable(std::uint32_t j, std::uint32_t t) const;
    void warmStart(std::uint32_t j, double historyS);
    void beginReschedule(std::uint32_t j);
    bool tryPlace(std::uint32_t j);
    void beginInit(std::uint32_t j, double initS);
    void afterRestore(std::uint32_t j);
    void scheduleCheckpoint(std::uint32_t j, double delayS = -1);  // default: the job's interval
    void applyDiurnalSlowdown(std::uint32_t j);
    const ViewedTable<TrayState>& trays() const { return host_.trayStates(); }

    std::vector<TrainingJob> jobs_;
    Rng rng_;
    const FleetModel& model_;
    TwinScheduler& clock_;
    TelemetryPublisher& publisher_;
    JobHost& host_;
    std::vector<double> failuresPerS_;    // configured Λ per job
    std::vector<std::uint32_t> waiting_;  // for trays
    std::vector<double> startS_;
    std::vector<std::set<std::uint32_t>> excluded_;
    std::uint64_t interruptions_ = 0;
};

}  // namespace watchfloor::server::sim
