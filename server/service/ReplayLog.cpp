#include "ReplayLog.h"

#include "DeltaCoalescer.h"

#include <algorithm>

namespace watchfloor::server::service {

LogEntry::LogEntry(DeltaPtr delta) : delta_(std::move(delta)), bytes_(delta_->ByteSizeLong()) {
    for (const auto& block : delta_->samples()) samples_ += block.entity_indexes_size();
}

EncodedMessage LogEntry::encodedFor(const SubscriptionFilter& filter, const TopologyLookup& index) const {
    std::lock_guard lock(cacheMu_);
    for (const auto& [key, encoded] : encoded_)
        if (key == filter.key()) return encoded;
    EncodedMessage encoded = filter.passesEverything() ? encodeDeltaResponse(*delta_)
                                                       : encodeDeltaResponse(filterDelta(*delta_, filter, index));
    encoded_.emplace_back(filter.key(), encoded);
    return encoded;
}

void ReplayLog::append(const std::vector<DeltaPtr>& deltas) {
    std::lock_guard lock(mu_);
    for (const auto& d : deltas) {
        auto entry = std::make_shared<const LogEntry>(d);
        // Twice the delta: its encoded forms (one per distinct filter) live as long as it does.
        bytes_ += 2 * entry->bytes();
        entries_.push_back(std::move(entry));
    }
    while (entries_.size() > 1 && (entries_.size() > limits_.maxEntries || bytes_ > limits_.maxBytes)) {
        bytes_ -= 2 * entries_.front()->bytes();
        dropped_ = entries_.front()->sequence();
        entries_.pop_front();
    }
}

std::vector<LogEntryPtr> ReplayLog::after(std::uint64_t after, std::size_t maxEntries) const {
    std::lock_guard lock(mu_);
    std::vector<LogEntryPtr> out;
    if (entries_.empty()) return out;
    const std::uint64_t first = entries_.front()->sequence();
    std::size_t start = after < first ? 0 : std::size_t(after - first + 1);
    for (std::size_t i = start; i < entries_.size() && out.size() < maxEntries; ++i) out.push_back(entries_[i]);
    return out;
}

bool ReplayLog::canResumeAfter(std::uint64_t after) const {
    std::lock_guard lock(mu_);
    return after >= dropped_;
}

std::uint64_t ReplayLog::firstSequence() const {
    std::lock_guard lock(mu_);
    return entries_.empty() ? 0 : entries_.front()->sequence();
}

std::uint64_t ReplayLog::lastSequence() const {
    std::lock_guard lock(mu_);
    return entries_.empty() ? 0 : entries_.back()->sequence();
}

std::size_t ReplayLog::bytes() const {
    std::lock_guard lock(mu_);
    return bytes_;
}

std::size_t ReplayLog::size() const {
    std::lock_guard lock(mu_);
    return entries_.size();
}

}  // namespace watchfloor::server::service
