#pragma once
// fleetd --auto-isolate-links: automation takes the link ladder's first step. A rail link fleetd's
// link keeper lists at risk, that no one has put on the ladder, is isolated as principal "auto"
// (audited, behind the --auto-drain breaker): its tray drains at the jobs' next checkpoint, or now
// once the errors prove it over the Error line. Past the isolation budget, or when the engine
// refuses (the breaker tripped), the link is marked PROPOSED with the reason and a person decides.
// It never acts on a link a person has on the ladder (isolating, isolated, treated, or returned
// within the hour it stays listed): treating and returning are people's. dry-run marks the links
// it would isolate as PROPOSED and does nothing.
//
// consider() runs on the telemetry tick thread and reads what the keeper left in the book at the
// last poll; executions are posted to the control thread (a drain waits for the twin's tick), and
// their refusals come back at the next tick (a refused link is asked again 10 minutes later, not
// every tick: each refusal is an audit record). A request id names the link and its isolations within
// 30 days, so a post repeated after a restart is the same operation.

#include "ControlPlane.h"
#include "LinkLadderBook.h"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace watchfloor::server::fleetd {

class LinkAutoIsolation {
public:
    using Task = std::function<void()>;
    using Post = std::function<void(Task)>;
    using Log = std::function<void(const std::string&)>;
    using Mode = control::ControlOptions::AutoIsolateLinks;

    LinkAutoIsolation(Mode mode, control::ControlPlane& plane, LinkLadderBook& book, Post post, Log log);

    void consider(std::int64_t nowUnixMs);

private:
    void isolate(const std::string& link, const LinkLadderBook::AtStake& stake, std::int64_t nowUnixMs);
    static std::string riskText(const LinkLadderBook::AtStake& stake);

    const Mode mode_;
    control::ControlPlane& plane_;
    LinkLadderBook& book_;
    const Post post_;
    const Log log_;
    static constexpr std::int64_t kRetryAfterMs = 10 * 60'000;  // a refused link is tried again after this
    std::set<std::string> posted_;                   // tick thread: isolations posted and not yet seen on the book
    std::map<std::string, std::int64_t> retryAtMs_;  // tick thread: refused links, not asked again before
    std::mutex refusedMutex_;
    std::map<std::string, std::string> refused_;  // link -> why the engine refused (control thread -> tick)
};

}  // namespace watchfloor::server::fleetd
