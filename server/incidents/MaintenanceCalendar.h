#pragma once
// Maintenance windows on nodes, racks, rows and halls: scheduled ahead (validated against the
// fleet's clock, the topology and the windows already held), started and ended as the fleet's
// time passes, cancelled. While a window is active its scope is "covered": incident grouping
// keeps the events but opens and joins no incident for them (see IncidentGrouper).
//
// Threads: schedule/cancel/windows/version from any thread (ControlService calls); advanceTo and
// cover from fleetd's tick thread. Times are the fleet's (the source's clock), never the wall's.

#include "watchfloor/v1/fleet.pb.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace watchfloor::server::incidents {

// Which racks and nodes the active windows cover at one instant, by entity index.
struct MaintenanceCover {
    std::unordered_set<std::uint32_t> racks;
    std::unordered_set<std::uint32_t> nodes;

    bool coversRack(std::uint32_t rack) const { return !racks.empty() && racks.count(rack) > 0; }
    bool coversNode(std::uint32_t node) const { return !nodes.empty() && nodes.count(node) > 0; }
};

struct MaintenanceLimits {
    std::chrono::milliseconds pastSlack = std::chrono::seconds(60);    // a start this far back is "now"
    std::chrono::milliseconds leadTime = std::chrono::hours(24 * 90);  // latest start from now
    std::chrono::milliseconds maxLength = std::chrono::hours(24 * 14);
};

class MaintenanceCalendar {
public:
    // Why a request was refused; Ok carries the window as it would be held.
    enum class Code { Ok, InvalidArgument, NotFound, Conflict };
    struct Result {
        Code code = Code::Ok;
        std::string message;  // the refusal, or one line saying what was (or will be) done
        watchfloor::v1::MaintenanceWindow window;
        bool ok() const { return code == Code::Ok; }
    };
    using ChangeListener = std::function<void(const watchfloor::v1::MaintenanceWindow&)>;

    // Keeps a reference to `topology` (a FleetSource's is stable for its life).
    explicit MaintenanceCalendar(const watchfloor::v1::Topology& topology, MaintenanceLimits limits = {});

    // The preview: `spec` (scope, scope_name, start, end) resolved and checked against the bounds
    // and the windows held, without effect.
    Result check(const watchfloor::v1::MaintenanceWindow& spec) const;
    // Holds the window under `id` (the scheduling operation's), as check() decides.
    Result schedule(const watchfloor::v1::MaintenanceWindow& spec, const std::string& id, const std::string& reason,
                    const std::string& owner, const std::string& createdBy);
    // A window an earlier fleetd run scheduled (recovered from the audit log), held as it was
    // resolved then, without the bounds (the fleet's time is not known before the first tick).
    // false when its scope no longer exists.
    bool restore(const watchfloor::v1::MaintenanceWindow& spec, const std::string& id, const std::string& reason,
                 const std::string& owner, const std::string& createdBy);
    Result checkCancel(const std::string& id) const;
    Result cancel(const std::string& id, const std::string& principal);

    // Every window scheduled or active, by start then id.
    std::vector<watchfloor::v1::MaintenanceWindow> windows() const;
    // Grows with every change (scheduled, started, ended, cancelled): a reader polls it.
    std::uint64_t version() const;
    // Called after every change, outside the lock, on the thread that made it (the tick thread
    // for starts and ends). Set before the calendar is shared between threads.
    void setChangeListener(ChangeListener listener) { listener_ = std::move(listener); }

    // Tick thread: the fleet's time is now `nowMs`. Starts and ends windows, and appends to
    // `changed` every window that changed since the last call (scheduled and cancelled ones too).
    void advanceTo(std::int64_t nowMs, std::vector<watchfloor::v1::MaintenanceWindow>* changed);
    // What the active windows cover as of the last advanceTo (tick thread).
    const MaintenanceCover& cover() const { return cover_; }
    std::int64_t nowMs() const;

private:
    Result resolveLocked(const watchfloor::v1::MaintenanceWindow& spec) const;
    // Fills the window's scope, scope_name, rack_indexes (sorted) and node_indexes; false when
    // the scope names nothing in the topology.
    bool scopeOf(const watchfloor::v1::MaintenanceWindow& spec, watchfloor::v1::MaintenanceWindow* window) const;
    bool scopeRacks(const watchfloor::v1::MaintenanceWindow& spec, std::vector<std::uint32_t>* racks) const;
    void changedLocked(const watchfloor::v1::MaintenanceWindow& window);
    void notify(const std::vector<watchfloor::v1::MaintenanceWindow>& changes) const;

    const watchfloor::v1::Topology& topology_;
    const MaintenanceLimits limits_;
    std::unordered_map<std::uint32_t, std::string> regionNames_;  // by entity index
    ChangeListener listener_;

    mutable std::mutex mutex_;
    std::int64_t nowMs_ = 0;
    std::uint64_t version_ = 0;
    std::map<std::string, watchfloor::v1::MaintenanceWindow> held_;  // scheduled and active, by id
    std::vector<watchfloor::v1::MaintenanceWindow> unsent_;          // changes for the next advanceTo
    MaintenanceCover cover_;                                         // tick thread
};

}  // namespace watchfloor::server::incidents
