#pragma once
// The fleet's liquid cooling (docs/domain/cooling.md): each rack's secondary loop with its control
// valve, the row CDUs (pumps, filter, alarms) and the facility water of each region (diurnal drift,
// excursions). It knows nothing of trays or jobs: the coordinator hands it each rack's heat and
// isolation, reads temperatures and flow back, and turns alarm changes into events.

#include "CoolingLoop.h"
#include "FleetModel.h"

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

// A rack alarm that was raised or cleared by the last step (hysteresis applied).
struct RackAlarmChange {
    const char* alarm;  // "low or no flow", ...: the CDU alarm is "<alarm> at <rack>"
    bool active;
    watchfloor::v1::Severity severity;  // while active
    const char* cause;                  // Event.cause
};

class CoolingModel {
public:
    explicit CoolingModel(const FleetModel& model);

    // --- one physics step, in this order ----------------------------------------------------------
    // Facility water relaxes toward its excursion target and filters load; fixes each region's
    // supply offset for the racks' steps below.
    void stepFacility(double dtS, std::int64_t unixNowMs);
    // Rack r's loop over `dtS` at `rackPowerKw`; `isolated`: its valve is closed by isolation.
    void stepRack(std::uint32_t r, double dtS, double rackPowerKw, bool isolated);
    // CDU alarm thresholds for rack r after its step (supply temperature, flow, differential
    // pressure), with hysteresis; a loop refilling after isolation is not low on flow.
    std::vector<RackAlarmChange> rackAlarmChanges(std::uint32_t r, std::int64_t nowMs, bool isolated);
    // Cool and flowing again: trays shut down by over-temperature may reboot.
    bool readyForReboot(std::uint32_t r) const;

    // --- readings ---------------------------------------------------------------------------------
    const CoolingLoop& loop(std::uint32_t r) const { return *racks_[r].loop; }
    // Facility supply drift of a region at `unixMs`: ±1 °C over the day plus any excursion.
    double supplyOffsetC(std::uint32_t region, std::int64_t unixMs) const;
    std::uint32_t pumpsRunning(std::uint32_t cdu) const { return cdus_[cdu].pumpsRunning; }
    std::uint32_t activeAlarms() const;

    // --- CDU alarms: true when `active` changed the alarm ----------------------------------------
    bool setAlarm(std::uint32_t cdu, const std::string& alarm, bool active);

    // --- incidents: each returns an epoch; the matching end is void once a newer one began ------
    std::optional<std::uint32_t> failPump(std::uint32_t cdu);  // nullopt: no pump left to fail
    bool repairPumps(std::uint32_t cdu, std::uint32_t epoch);
    std::uint32_t startFilterClog(std::uint32_t cdu);
    bool replaceFilter(std::uint32_t cdu, std::uint32_t epoch);
    std::uint32_t startExcursion(std::uint32_t region, double deltaC);
    bool endExcursion(std::uint32_t region, std::uint32_t epoch);
    std::uint32_t stickValve(std::uint32_t r);  // closed whatever the demand
    bool freeValve(std::uint32_t r, std::uint32_t epoch);

private:
    struct Rack {
        std::unique_ptr<CoolingLoop> loop;
        bool valveStuck = false;
        std::uint32_t valveEpoch = 0;
        bool supplyHighAlarm = false;
        bool flowLowAlarm = false;
        std::int64_t flowLowSinceMs = -1;
        bool dpHighAlarm = false;
    };
    struct Cdu {
        std::uint32_t pumpsRunning = 2;  // N+1 pair
        double clog = 0;
        double clogRatePerS = 0;             // while a filter is loading
        std::map<std::string, bool> alarms;  // alarm text -> active
        std::uint32_t pumpEpoch = 0;
        std::uint32_t clogEpoch = 0;
    };
    struct Region {
        double excursionC = 0;
        double excursionTargetC = 0;
        double diurnalPhaseH = 0;
        std::uint32_t excursionEpoch = 0;
    };
    const FleetModel& model_;
    std::vector<Rack> racks_;
    std::vector<Cdu> cdus_;
    std::vector<Region> regions_;
    std::vector<double> regionOffsetsC_;  // as of the current step
};

}  // namespace watchfloor::server::sim
