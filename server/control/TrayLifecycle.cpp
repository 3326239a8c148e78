#include "TrayLifecycle.h"

#include <algorithm>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

std::string lifecycleName(v1::TrayLifecycle state) {
    if (state == v1::TRAY_LIFECYCLE_UNSPECIFIED) state = v1::TRAY_LIFECYCLE_PRODUCTION;
    const std::string& full = v1::TrayLifecycle_Name(state);
    constexpr std::string_view prefix = "TRAY_LIFECYCLE_";
    return full.starts_with(prefix) ? full.substr(prefix.size()) : "UNKNOWN";
}

std::string lifecycleTransitionFrom(v1::TrayLifecycle state) {
    return state == v1::TRAY_LIFECYCLE_UNSPECIFIED ? "PRODUCTION (never set)" : lifecycleName(state);
}

bool setByPerson(const LifecycleEntry& entry) { return !entry.setBy.empty() && entry.setBy != "auto"; }

ActionOutcome TrayLifecycleBook::set(const std::string& node, v1::TrayLifecycle state, const std::string& principal,
                                     const std::string& reason) {
    std::lock_guard lock(mutex_);
    LifecycleEntry& entry = entries_[node];
    const std::string before = lifecycleTransitionFrom(entry.state);
    if (entry.state == state) return ActionOutcome::success(node + " is already " + before + "; nothing changed");
    entry = {state, principal, reason, now_()};
    changed_.insert(node);
    return ActionOutcome::success(node + ": " + before + " -> " + lifecycleName(state));
}

void TrayLifecycleBook::restore(const std::string& node, v1::TrayLifecycle state, const std::string& principal,
                                const std::string& reason, std::int64_t sinceUnixMs) {
    std::lock_guard lock(mutex_);
    entries_[node] = {state, principal, reason, sinceUnixMs};
    changed_.insert(node);
}

LifecycleEntry TrayLifecycleBook::get(const std::string& node) const {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(node);
    return found == entries_.end() ? LifecycleEntry{} : found->second;
}

std::vector<std::string> TrayLifecycleBook::takeChanged() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> names(changed_.begin(), changed_.end());
    changed_.clear();
    return names;
}

std::size_t TrayLifecycleBook::outOfProduction() const {
    std::lock_guard lock(mutex_);
    return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](const auto& e) {
        return e.second.state != v1::TRAY_LIFECYCLE_UNSPECIFIED && e.second.state != v1::TRAY_LIFECYCLE_PRODUCTION;
    }));
}

}  // namespace watchfloor::server::control
