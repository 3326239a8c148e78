#pragma once
// Lemon trays (Meta's lemon-node detection, "Revisiting Reliability in Large-Scale Machine
// Learning Research Clusters", 2024): a tray that fails k times within a window fails far more
// often than its peers and keeps taking jobs down; it belongs in triage, not in production. A
// failure here is the tray's health turning FAILED. Pure bookkeeping on the caller's clock (sim
// time under the twin); one thread.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::control {

struct LemonConfig {
    std::uint32_t failures = 3;                               // k
    std::chrono::seconds window{std::chrono::hours(24 * 7)};  // a week
};

// "3/7d": k failures within the window. nullopt and *problem on error.
std::optional<LemonConfig> parseLemon(std::string_view text, std::string* problem);

class LemonDetector {
public:
    explicit LemonDetector(LemonConfig config) : config_(config) {}

    // `node` failed at `timeMs`. True when this failure makes it a lemon (it was not one just before).
    bool failure(const std::string& node, std::int64_t timeMs);
    // Failures of `node` within the window ending at `nowMs`.
    std::uint32_t recentFailures(const std::string& node, std::int64_t nowMs) const;
    bool lemon(const std::string& node, std::int64_t nowMs) const;
    // A person put the tray back in production: it starts again from no failures.
    void vouch(const std::string& node) { revision_ += failures_.erase(node); }
    // A failure carried over from an earlier run (LemonFailureFile): counted, flagging nothing.
    void restore(const std::string& node, std::int64_t timeMs);
    // Drops failures older than the window; returns the trays that stopped being lemons.
    std::vector<std::string> expire(std::int64_t nowMs);
    std::size_t lemons(std::int64_t nowMs) const;

    const LemonConfig& config() const { return config_; }
    // Every tray's failures in the window, oldest first, for LemonFailureFile.
    const std::map<std::string, std::deque<std::int64_t>>& failures() const { return failures_; }
    // Goes up whenever failures() changes (a failure, a vouch, one aging out): when to save.
    std::uint64_t revision() const { return revision_; }

private:
    std::int64_t windowStart(std::int64_t nowMs) const;

    const LemonConfig config_;
    std::map<std::string, std::deque<std::int64_t>> failures_;  // oldest first
    std::uint64_t revision_ = 0;
};

}  // namespace watchfloor::server::control
