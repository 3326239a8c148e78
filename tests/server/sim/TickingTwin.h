#pragma once
// fleetd in miniature for the twin tests that drive the operations engine: the twin behind its
// control adapter, the engine with its audit log in a scratch folder, and a thread that advances the
// twin one simulated second a step and ticks the engine after each step, as fleetd's control loop
// does.

#include "AuditLog.h"
#include "OperationsEngine.h"
#include "TwinControlAdapter.h"
#include "TwinTestSupport.h"

#include <atomic>
#include <thread>

namespace twintest {

struct TickingTwin {
    using AfterStep = std::function<void(FleetChanges&)>;  // may annotate the step's changes

    QTemporaryDir dir;
    std::unique_ptr<DigitalTwin> twin;
    std::unique_ptr<TwinControlAdapter> adapter;
    std::unique_ptr<control::AuditLog> audit;
    std::unique_ptr<control::OperationsEngine> engine;

    // scenario: the scenario file's text (none when empty); warmUpSeconds: how long the twin runs
    // before the engine is attached.
    explicit TickingTwin(SimConfig config, const std::string& scenario = {}, std::int64_t warmUpSeconds = 0) {
        if (!scenario.empty()) config.scenarioFile = writeFile(dir, "s.scn", scenario);
        twin = makeTwin(config);
        run(*twin, warmUpSeconds);
        adapter = std::make_unique<TwinControlAdapter>(*twin, std::chrono::seconds(10));
        audit = control::AuditLog::open(dir.filePath("audit.jsonl").toStdString()).log;
        engine = std::make_unique<control::OperationsEngine>(*adapter, *adapter, *audit, control::OperationsConfig{});
    }
    ~TickingTwin() { stopTicking(); }

    // afterStep runs on the ticking thread after every step; pause is the wall time between steps
    // (none: as fast as the twin runs).
    void startTicking(AfterStep afterStep = {}, std::chrono::milliseconds pause = {}) {
        ticking = true;
        ticker = std::thread([this, afterStep = std::move(afterStep), pause] {
            FleetChanges changes;
            while (ticking) {
                changes.clear();
                twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
                engine->tick();
                if (afterStep) afterStep(changes);
                if (pause.count() > 0) std::this_thread::sleep_for(pause);
            }
        });
    }
    // A harness whose afterStep touches its own members calls this first in its destructor.
    void stopTicking() {
        ticking = false;
        if (ticker.joinable()) ticker.join();
    }

private:
    std::atomic<bool> ticking{false};
    std::thread ticker;
};

}  // namespace twintest
