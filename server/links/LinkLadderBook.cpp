#include "LinkLadderBook.h"

#include "LinkThresholds.h"

#include <algorithm>

namespace watchfloor::server {
namespace v1 = watchfloor::v1;

LinkLadderBook::LinkLadderBook(std::size_t links, std::map<std::string, std::string> trayOfLink)
    : links_(links), budget_(isolationBudget(links)), trayOfLink_(std::move(trayOfLink)) {}

std::size_t LinkLadderBook::isolatedNow() const {
    std::lock_guard lock(mutex_);
    return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](const auto& e) {
        const v1::LinkStage s = e.second.stage;
        return s == v1::LINK_STAGE_ISOLATING || s == v1::LINK_STAGE_ISOLATED || s == v1::LINK_STAGE_TREATED;
    }));
}

std::optional<std::string> LinkLadderBook::trayOf(const std::string& link) const {
    const auto found = trayOfLink_.find(link);
    if (found == trayOfLink_.end()) return std::nullopt;
    return found->second;
}

std::optional<LinkLadderEntry> LinkLadderBook::get(const std::string& link) const {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(link);
    if (found == entries_.end()) return std::nullopt;
    return found->second;
}

std::size_t LinkLadderEntry::isolationsWithin30Days(std::int64_t nowUnixMs) const {
    return static_cast<std::size_t>(
        std::count_if(isolationsUnixMs.begin(), isolationsUnixMs.end(),
                      [&](std::int64_t t) { return nowUnixMs - t < LinkLadderBook::kIsolationMemoryMs; }));
}

std::size_t LinkLadderBook::isolationsWithin30Days(const std::string& link, std::int64_t nowUnixMs) const {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(link);
    return found == entries_.end() ? 0 : found->second.isolationsWithin30Days(nowUnixMs);
}

LinkLadderEntry& LinkLadderBook::entryLocked(const std::string& link) {
    LinkLadderEntry& entry = entries_[link];
    if (entry.tray.empty())
        if (const auto tray = trayOfLink_.find(link); tray != trayOfLink_.end()) entry.tray = tray->second;
    return entry;
}

void LinkLadderBook::moveLocked(LinkLadderEntry& entry, v1::LinkStage stage, std::string reason,
                                std::int64_t nowUnixMs) {
    if (entry.stage != stage) entry.sinceUnixMs = nowUnixMs;
    entry.stage = stage;
    entry.reason = std::move(reason);
    ++version_;
}

void LinkLadderBook::propose(const std::string& link, const std::string& reason, std::int64_t nowUnixMs) {
    std::lock_guard lock(mutex_);
    LinkLadderEntry& entry = entryLocked(link);
    // A proposal never overrules a step taken: only a link still watched is proposed.
    if (entry.stage != v1::LINK_STAGE_UNSPECIFIED && entry.stage != v1::LINK_STAGE_WATCH &&
        entry.stage != v1::LINK_STAGE_PROPOSED && entry.stage != v1::LINK_STAGE_RETURNED)
        return;
    if (entry.stage == v1::LINK_STAGE_PROPOSED && entry.reason == reason) return;
    moveLocked(entry, v1::LINK_STAGE_PROPOSED, reason, nowUnixMs);
}

void LinkLadderBook::isolating(const std::string& link, const std::string& operationId, const std::string& reason,
                               bool automated, std::int64_t nowUnixMs) {
    std::lock_guard lock(mutex_);
    LinkLadderEntry& entry = entryLocked(link);
    entry.operationId = operationId;
    entry.automated = automated;
    moveLocked(entry, v1::LINK_STAGE_ISOLATING, reason, nowUnixMs);
}

void LinkLadderBook::isolated(const std::string& link, const std::string& operationId, const std::string& reason,
                              bool automated, std::int64_t nowUnixMs) {
    std::lock_guard lock(mutex_);
    LinkLadderEntry& entry = entryLocked(link);
    auto& times = entry.isolationsUnixMs;
    std::erase_if(times, [&](std::int64_t t) { return nowUnixMs - t >= kIsolationMemoryMs; });
    // One isolation per operation: an ISOLATING link that now drained is the same isolation.
    if (entry.operationId != operationId || entry.stage != v1::LINK_STAGE_ISOLATED) times.push_back(nowUnixMs);
    entry.operationId = operationId;
    entry.automated = automated;
    entry.treatment = v1::LINK_TREATMENT_UNSPECIFIED;
    entry.treatedEnd = v1::LINK_END_UNSPECIFIED;
    entry.treatedBy.clear();
    entry.cleanWindowPassed = false;
    entry.cleanWindowText.clear();
    moveLocked(entry, v1::LINK_STAGE_ISOLATED, reason, nowUnixMs);
}

void LinkLadderBook::isolationAbandoned(const std::string& link, const std::string& operationId, const std::string& why,
                                        std::int64_t nowUnixMs) {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(link);
    if (found == entries_.end() || found->second.operationId != operationId ||
        found->second.stage != v1::LINK_STAGE_ISOLATING)
        return;
    moveLocked(found->second, v1::LINK_STAGE_WATCH, why, nowUnixMs);
}

void LinkLadderBook::treated(const std::string& link, const std::string& operationId, v1::LinkTreatment treatment,
                             v1::LinkEnd end, const std::string& by, std::int64_t nowUnixMs) {
    std::lock_guard lock(mutex_);
    LinkLadderEntry& entry = entryLocked(link);
    entry.operationId = operationId;
    entry.treatment = treatment;
    entry.treatedEnd = end;
    entry.treatedBy = by;
    entry.windowRestartPending = true;
    entry.cleanWindowPassed = false;
    entry.cleanWindowText = "clean window starts";
    moveLocked(entry, v1::LINK_STAGE_TREATED, "treated by " + by + "; returns after a clean window", nowUnixMs);
}

void LinkLadderBook::returned(const std::string& link, const std::string& operationId, std::int64_t nowUnixMs) {
    std::lock_guard lock(mutex_);
    LinkLadderEntry& entry = entryLocked(link);
    entry.operationId = operationId;
    entry.windowRestartPending = false;
    moveLocked(entry, v1::LINK_STAGE_RETURNED, "returned to service after its clean window", nowUnixMs);
}

void LinkLadderBook::forget(const std::string& link) {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(link);
    if (found == entries_.end()) return;
    const v1::LinkStage s = found->second.stage;
    if (s != v1::LINK_STAGE_RETURNED && s != v1::LINK_STAGE_PROPOSED && s != v1::LINK_STAGE_WATCH) return;
    // The isolation count outlives the listing: the third within 30 days still counts.
    if (found->second.isolationsUnixMs.empty()) {
        entries_.erase(found);
    } else {
        found->second.stage = v1::LINK_STAGE_UNSPECIFIED;
        found->second.reason.clear();
    }
    ++version_;
}

bool LinkLadderBook::takeWindowRestart(const std::string& link) {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(link);
    if (found == entries_.end() || !found->second.windowRestartPending) return false;
    found->second.windowRestartPending = false;
    return true;
}

void LinkLadderBook::setCleanWindow(const std::string& link, bool passed, const std::string& text) {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(link);
    if (found == entries_.end() || found->second.stage != v1::LINK_STAGE_TREATED) return;
    if (found->second.cleanWindowPassed == passed && found->second.cleanWindowText == text) return;
    found->second.cleanWindowPassed = passed;
    found->second.cleanWindowText = text;
    ++version_;
}

void LinkLadderBook::setAtStake(std::map<std::string, AtStake> listed) {
    std::lock_guard lock(mutex_);
    atStake_ = std::move(listed);
}

std::optional<LinkLadderBook::AtStake> LinkLadderBook::atStake(const std::string& link) const {
    std::lock_guard lock(mutex_);
    const auto found = atStake_.find(link);
    if (found == atStake_.end()) return std::nullopt;
    return found->second;
}

std::map<std::string, LinkLadderBook::AtStake> LinkLadderBook::listed() const {
    std::lock_guard lock(mutex_);
    return atStake_;
}

void LinkLadderBook::setAutomation(bool on, bool dryRun) {
    automationOn_ = on;
    automationDryRun_ = dryRun;
}

std::map<std::string, LinkLadderEntry> LinkLadderBook::entries() const {
    std::lock_guard lock(mutex_);
    return entries_;
}

std::uint64_t LinkLadderBook::version() const {
    std::lock_guard lock(mutex_);
    return version_;
}

}  // namespace watchfloor::server
