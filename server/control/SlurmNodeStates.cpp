#include "SlurmNodeStates.h"

#include <algorithm>
#include <ctime>

namespace watchfloor::server::control {

SlurmClusterReading readCluster(const SlurmScheduler& slurm) {
    SlurmClusterReading reading;
    SlurmNodeReading nodes = slurm.readNodeStates();
    if (!nodes.error.empty()) {
        reading.error = std::move(nodes.error);
        return reading;
    }
    SlurmJobReading jobs = slurm.readJobPlacements();
    if (!jobs.error.empty()) {
        reading.error = std::move(jobs.error);
        return reading;
    }
    reading.nodes = std::move(nodes.nodes);
    reading.jobsByNode = std::move(jobs.jobsByNode);
    return reading;
}

std::string utcClockText(std::chrono::system_clock::time_point time) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%H:%M:%S UTC", &parts);
    return text;
}

namespace {

// The next view from the previous one and a successful reading; node versions bump on change.
std::shared_ptr<SlurmClusterView> merged(const SlurmClusterView& previous, SlurmClusterReading& reading,
                                         SlurmClusterView::Clock::time_point now) {
    auto next = std::make_shared<SlurmClusterView>();
    bool changed = !previous.everRead || !previous.reachable || previous.nodes.size() != reading.nodes.size();
    for (SlurmNodeStatus& status : reading.nodes) {
        SlurmNodeView node;
        node.state = status.state;
        node.slurmState = std::move(status.slurmState);
        node.reason = std::move(status.reason);
        if (auto jobs = reading.jobsByNode.find(status.name); jobs != reading.jobsByNode.end()) {
            node.jobs = std::move(jobs->second);
            std::sort(node.jobs.begin(), node.jobs.end());
            node.jobs.erase(std::unique(node.jobs.begin(), node.jobs.end()), node.jobs.end());
        }
        if (const SlurmNodeView* before = previous.node(status.name)) {
            const bool same = before->state == node.state && before->slurmState == node.slurmState &&
                              before->reason == node.reason && before->jobs == node.jobs;
            node.version = same ? before->version : before->version + 1;
            changed = changed || !same;
        } else {
            changed = true;
        }
        next->nodes.emplace(std::move(status.name), std::move(node));
    }
    next->everRead = true;
    next->reachable = true;
    next->readAt = now;
    next->generation = previous.generation + (changed ? 1 : 0);
    return next;
}

}  // namespace

SlurmNodeStatePoller::SlurmNodeStatePoller(Reader reader, std::chrono::milliseconds period, Log log)
    : reader_(std::move(reader)),
      period_(period),
      log_(std::move(log)),
      view_(std::make_shared<const SlurmClusterView>()) {}

SlurmNodeStatePoller::~SlurmNodeStatePoller() { stop(); }

void SlurmNodeStatePoller::start() {
    pollOnce();
    thread_ = std::thread([this] { loop(); });
}

void SlurmNodeStatePoller::stop() {
    {
        std::lock_guard lock(wakeMutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void SlurmNodeStatePoller::requestRefresh() {
    {
        std::lock_guard lock(wakeMutex_);
        refreshRequested_ = true;
    }
    wake_.notify_all();
}

std::shared_ptr<const SlurmClusterView> SlurmNodeStatePoller::view() const {
    std::lock_guard lock(viewMutex_);
    return view_;
}

void SlurmNodeStatePoller::pollOnce() {
    SlurmClusterReading reading = reader_();
    const auto now = SlurmClusterView::Clock::now();
    const std::shared_ptr<const SlurmClusterView> previous = view();
    std::shared_ptr<SlurmClusterView> next;
    std::string logLine;
    if (reading.error.empty()) {
        next = merged(*previous, reading, now);
        if (previous->everRead && !previous->reachable)
            logLine = "Slurm answers again; node states are current (" + std::to_string(next->nodes.size()) + " nodes)";
        else if (!previous->everRead)
            logLine = "Slurm node states read: " + std::to_string(next->nodes.size()) + " nodes, polled every " +
                      std::to_string(period_.count()) + " ms";
    } else {
        // Keep what was last read; only the reachability changes.
        next = std::make_shared<SlurmClusterView>(*previous);
        next->reachable = false;
        next->error = reading.error;
        // Only the transition counts as a change: a reworded error must not restate every node.
        if (previous->reachable || previous->unreachableSince == SlurmClusterView::Clock::time_point{}) {
            next->unreachableSince = now;
            ++next->generation;
            logLine = "Slurm unreachable: " + reading.error +
                      (previous->everRead ? "; node states are shown as last read at " + utcClockText(previous->readAt)
                                          : "; no node state is known yet");
        }
    }
    {
        std::lock_guard lock(viewMutex_);
        view_ = std::move(next);
    }
    if (!logLine.empty() && log_) log_(logLine);
}

void SlurmNodeStatePoller::loop() {
    std::unique_lock lock(wakeMutex_);
    while (!stopping_) {
        wake_.wait_for(lock, period_, [this] { return stopping_ || refreshRequested_; });
        if (stopping_) break;
        refreshRequested_ = false;
        lock.unlock();
        pollOnce();
        lock.lock();
    }
}

}  // namespace watchfloor::server::control
