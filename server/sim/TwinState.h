#pragma once
// The per-entity state the twin's parts share: trays, GPUs and racks. Trays and rack status are
// in ViewedTables (the read view shows them); the rest is plain. Links and NIC ports are the
// LinkFabric's.

#include "ViewedTable.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <string>

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
    bool faulted = false;          // waiting for repair (DOWN or DRAINED)
    bool thermalShutdown = false;  // powered off by GPU over-temperature
    float lemonFactor = 1.0f;      // hazard multiplier (1 for most trays)
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
    std::uint32_t failures = 0;  // lemon signal: xid_cnt / out_count
    std::uint32_t repairEpoch = 0;
    bool drainRequested = false;  // operator drain: back from a repair or restore as DRAINED
    std::string drainReason;
    // What made the tray `faulted` (set with it), for the break/fix steps that may clear it.
    struct Fault {
        std::uint32_t cause = 0;  // failureCauses() index
        std::uint32_t xid = 0;    // the primary Xid; 0 for a fault without one
        std::uint32_t gpu = 0;    // the tray-local GPU it hit
        bool rma = false;         // a part must be replaced: no break/fix step clears it
        bool down = true;         // it took the tray DOWN (else DRAINED by the health check)
        std::string reason;       // the tray's reason it set
    };
    Fault fault;
    bool repairing = false;  // a break/fix step runs on it (TwinRepairs): out of service until it ends
    bool heldDown = false;   // a step ended with "after: DOWN": DOWN until an operator resumes it
};

// The node state a tray in working order returns to (repair, rack restore, reboot), and its
// reason: an operator's drain outlasts the fault, a break/fix step holds the tray until it ends,
// and a tray held DOWN after a step stays DOWN.
inline watchfloor::v1::NodeState serviceState(const TrayState& tray) {
    if (tray.heldDown) return watchfloor::v1::NODE_STATE_DOWN;
    if (tray.drainRequested || tray.repairing)
        return tray.job != kNoJob ? watchfloor::v1::NODE_STATE_DRAINING : watchfloor::v1::NODE_STATE_DRAINED;
    return tray.job != kNoJob ? watchfloor::v1::NODE_STATE_ALLOCATED : watchfloor::v1::NODE_STATE_IDLE;
}
inline const std::string& serviceReason(const TrayState& tray) {
    static const std::string none;
    return tray.drainRequested ? tray.drainReason : none;
}

struct GpuState {
    float offsetC = 0;  // part-to-part thermal variation
    std::uint8_t recoveryAction = 0;
    std::uint8_t clocksReasons = 0;  // DCGM clocks-event reason bits (proto/ClocksEventReasons.h)
    watchfloor::v1::HealthState health = watchfloor::v1::HEALTH_STATE_HEALTHY;
    bool countersChanged = false;
    float lastXid = 0;
    bool xidChanged = false;
    std::uint32_t eccDbe = 0;
    std::uint32_t rowRemap = 0;
    std::uint8_t rowRemapFailure = 0;
    std::uint32_t nvlinkCrc = 0, nvlinkReplay = 0, nvlinkRecovery = 0;
};

// What a rack is (the read view and its EntityState): isolation, leak, state.
struct RackStatus {
    bool liquidIsolated = false;
    bool electricalIsolated = false;
    std::string isolatedWhy;  // "leak", "manual isolation", the operator's reason: the rack's state reason
    std::uint32_t leakWet = 0;
    std::uint32_t leakFaulted = 0;
    std::uint32_t restoreEpoch = 0;
    watchfloor::v1::RackState state = watchfloor::v1::RACK_STATE_IN_SERVICE;
    watchfloor::v1::HealthState health = watchfloor::v1::HEALTH_STATE_HEALTHY;
    bool stateDirty = true;  // state and health need recomputing
};

// What a rack draws and how its GPUs fare, as of the last physics step.
struct RackLoad {
    double powerKw = 0;
    std::uint32_t exposedGpus = 0;  // on powered trays that are not waiting for repair
    std::uint32_t trayIncidents = 0;
    float maxOffsetC = 0;
    double throttleFactor = 1.0;  // clock factor of the rack's hottest training GPU
};

}  // namespace watchfloor::server::sim
