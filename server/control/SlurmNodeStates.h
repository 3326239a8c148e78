#pragma once
// Slurm's view of the nodes, read back every few seconds on a thread of its own (never on
// fleetd's tick thread: sinfo may hang until its timeout). Readers take an immutable snapshot.
//
// When Slurm cannot be asked, the snapshot keeps the last states it read and says since when
// they are stale and why (Slurm's own message); a node is never guessed into a new state.

#include "SlurmScheduler.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::control {

struct SlurmNodeView {
    watchfloor::v1::NodeState state = watchfloor::v1::NODE_STATE_UNSPECIFIED;
    std::string slurmState;         // sinfo's word, e.g. "drained*"
    std::string reason;             // Slurm's reason, "" when none
    std::vector<std::string> jobs;  // names of the jobs holding the node
    std::uint64_t version = 1;      // bumps when state, reason or jobs change
};

// One immutable reading of the cluster, the last good one when Slurm did not answer.
struct SlurmClusterView {
    using Clock = std::chrono::system_clock;

    std::uint64_t generation = 0;  // bumps whenever anything below changes
    bool everRead = false;         // false: no node state is known at all
    bool reachable = false;        // the last poll succeeded
    std::string error;             // Slurm's message when the last poll failed
    Clock::time_point readAt{};    // when `nodes` was read (the last successful poll)
    Clock::time_point unreachableSince{};
    std::unordered_map<std::string, SlurmNodeView> nodes;

    const SlurmNodeView* node(const std::string& name) const {
        const auto found = nodes.find(name);
        return found == nodes.end() ? nullptr : &found->second;
    }
};

// What one poll returns: both readings, or the first error.
struct SlurmClusterReading {
    std::vector<SlurmNodeStatus> nodes;
    std::map<std::string, std::vector<std::string>> jobsByNode;
    std::string error;
};

// "17:40:03 UTC": when Slurm was last read or stopped answering, for reasons and log lines.
std::string utcClockText(std::chrono::system_clock::time_point time);

// sinfo then squeue through `slurm`; squeue is skipped when sinfo failed.
SlurmClusterReading readCluster(const SlurmScheduler& slurm);

class SlurmNodeStatePoller {
public:
    using Reader = std::function<SlurmClusterReading()>;
    using Log = std::function<void(const std::string&)>;

    // `log` receives one line when Slurm stops or starts answering (not every failed poll).
    SlurmNodeStatePoller(Reader reader, std::chrono::milliseconds period, Log log = {});
    ~SlurmNodeStatePoller();
    SlurmNodeStatePoller(const SlurmNodeStatePoller&) = delete;
    SlurmNodeStatePoller& operator=(const SlurmNodeStatePoller&) = delete;

    // Reads once on the calling thread (so fleetd's first snapshot already has Slurm's view),
    // then polls every period on a thread of its own until stop() or destruction.
    void start();
    void stop();
    // Polls now instead of at the end of the period (after an action, so its effect shows at once).
    void requestRefresh();
    // Polls once on the calling thread; for start() and tests.
    void pollOnce();

    std::shared_ptr<const SlurmClusterView> view() const;
    std::chrono::milliseconds period() const { return period_; }

private:
    void loop();

    const Reader reader_;
    const std::chrono::milliseconds period_;
    const Log log_;

    mutable std::mutex viewMutex_;
    std::shared_ptr<const SlurmClusterView> view_;

    std::mutex wakeMutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    bool refreshRequested_ = false;
    std::thread thread_;
};

}  // namespace watchfloor::server::control
