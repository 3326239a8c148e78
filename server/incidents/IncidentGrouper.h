#pragma once
// Groups fleetd's events into incidents that share a probable cause through the topology, keeps
// each incident's blast radius, active members and goodput cost, and resolves an incident once
// every member has cleared and stayed clear for the hold time. Deterministic: the same events
// and jobs in the same order give the same incidents (ids, contents, order), whatever the wall
// clock; every container that reaches an output is ordered.
//
// Threads: one caller (fleetd's tick thread).

#include "CauseTopology.h"
#include "EventRules.h"
#include "MaintenanceCalendar.h"

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace watchfloor::server::incidents {

struct GrouperOptions {
    // How long every member must have been clear before the incident resolves; a member that
    // comes back within it rejoins the same incident.
    std::chrono::milliseconds hold = std::chrono::minutes(10);
    // A tray that opens its Nth tray incident within this window is named a lemon tray.
    std::chrono::milliseconds lemonWindow = std::chrono::hours(24 * 7);
    std::uint32_t lemonFaults = 3;
    std::size_t listBound = 256;      // blast radius lists (counts stay exact)
    std::size_t memberIdsKept = 128;  // first N and newest N member ids
    // A change of goodput cost alone is published at most this often (sim time) per incident.
    std::chrono::milliseconds costPublishPeriod = std::chrono::seconds(10);
};

class IncidentGrouper {
public:
    // Keeps a reference to `topology` (see CauseTopology).
    explicit IncidentGrouper(const watchfloor::v1::Topology& topology, GrouperOptions options = {});

    // One instant: `events` carry their ids, `jobs` are the jobs whose fields changed (the goodput
    // ledger). Appends every incident opened, changed or resolved now to `changed`, by id.
    // `maintenance` (optional) is what active maintenance windows cover now: an event on an entity
    // there opens and joins nothing; a condition it begins is held, and once no window covers it
    // (and it has not cleared) it is grouped as if it happened now (released()).
    void observe(std::int64_t nowMs, std::span<const watchfloor::v1::Event> events,
                 std::span<const watchfloor::v1::Job> jobs, std::vector<watchfloor::v1::Incident>* changed,
                 const MaintenanceCover* maintenance = nullptr);

    // An operator resolved open incident `id` (no member active): resolved now, appended to
    // `changed`; later events open a new incident. false when it is not open.
    bool resolveNow(std::uint64_t id, std::int64_t nowMs, std::vector<watchfloor::v1::Incident>* changed);

    // The held events the last observe() grouped because their maintenance window ended.
    const std::vector<watchfloor::v1::Event>& released() const { return released_; }
    std::size_t heldConditions() const { return held_.size(); }

    std::uint32_t openCount() const { return static_cast<std::uint32_t>(open_.size()); }
    // Every open incident as it would be published now, by id.
    std::vector<watchfloor::v1::Incident> openIncidents() const;

private:
    struct Open {
        std::uint64_t id = 0;
        CauseKey key;
        watchfloor::v1::Severity severity = watchfloor::v1::SEVERITY_UNSPECIFIED;
        std::int64_t startedMs = 0, lastChangeMs = 0, lastPublishedMs = 0;
        // The member that names the cause: the first Root, else the first member.
        bool namedByRoot = false;
        std::string causeClass, causeMessage;
        std::uint32_t causeEvidence = CauseTopology::kNone;  // e.g. the port or link a leaf incident began with
        std::uint32_t lemonFaults = 0;                       // tray incidents: this tray's incidents in the window
        std::set<std::uint32_t> racks, trays, gpus, jobs;
        std::set<std::uint32_t> evidence;  // distinct ports / links / GPUs of network incidents
        std::set<ConditionKey> active;
        std::uint32_t members = 0;
        std::vector<std::uint64_t> firstIds;
        std::deque<std::uint64_t> newestIds;
        double costGpuSeconds = 0;
        bool dirty = false;
        bool costDirty = false;
        bool raisedAfterMaintenance = false;  // opened by a condition held through a maintenance window
    };

    // Joins `event` to the incident it belongs to, opening one when its rule says so.
    void route(const watchfloor::v1::Event& event, const EventRule& rule, std::int64_t nowMs, bool released);
    bool inMaintenance(const watchfloor::v1::Event& event, const MaintenanceCover& cover) const;
    void releaseHeld(std::int64_t nowMs, const MaintenanceCover* maintenance);
    Open* covering(std::uint32_t subject, Domain domain);
    Open* coveringTrayMember(std::uint32_t tray, Domain domain);
    void refreshJobs(std::span<const watchfloor::v1::Job> jobs);
    void noteTray(Open& incident, std::uint32_t tray);
    void noteJob(Open& incident, std::uint32_t job);
    Open* byKey(const CauseKey& key);
    Open& open(const CauseKey& key, std::int64_t nowMs);
    void join(Open& incident, const watchfloor::v1::Event& event, const EventRule& rule, std::int64_t nowMs);
    void addToBlast(Open& incident, std::uint32_t entity, bool wholeRack);
    void clear(const ConditionKey& condition, std::int64_t nowMs);
    void attributeCost(std::span<const watchfloor::v1::Job> jobs);
    void resolveQuiet(std::int64_t nowMs, std::vector<watchfloor::v1::Incident>* changed);
    void forget(const Open& incident);
    watchfloor::v1::Incident publish(const Open& incident, watchfloor::v1::IncidentState state,
                                     std::int64_t resolvedMs) const;
    void describe(const Open& incident, watchfloor::v1::ProbableCause* cause) const;

    CauseTopology topology_;
    GrouperOptions options_;
    std::uint64_t nextId_ = 1;
    std::map<std::uint64_t, Open> open_;                                   // by id
    std::map<CauseKey, std::uint64_t> byKey_;                              // open incidents by cause
    std::map<ConditionKey, std::uint64_t> conditions_;                     // active conditions → their incident
    std::set<std::pair<std::uint32_t, std::uint64_t>> memberTrays_;        // (tray, open incident)
    std::set<std::pair<std::uint32_t, std::uint64_t>> jobIncidents_;       // (job, open incident)
    std::map<std::uint32_t, std::deque<std::int64_t>> trayIncidentTimes_;  // lemon trays
    struct Disruption {
        double all = 0;       // disruption badput, GPU-seconds
        double slowdown = 0;  // of which straggler slowdown
    };
    std::map<std::uint32_t, Disruption> jobDisruption_;  // at each job's last report
    std::map<std::uint32_t, std::vector<std::uint32_t>> jobTrays_;
    std::map<std::uint32_t, std::string> jobNames_;
    std::vector<std::uint32_t> jobOfTray_;                // by tray index; kNone when idle
    std::map<ConditionKey, watchfloor::v1::Event> held_;  // conditions begun inside maintenance, not cleared
    std::vector<watchfloor::v1::Event> released_;         // held events grouped by the last observe()
};

}  // namespace watchfloor::server::incidents
