#include "TickOrder.h"

#include <limits>
#include <utility>

namespace watchfloor::server::service {

namespace {
constexpr std::uint32_t kNowhere = std::numeric_limits<std::uint32_t>::max();
}

void TickOrder::begin(std::size_t samples) {
    currentKeys_.clear();
    currentIds_.clear();
    currentKeys_.reserve(samples);
    currentIds_.reserve(samples);
    cursor_ = 0;
    lookedUp_ = 0;
}

void TickOrder::resumeAfter(std::uint32_t id, std::uint64_t key) {
    // The place is only a hint (the series may have been away for ticks): trusted when the
    // previous tick really had this key there. Every match is checked by key anyway.
    if (id >= positionOf_.size()) return;
    const std::uint32_t at = positionOf_[id];
    if (at < previousKeys_.size() && previousKeys_[at] == key) cursor_ = std::size_t(at) + 1;
}

void TickOrder::remember(std::uint32_t id, std::uint64_t key) {
    if (id >= positionOf_.size()) positionOf_.resize(std::size_t(id) + 1, kNowhere);
    positionOf_[id] = static_cast<std::uint32_t>(currentKeys_.size());
    currentKeys_.push_back(key);
    currentIds_.push_back(id);
}

void TickOrder::end() {
    std::swap(previousKeys_, currentKeys_);
    std::swap(previousIds_, currentIds_);
}

}  // namespace watchfloor::server::service
