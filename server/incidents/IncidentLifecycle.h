#pragma once
// An incident's life beyond grouping: acknowledged (owner, note), mitigated, resolved by an
// operator, notes, and a timeline of every member event, state change, operator action that hit
// its blast radius, and note. The grouper decides membership and resolution by hold time; this
// class lays the operators' part over what the grouper publishes (Incident fields 20-27), and
// says whether an operator step is allowed now.
//
// Threads: check/apply/recordAction/incident from any thread (ControlService, the operations
// engine's listeners); takeResolves/publish from fleetd's tick thread. The state listener runs on
// the tick thread, outside the lock, once for every change of an incident's published state.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::incidents {

class IncidentLifecycle {
public:
    enum class Step { Acknowledge, Mitigate, Resolve, Note };
    enum class Code { Ok, NotFound, FailedPrecondition };
    struct Verdict {
        Code code = Code::Ok;
        std::string message;  // Ok: what apply does (or did); else why not
        std::uint64_t stateVersion = 0;
        bool ok() const { return code == Code::Ok; }
    };
    // An operation of the engine that may have hit incidents: its target by kind and name.
    struct OperatorAction {
        enum class Target { Node, Rack, Job } target = Target::Node;
        std::string name;         // node, rack or job name
        std::string action;       // "DRAIN_NODE", ...
        std::string description;  // e.g. "rack r07", as the operations list shows it
        std::string principal;
        std::string operationId;
        std::string outcome;  // "SUCCEEDED: r07-n03 is drained"
    };
    using StateListener =
        std::function<void(const watchfloor::v1::Incident& incident, watchfloor::v1::IncidentState previous)>;

    static constexpr std::size_t kTimelineFirst = 16;   // first entries kept in the message
    static constexpr std::size_t kTimelineNewest = 48;  // and the newest

    // Names from `topology` (copied). Resolved incidents are remembered as the state store and a
    // console hold them (fleetstate::Incidents::kRetiredKept, the newest), so every resolved
    // incident a console shows still takes a note.
    explicit IncidentLifecycle(const watchfloor::v1::Topology& topology);

    // Set before the lifecycle is shared between threads.
    void setStateListener(StateListener listener) { listener_ = std::move(listener); }

    // Whether `step` on incident `id` is allowed now (the preview), and what it would do.
    Verdict check(Step step, std::uint64_t id, const std::string& owner) const;
    // Does it, as check() decides, at the fleet time of the last publish(). `owner` empty = `principal`. A note may be
    // empty except for Note.
    Verdict apply(Step step, std::uint64_t id, const std::string& principal, const std::string& owner,
                  const std::string& note, const std::string& operationId);
    // An operation finished: linked into the timeline of every unresolved incident whose blast
    // radius holds its target (a node, the node's rack, a rack, a job). Once per operation id.
    void recordAction(const OperatorAction& action);

    // As last published; nullopt for an id this run has not published or no longer remembers.
    std::optional<watchfloor::v1::Incident> incident(std::uint64_t id) const;

    // Tick thread: the incidents operators resolved since the last call, for the grouper.
    std::vector<std::uint64_t> takeResolves();
    // Tick thread: `changed` are the grouper's incidents of this instant, `events` the instant's
    // events (and ones released from maintenance), `jobs` the jobs that changed. Lays the
    // lifecycle over each changed incident and appends the incidents only operators changed.
    void publish(std::int64_t nowMs, std::span<const watchfloor::v1::Event> events,
                 std::span<const watchfloor::v1::Event> released, std::span<const watchfloor::v1::Job> jobs,
                 std::vector<watchfloor::v1::Incident>* changed);

private:
    struct Record {
        watchfloor::v1::Incident grouped;  // as the grouper last published it
        watchfloor::v1::IncidentState operatorState = watchfloor::v1::INCIDENT_STATE_UNSPECIFIED;
        std::string owner, note, resolvedBy;
        std::int64_t acknowledgedMs = 0, mitigatedMs = 0;
        std::vector<watchfloor::v1::IncidentTimelineEntry> first;
        std::deque<watchfloor::v1::IncidentTimelineEntry> newest;
        std::uint32_t timelineCount = 0;
        std::uint32_t membersSeen = 0;
        watchfloor::v1::IncidentState timelineState = watchfloor::v1::INCIDENT_STATE_UNSPECIFIED;
        watchfloor::v1::IncidentState notifiedState = watchfloor::v1::INCIDENT_STATE_UNSPECIFIED;
        std::set<std::string> operations;  // already in the timeline
        std::uint64_t version = 1;         // grows with every operator step
        bool dirty = false;                // changed by an operator since it was last published
    };

    static watchfloor::v1::IncidentState effectiveState(const Record& record);
    Verdict checkLocked(Step step, std::uint64_t id, const std::string& owner) const;
    static void addEntry(Record& record, watchfloor::v1::IncidentTimelineEntry entry);
    watchfloor::v1::Incident decorated(const Record& record) const;
    bool hits(const Record& record, const OperatorAction& action) const;
    void forgetOldResolved();

    struct NodePlace {
        std::uint32_t node, rack;  // entity indexes
    };
    std::unordered_map<std::string, NodePlace> nodeByName_;
    std::unordered_map<std::string, std::uint32_t> rackByName_;
    StateListener listener_;

    mutable std::mutex mutex_;
    std::map<std::uint64_t, Record> records_;  // by id
    std::set<std::uint64_t> resolvedIds_;
    std::vector<std::uint64_t> resolves_;  // operator resolves for the grouper
    std::unordered_map<std::string, std::uint32_t> jobByName_;
    std::int64_t nowMs_ = 0;  // fleet time of the last publish()
};

}  // namespace watchfloor::server::incidents
