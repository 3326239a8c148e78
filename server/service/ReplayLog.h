#pragma once
// The bounded log of recent Deltas (by count and by bytes), shared and immutable, that every
// subscriber reads through its own cursor. A subscriber behind the log's first entry has fallen
// off it and must be resynced with a snapshot.

#include "FleetStateStore.h"
#include "StreamEncoding.h"
#include "SubscriptionFilter.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace watchfloor::server::service {

class LogEntry {
public:
    explicit LogEntry(DeltaPtr delta);

    std::uint64_t sequence() const { return delta_->sequence(); }
    const watchfloor::v1::Delta& delta() const { return *delta_; }
    std::size_t bytes() const { return bytes_; }
    std::size_t sampleCount() const { return samples_; }

    // This delta as a SubscribeResponse for one filter: filtered and encoded once, then shared
    // by every subscriber whose filter has the same key.
    EncodedMessage encodedFor(const SubscriptionFilter& filter, const TopologyLookup& index) const;

private:
    DeltaPtr delta_;
    std::size_t bytes_;
    std::size_t samples_ = 0;
    mutable std::mutex cacheMu_;
    mutable std::vector<std::pair<std::string, EncodedMessage>> encoded_;
};

using LogEntryPtr = std::shared_ptr<const LogEntry>;

struct ReplayLogLimits {
    std::size_t maxEntries = 4096;
    std::size_t maxBytes = std::size_t(384) << 20;  // ~25 ticks at 1,800 racks
};

class ReplayLog {
public:
    explicit ReplayLog(ReplayLogLimits limits = {}) : limits_(limits) {}

    void append(const std::vector<DeltaPtr>& deltas);

    // Entries with sequence > `after`, at most `maxEntries`.
    std::vector<LogEntryPtr> after(std::uint64_t after, std::size_t maxEntries) const;
    // Can a reader that applied `after` continue from the log (nothing it needs was dropped)?
    bool canResumeAfter(std::uint64_t after) const;
    std::uint64_t firstSequence() const;  // 0 when empty
    std::uint64_t lastSequence() const;   // 0 when empty
    std::size_t bytes() const;
    std::size_t size() const;

private:
    ReplayLogLimits limits_;
    mutable std::mutex mu_;
    std::deque<LogEntryPtr> entries_;
    std::size_t bytes_ = 0;
    std::uint64_t dropped_ = 0;  // last sequence dropped from the front
};

}  // namespace watchfloor::server::service
