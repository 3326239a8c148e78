#include "MaintenanceCalendar.h"

#include "TextBounds.h"
#include "UtcTime.h"

#include <algorithm>

namespace watchfloor::server::incidents {

namespace v1 = watchfloor::v1;

namespace {

std::string scopeWord(v1::MaintenanceScope scope) {
    switch (scope) {
    case v1::MAINTENANCE_SCOPE_NODE: return "node";
    case v1::MAINTENANCE_SCOPE_RACK: return "rack";
    case v1::MAINTENANCE_SCOPE_ROW: return "row";
    case v1::MAINTENANCE_SCOPE_HALL: return "hall";
    default: return "scope";
    }
}

std::vector<std::string> split(const std::string& text, char by) {
    std::vector<std::string> parts(1);
    for (char c : text) {
        if (c == by)
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

bool sharesRack(const v1::MaintenanceWindow& a, const v1::MaintenanceWindow& b) {
    for (std::uint32_t rack : a.rack_indexes())
        if (std::find(b.rack_indexes().begin(), b.rack_indexes().end(), rack) != b.rack_indexes().end()) return true;
    return false;
}

// Two scopes meet when one contains the other or they are the same: a rack window meets the
// windows of its nodes, its row and its hall; two node windows meet only on the same node.
bool scopesMeet(const v1::MaintenanceWindow& a, const v1::MaintenanceWindow& b) {
    if (!sharesRack(a, b)) return false;
    if (a.scope() == v1::MAINTENANCE_SCOPE_NODE && b.scope() == v1::MAINTENANCE_SCOPE_NODE)
        return a.node_indexes(0) == b.node_indexes(0);
    return true;
}

std::string describe(const v1::MaintenanceWindow& window) {
    return window.id() + " (" + scopeWord(window.scope()) + " " + window.scope_name() + ", " +
           utcTime(window.start_unix_ms()) + " to " + utcTime(window.end_unix_ms()) + ", owner " + window.owner() + ")";
}

std::string hours(std::chrono::milliseconds span) {
    const auto h = std::chrono::duration_cast<std::chrono::hours>(span).count();
    return h % 24 == 0 ? std::to_string(h / 24) + " days" : std::to_string(h) + " h";
}

}  // namespace

MaintenanceCalendar::MaintenanceCalendar(const v1::Topology& topology, MaintenanceLimits limits)
    : topology_(topology), limits_(limits) {
    for (const auto& region : topology.regions()) regionNames_.emplace(region.index(), region.name());
}

std::int64_t MaintenanceCalendar::nowMs() const {
    std::lock_guard lock(mutex_);
    return nowMs_;
}

std::uint64_t MaintenanceCalendar::version() const {
    std::lock_guard lock(mutex_);
    return version_;
}

// Scope names: a node or rack by name; a hall as "<hall>" or "<region>/<hall>"; a row as
// "<hall>/<row>" or "<region>/<hall>/<row>" (hall names may repeat across regions).
bool MaintenanceCalendar::scopeRacks(const v1::MaintenanceWindow& spec, std::vector<std::uint32_t>* racks) const {
    const std::string& name = spec.scope_name();
    switch (spec.scope()) {
    case v1::MAINTENANCE_SCOPE_NODE:
        for (const auto& node : topology_.nodes())
            if (node.name() == name) {
                racks->push_back(node.rack_index());
                return true;
            }
        return false;
    case v1::MAINTENANCE_SCOPE_RACK:
        for (const auto& rack : topology_.racks())
            if (rack.name() == name) racks->push_back(rack.index());
        return !racks->empty();
    case v1::MAINTENANCE_SCOPE_ROW:
    case v1::MAINTENANCE_SCOPE_HALL: {
        std::vector<std::string> parts = split(name, '/');
        const bool row = spec.scope() == v1::MAINTENANCE_SCOPE_ROW;
        std::string region;
        if (parts.size() == (row ? 3u : 2u)) {
            region = parts.front();
            parts.erase(parts.begin());
        }
        if (parts.size() != (row ? 2u : 1u) || parts[0].empty()) return false;
        std::uint32_t rowNumber = 0;
        if (row) {
            const std::string& digits = parts[1];
            if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
                return false;
            rowNumber = static_cast<std::uint32_t>(std::stoul(digits));
        }
        for (const auto& rack : topology_.racks()) {
            if (rack.hall() != parts[0] || (row && rack.row() != rowNumber)) continue;
            if (!region.empty()) {
                const auto named = regionNames_.find(rack.region_index());
                if (named == regionNames_.end() || named->second != region) continue;
            }
            racks->push_back(rack.index());
        }
        return !racks->empty();
    }
    default: return false;
    }
}

bool MaintenanceCalendar::scopeOf(const v1::MaintenanceWindow& spec, v1::MaintenanceWindow* window) const {
    std::vector<std::uint32_t> racks;
    if (!scopeRacks(spec, &racks)) return false;
    std::sort(racks.begin(), racks.end());
    window->set_scope(spec.scope());
    window->set_scope_name(spec.scope_name());
    for (std::uint32_t rack : racks) window->add_rack_indexes(rack);
    if (spec.scope() == v1::MAINTENANCE_SCOPE_NODE)
        for (const auto& node : topology_.nodes())
            if (node.name() == spec.scope_name()) window->add_node_indexes(node.index());
    return true;
}

MaintenanceCalendar::Result MaintenanceCalendar::resolveLocked(const v1::MaintenanceWindow& spec) const {
    auto refuse = [](Code code, std::string message) { return Result{code, std::move(message), {}}; };
    if (spec.scope() == v1::MAINTENANCE_SCOPE_UNSPECIFIED || !v1::MaintenanceScope_IsValid(spec.scope()))
        return refuse(Code::InvalidArgument, "maintenance.scope must be NODE, RACK, ROW or HALL");
    if (spec.scope_name().empty())
        return refuse(Code::InvalidArgument, "maintenance.scope_name names the " + scopeWord(spec.scope()));
    Result result;
    v1::MaintenanceWindow& window = result.window;
    if (!scopeOf(spec, &window))
        return refuse(Code::NotFound,
                      "no " + scopeWord(spec.scope()) + " named " + quotedForMessage(spec.scope_name()) +
                          (spec.scope() == v1::MAINTENANCE_SCOPE_ROW ? " (rows are '<hall>/<row>')" : ""));

    const std::int64_t start = spec.start_unix_ms() == 0 ? nowMs_ : spec.start_unix_ms();
    const std::int64_t end = spec.end_unix_ms();
    if (start < nowMs_ - limits_.pastSlack.count())
        return refuse(Code::InvalidArgument, "the window starts at " + utcTime(start) +
                                                 ", in the past (fleet time is " + utcTime(nowMs_) +
                                                 "); a start of 0 means now");
    if (start > nowMs_ + limits_.leadTime.count())
        return refuse(Code::InvalidArgument, "the window starts at " + utcTime(start) + ", more than " +
                                                 hours(limits_.leadTime) + " ahead; schedule it closer to the date");
    if (end <= start)
        return refuse(Code::InvalidArgument, "the window must end after it starts (start " + utcTime(start) + ", end " +
                                                 (end == 0 ? std::string("not set") : utcTime(end)) + ")");
    if (end - start > limits_.maxLength.count())
        return refuse(Code::InvalidArgument, "the window is " + hours(std::chrono::milliseconds(end - start)) +
                                                 " long; at most " + hours(limits_.maxLength) +
                                                 " (split longer work into several windows)");
    window.set_start_unix_ms(std::max(start, nowMs_));
    window.set_end_unix_ms(end);
    for (const auto& [id, held] : held_)
        if (held.start_unix_ms() < end && window.start_unix_ms() < held.end_unix_ms() && scopesMeet(held, window))
            return refuse(Code::Conflict,
                          "it overlaps maintenance window " + describe(held) + "; change or cancel that window first");
    result.message = "maintenance on " + scopeWord(spec.scope()) + " " + spec.scope_name() + " from " +
                     utcTime(window.start_unix_ms()) + " to " + utcTime(end) + ": events there raise no incident" +
                     " (faults still active at its end raise them then)";
    return result;
}

MaintenanceCalendar::Result MaintenanceCalendar::check(const v1::MaintenanceWindow& spec) const {
    std::lock_guard lock(mutex_);
    return resolveLocked(spec);
}

void MaintenanceCalendar::changedLocked(const v1::MaintenanceWindow& window) {
    ++version_;
    unsent_.push_back(window);
}

void MaintenanceCalendar::notify(const std::vector<v1::MaintenanceWindow>& changes) const {
    if (!listener_) return;
    for (const auto& window : changes) listener_(window);
}

MaintenanceCalendar::Result MaintenanceCalendar::schedule(const v1::MaintenanceWindow& spec, const std::string& id,
                                                          const std::string& reason, const std::string& owner,
                                                          const std::string& createdBy) {
    Result result;
    {
        std::lock_guard lock(mutex_);
        result = resolveLocked(spec);
        if (!result.ok()) return result;
        if (held_.count(id)) return {Code::Conflict, "maintenance window " + id + " already exists", {}};
        v1::MaintenanceWindow& window = result.window;
        window.set_id(id);
        window.set_reason(reason);
        window.set_owner(owner);
        window.set_created_by(createdBy);
        window.set_state(window.start_unix_ms() <= nowMs_ ? v1::MAINTENANCE_STATE_ACTIVE
                                                          : v1::MAINTENANCE_STATE_SCHEDULED);
        held_[id] = window;
        changedLocked(window);
        result.message = id + ": " + result.message;
    }
    notify({result.window});
    return result;
}

bool MaintenanceCalendar::restore(const v1::MaintenanceWindow& spec, const std::string& id, const std::string& reason,
                                  const std::string& owner, const std::string& createdBy) {
    v1::MaintenanceWindow window;
    if (!scopeOf(spec, &window) || spec.end_unix_ms() <= spec.start_unix_ms()) return false;
    window.set_id(id);
    window.set_start_unix_ms(spec.start_unix_ms());
    window.set_end_unix_ms(spec.end_unix_ms());
    window.set_reason(reason);
    window.set_owner(owner);
    window.set_created_by(createdBy);
    window.set_state(v1::MAINTENANCE_STATE_SCHEDULED);  // advanceTo starts or ends it
    std::lock_guard lock(mutex_);
    held_[id] = window;
    changedLocked(window);
    return true;
}

MaintenanceCalendar::Result MaintenanceCalendar::checkCancel(const std::string& id) const {
    std::lock_guard lock(mutex_);
    const auto found = held_.find(id);
    if (found == held_.end())
        return {Code::NotFound, "no scheduled or active maintenance window " + quotedForMessage(id), {}};
    return {Code::Ok,
            "cancel maintenance window " + describe(found->second) +
                (found->second.state() == v1::MAINTENANCE_STATE_ACTIVE
                     ? ": it ends now, and faults still active there raise incidents"
                     : ""),
            found->second};
}

MaintenanceCalendar::Result MaintenanceCalendar::cancel(const std::string& id, const std::string& principal) {
    Result result;
    {
        std::lock_guard lock(mutex_);
        const auto found = held_.find(id);
        if (found == held_.end())
            return {Code::NotFound, "no scheduled or active maintenance window " + quotedForMessage(id), {}};
        result.window = found->second;
        held_.erase(found);
        result.window.set_state(v1::MAINTENANCE_STATE_CANCELLED);
        result.window.set_cancelled_by(principal);
        changedLocked(result.window);
        result.message = "maintenance window " + describe(result.window) + " cancelled by " + principal;
    }
    notify({result.window});
    return result;
}

std::vector<v1::MaintenanceWindow> MaintenanceCalendar::windows() const {
    std::vector<v1::MaintenanceWindow> out;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [id, window] : held_) out.push_back(window);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.start_unix_ms() != b.start_unix_ms() ? a.start_unix_ms() < b.start_unix_ms() : a.id() < b.id();
    });
    return out;
}

void MaintenanceCalendar::advanceTo(std::int64_t nowMs, std::vector<v1::MaintenanceWindow>* changed) {
    std::vector<v1::MaintenanceWindow> transitions;
    MaintenanceCover cover;
    {
        std::lock_guard lock(mutex_);
        nowMs_ = nowMs;
        for (auto it = held_.begin(); it != held_.end();) {
            v1::MaintenanceWindow& window = it->second;
            if (nowMs >= window.end_unix_ms()) {
                window.set_state(v1::MAINTENANCE_STATE_ENDED);
                changedLocked(window);
                transitions.push_back(window);
                it = held_.erase(it);
                continue;
            }
            if (window.state() == v1::MAINTENANCE_STATE_SCHEDULED && nowMs >= window.start_unix_ms()) {
                window.set_state(v1::MAINTENANCE_STATE_ACTIVE);
                changedLocked(window);
                transitions.push_back(window);
            }
            if (window.state() == v1::MAINTENANCE_STATE_ACTIVE) {
                if (window.scope() == v1::MAINTENANCE_SCOPE_NODE)
                    cover.nodes.insert(window.node_indexes().begin(), window.node_indexes().end());
                else
                    cover.racks.insert(window.rack_indexes().begin(), window.rack_indexes().end());
            }
            ++it;
        }
        // The newest version of each window, in the order they changed.
        std::map<std::string, std::size_t> newest;
        for (std::size_t i = 0; i < unsent_.size(); ++i) newest[unsent_[i].id()] = i;
        for (std::size_t i = 0; i < unsent_.size(); ++i)
            if (newest[unsent_[i].id()] == i) changed->push_back(std::move(unsent_[i]));
        unsent_.clear();
    }
    cover_ = std::move(cover);
    notify(transitions);
}

}  // namespace watchfloor::server::incidents
