#pragma once
// The twin's NVLink and InfiniBand fabric: the links and NIC ports that left their healthy
// baseline, what happens to one (down, up, flaps, error bursts and the BER alarm they raise), the
// link noise random stream, each rack's link errors over the last minute and the port counters
// still to report. Kept apart from the coordinator because none of it needs trays, jobs or
// cooling: it reaches the two things it does need (is a tray powered, a GPU's NVLink totals)
// through FabricHost.

#include "FleetChanges.h"
#include "FleetModel.h"
#include "Rng.h"
#include "TelemetryPublisher.h"
#include "TwinScheduler.h"

#include "watchfloor/v1/fleet.pb.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

// A link's or NIC port's state and counters. Only ports that ever left the healthy baseline have
// one (sparse: 2.3 M links at 1,800 racks).
struct PortState {
    watchfloor::v1::LinkState state = watchfloor::v1::LINK_STATE_UP;
    std::int64_t sinceMs = 0;
    std::uint32_t crcOrSymbol = 0;
    std::uint32_t replayOrRecovery = 0;
    std::uint32_t recoveryOrDowned = 0;
    std::uint32_t rcvErrors = 0;
    float ber = 0;  // 0 = baseline
    bool changed = false;
    std::uint32_t quietEpoch = 0;
};

// What the fabric needs from the rest of the twin.
class FabricHost {
public:
    virtual ~FabricHost() = default;
    // Link noise strikes only the ports of a powered tray.
    virtual bool trayPowered(std::uint32_t t) const = 0;
    // GPU g's own NVLink error totals (DCGM's per-GPU fields) grew by these.
    virtual void addGpuNvlinkErrors(std::uint32_t g, std::uint32_t crc, std::uint32_t replay,
                                    std::uint32_t recovery) = 0;
};

// A port is an NVLink (`nvlink`, ordinal = link ordinal) or an InfiniBand NIC port (ordinal = NIC
// ordinal, which is also its GPU's: port k pairs with GPU k).
class LinkFabric {
public:
    LinkFabric(Rng rng, const FleetModel& model, TwinScheduler& clock, TelemetryPublisher& publisher, FabricHost& host);

    // Random CRC / symbol error bursts and flaps at their per-port rates, on the link stream.
    void scheduleNoise();

    // --- what happens to a port ------------------------------------------------------------------
    // `why` is the event's cause and the port's state reason. `counted` = false: the port's
    // counters already hold it (a NIC port's rail link trajectory, RailLinks, counts its own).
    void portDown(bool nvlink, std::uint32_t ordinal, const std::string& why, bool counted = true);
    void portUp(bool nvlink, std::uint32_t ordinal);
    // Down and up `count` times: FLAPPING until five quiet minutes bring it UP.
    void portFlap(bool nvlink, std::uint32_t ordinal, std::uint32_t count, bool counted = true);
    // A burst of `errors` within one minute: the port's counters (symbol / CRC, ...), its GPU's
    // and its rack's link errors; with `berAlarm`, the BER alarm too.
    void portErrorBurst(bool nvlink, std::uint32_t ordinal, std::uint32_t errors, bool berAlarm);
    // The burst a bit error ratio means over one minute at the line rate (at least one error),
    // with its alarm, so the counters hold what the alarm quotes.
    void portBerBurst(bool nvlink, std::uint32_t ordinal, double ratio);
    // One of GPU g's links, drawn from the link stream, goes down.
    void gpuLinkDown(std::uint32_t g, const std::string& why);
    // GPU g was repaired: those of its links and its NIC port that are down come up.
    void repairGpuPorts(std::uint32_t g);

    // --- reading ---------------------------------------------------------------------------------
    // The port's state; the healthy baseline for a port that never left it.
    const PortState& port(bool nvlink, std::uint32_t ordinal) const;
    // Rack r's link errors over the last minute, as of simulated second `second`; the slot the
    // next second writes to is emptied.
    std::uint32_t rackErrorsPerMinute(std::uint32_t r, std::uint32_t second);
    // The counters of every NVLink that changed since the last call, once each, by ordinal, and
    // the state of every NIC port that changed (its counters are RailLinks', every 10 s).
    void emitPortCounters(std::vector<Sample>& samples);

private:
    PortState& portState(bool nvlink, std::uint32_t ordinal) { return (nvlink ? links_ : nics_)[ordinal]; }
    void markChanged(bool nvlink, std::uint32_t ordinal, PortState& port);
    // The port's BER from a burst of `errors` within one minute (errors / (line rate × 60 s)), held
    // 30 min, and its alarm; the errors are already in its counters.
    void portBer(bool nvlink, std::uint32_t ordinal, std::uint32_t errors);
    void addRackErrors(std::uint32_t r, std::uint32_t count);

    Rng rng_;
    const FleetModel& model_;
    TwinScheduler& clock_;
    TelemetryPublisher& publisher_;
    FabricHost& host_;
    std::map<std::uint32_t, PortState> links_;  // by link ordinal
    std::map<std::uint32_t, PortState> nics_;   // by NIC ordinal
    std::vector<std::uint32_t> changedLinks_;   // counters to report, each once
    std::vector<std::uint32_t> changedNics_;
    std::vector<std::array<std::uint16_t, 60>> rackErrorsBySecond_;  // by rack, then second of the minute
};

}  // namespace watchfloor::server::sim
