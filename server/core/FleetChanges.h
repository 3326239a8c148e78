#pragma once
// What a fleet source reports for one instant: the unit of exchange between a source (the
// digital twin, or a real site's sources in server/sources) and fleetd's state store.

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace watchfloor::server {

using UnixTime = std::chrono::sys_time<std::chrono::milliseconds>;

inline std::int64_t toUnixMs(UnixTime t) { return t.time_since_epoch().count(); }
inline UnixTime fromUnixMs(std::int64_t ms) { return UnixTime(std::chrono::milliseconds(ms)); }

// One reading. Compact on purpose: at 1,800 racks a source produces ~1.3 M of these a second.
struct Sample {
    std::uint32_t entityIndex;
    watchfloor::v1::Metric metric;
    float value;  // NaN = the source reported blank
};

struct FleetChanges {
    UnixTime time{};  // when all samples below were measured
    std::vector<Sample> samples;
    // Real sources read values that were measured at different instants (each target's scrape
    // time): then sampleTimesMs[i] is when samples[i] was measured, and `time` is when the
    // source read them. Empty (the twin): every sample was measured at `time`.
    std::vector<std::int64_t> sampleTimesMs;
    std::vector<watchfloor::v1::EntityState> states;  // entities whose state changed
    std::vector<watchfloor::v1::Event> events;        // ids left 0: the store assigns them
    std::vector<watchfloor::v1::Job> jobs;            // jobs whose fields changed (whole message)
    bool hasFleet = false;
    watchfloor::v1::FleetGoodput fleet;
    std::vector<watchfloor::v1::SourceStatus> sources;  // sources whose status changed
    // Incidents opened, changed or resolved at this instant (whole messages): fleetd's grouping
    // adds them; a source leaves this empty.
    std::vector<watchfloor::v1::Incident> incidents;
    // Maintenance windows scheduled, started, ended or cancelled (whole messages); fleetd's
    // maintenance calendar adds them; a source leaves this empty.
    std::vector<watchfloor::v1::MaintenanceWindow> maintenance;
    // Shift handoffs posted or acknowledged (whole messages); fleetd's control plane adds them.
    std::vector<watchfloor::v1::ShiftHandoff> handoffs;
    // Repair cases opened or changed (whole messages); fleetd's control plane adds them.
    std::vector<watchfloor::v1::RepairCase> repairCases;
    // Rail links whose health changed (whole messages; `retired` when no longer listed) and the
    // fleet's link summary when it changed; fleetd's link watch adds them.
    std::vector<watchfloor::v1::LinkHealth> linkHealth;
    bool hasLinkSummary = false;
    watchfloor::v1::LinkHealthSummary linkSummary;
    // fleetd's automation and its breaker, when it changed (fleetd's control plane adds it).
    bool hasAutomation = false;
    watchfloor::v1::AutomationStatus automation;
    // fleetd's pager (--alertmanager), when its status changed (added after grouping).
    bool hasPaging = false;
    watchfloor::v1::PagingStatus paging;

    std::int64_t sampleTimeMs(std::size_t i) const {
        return sampleTimesMs.empty() ? time.time_since_epoch().count() : sampleTimesMs[i];
    }

    void clear() {
        samples.clear();
        sampleTimesMs.clear();
        sources.clear();
        states.clear();
        events.clear();
        jobs.clear();
        incidents.clear();
        maintenance.clear();
        handoffs.clear();
        repairCases.clear();
        linkHealth.clear();
        hasLinkSummary = false;
        hasFleet = false;
        hasAutomation = false;
        hasPaging = false;
    }
    bool empty() const {
        return samples.empty() && states.empty() && events.empty() && jobs.empty() && !hasFleet && sources.empty() &&
               incidents.empty() && maintenance.empty() && handoffs.empty() && repairCases.empty() &&
               linkHealth.empty() && !hasLinkSummary && !hasAutomation && !hasPaging;
    }
};

}  // namespace watchfloor::server
