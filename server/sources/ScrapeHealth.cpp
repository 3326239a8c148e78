#include "ScrapeHealth.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace watchfloor::server::sources {

namespace v1 = watchfloor::v1;

namespace {

std::string seconds(std::int64_t ms) { return std::to_string((ms + 500) / 1000) + " s"; }

}  // namespace

ScrapeHealth::ScrapeHealth(const v1::Topology& topology, const std::vector<ScrapeTarget>& targets,
                           std::chrono::milliseconds frozenAfter, std::chrono::milliseconds refreshEvery)
    : specs_(targets), frozenAfterMs_(frozenAfter.count()), refreshMs_(refreshEvery.count()) {
    std::map<std::uint32_t, std::size_t> trayOfNode;
    for (const auto& node : topology.nodes()) {
        trayOfNode[node.index()] = trays_.size();
        Tray& tray = trays_.emplace_back();
        tray.node = node.index();
        tray.name = node.name();
        tray.host = node.hostname().empty() ? node.name() : node.hostname();
    }
    targets_.reserve(specs_.size());
    for (std::size_t t = 0; t < specs_.size(); ++t) {
        const std::size_t tray = trayOfNode.at(specs_[t].node);
        Target& target = targets_.emplace_back();
        target.spec = &specs_[t];
        target.tray = tray;
        trays_[tray].targets.push_back(t);
    }
    // A tray nobody scrapes (both exporters "none") has nothing to say about its telemetry.
    trays_.erase(std::remove_if(trays_.begin(), trays_.end(), [](const Tray& t) { return t.targets.empty(); }),
                 trays_.end());
    for (std::size_t i = 0; i < trays_.size(); ++i)
        for (const std::size_t t : trays_[i].targets) targets_[t].tray = i;
}

void ScrapeHealth::setHealth(Target& target, v1::TargetHealth health, std::string error, std::int64_t nowMs) {
    const bool changed = health != target.health;
    // An UP target's parse complaint carries line numbers that may move from one scrape to the
    // next: only its coming and going is news.
    const bool errorNews =
        health == v1::TARGET_HEALTH_UP ? error.empty() != target.error.empty() : error != target.error;
    if (changed) target.sinceMs = nowMs;
    if (changed || errorNews) trays_[target.tray].dirty = true;
    target.health = health;
    target.error = std::move(error);
}

bool ScrapeHealth::record(std::size_t index, const PageScrape& scrape, std::vector<std::uint32_t>& frozenGpus) {
    Target& target = targets_[index];
    frozenGpus.clear();
    target.lastAttemptMs = scrape.timeMs;
    target.seconds = scrape.seconds;
    if (!scrape.ok) {
        setHealth(target, v1::TARGET_HEALTH_DOWN, scrape.error, scrape.timeMs);
        return false;
    }
    target.rejectedLines = scrape.rejectedLines;
    if (scrape.series == 0) {
        setHealth(target, v1::TARGET_HEALTH_DOWN,
                  scrape.rejectedLines ? "no metrics on the page: " + std::to_string(scrape.rejectedLines) +
                                             " lines refused; first: " + scrape.parseError
                                       : "the page is empty",
                  scrape.timeMs);
        return false;
    }
    target.lastSuccessMs = scrape.timeMs;
    target.series = scrape.series;

    if (scrape.fingerprint != target.fingerprint || target.fingerprintSinceMs == 0) {
        target.fingerprint = scrape.fingerprint;
        target.fingerprintSinceMs = scrape.timeMs;
    }
    std::vector<GpuPrint> gpus;
    gpus.reserve(scrape.gpus.size());
    std::int64_t longestMs = 0;
    std::uint32_t longestGpu = 0;
    for (const auto& [gpu, fingerprint] : scrape.gpus) {
        // Clang 14 cannot capture a structured binding (C++20 allows it; clang 16 does).
        const auto known = std::find_if(target.gpus.begin(), target.gpus.end(),
                                        [&, id = gpu](const GpuPrint& p) { return p.gpu == id; });
        const std::int64_t since =
            known != target.gpus.end() && known->fingerprint == fingerprint ? known->sinceMs : scrape.timeMs;
        gpus.push_back({gpu, fingerprint, since});
        if (scrape.timeMs - since >= frozenAfterMs_) {
            frozenGpus.push_back(gpu);
            if (scrape.timeMs - since > longestMs) longestMs = scrape.timeMs - since, longestGpu = gpu;
        }
    }
    target.gpus = std::move(gpus);

    const std::int64_t unchangedMs = scrape.timeMs - target.fingerprintSinceMs;
    if (unchangedMs >= frozenAfterMs_) {
        // A node_exporter's own clock on the page says how old the page is.
        const std::string clock =
            std::isfinite(scrape.exporterTimeS)
                ? ": its node_time_seconds is " +
                      seconds(scrape.timeMs - static_cast<std::int64_t>(std::llround(scrape.exporterTimeS * 1000))) +
                      " behind the scrape (a cached or stale page)"
                : std::string(" (frozen)");
        setHealth(target, v1::TARGET_HEALTH_FROZEN,
                  "answers, but no value on its page has changed for " + seconds(unchangedMs) + clock, scrape.timeMs);
        frozenGpus.clear();
        return false;
    }
    if (!frozenGpus.empty()) {
        std::string which = "GPU " + std::to_string(longestGpu);
        if (frozenGpus.size() > 1) which += " and " + std::to_string(frozenGpus.size() - 1) + " more";
        setHealth(target, v1::TARGET_HEALTH_FROZEN,
                  which + ": no value changed for " + seconds(longestMs) +
                      " while the rest of the page did (fallen off the bus, the exporter repeating its last reading?)",
                  scrape.timeMs);
        return true;
    }
    setHealth(target, v1::TARGET_HEALTH_UP,
              scrape.rejectedLines
                  ? std::to_string(scrape.rejectedLines) + " lines refused; first: " + scrape.parseError
                  : std::string(),
              scrape.timeMs);
    return true;
}

void ScrapeHealth::expire(std::int64_t nowMs, std::chrono::milliseconds limit) {
    for (Target& target : targets_) {
        if (target.lastAttemptMs == 0 || nowMs - target.lastAttemptMs <= limit.count()) continue;
        if (target.health == v1::TARGET_HEALTH_DOWN) continue;
        setHealth(target, v1::TARGET_HEALTH_DOWN,
                  "not scraped for " + seconds(nowMs - target.lastAttemptMs) +
                      ": fleetd has more targets than it can scrape in an interval (add a shard or raise "
                      "--scrape-concurrency)",
                  nowMs);
    }
}

v1::EntityState ScrapeHealth::stateOf(const Tray& tray, const std::string& reason) const {
    v1::EntityState state;
    state.set_entity_index(tray.node);
    v1::TelemetryHealth& telemetry = *state.mutable_telemetry();
    telemetry.set_state(tray.state);
    telemetry.set_since_unix_ms(tray.sinceMs);
    telemetry.set_reason(reason);
    for (const std::size_t t : tray.targets) {
        const Target& target = targets_[t];
        v1::ScrapeTarget& out = *telemetry.add_targets();
        out.set_exporter(std::string(exporterName(target.spec->exporter)));
        out.set_url(target.spec->url);
        out.set_health(target.health);
        out.set_since_unix_ms(target.sinceMs);
        out.set_last_success_unix_ms(target.lastSuccessMs);
        out.set_scrape_duration_s(target.seconds);
        out.set_last_error(target.error);
        out.set_series(std::uint32_t(std::min<std::uint64_t>(target.series, UINT32_MAX)));
        out.set_rejected_lines(std::uint32_t(std::min<std::uint64_t>(target.rejectedLines, UINT32_MAX)));
    }
    return state;
}

void ScrapeHealth::report(std::int64_t nowMs, FleetChanges& out) {
    for (Tray& tray : trays_) {
        bool unknown = false;
        const Target* silent = nullptr;
        for (const std::size_t t : tray.targets) {
            const Target& target = targets_[t];
            if (target.health == v1::TARGET_HEALTH_UNSPECIFIED)
                unknown = true;
            else if (target.health != v1::TARGET_HEALTH_UP && !silent)
                silent = &target;
        }
        // Silence is known as soon as one exporter is; liveness only once every one answered.
        const v1::TelemetryState state = silent    ? v1::TELEMETRY_STATE_SILENT
                                         : unknown ? v1::TELEMETRY_STATE_UNSPECIFIED
                                                   : v1::TELEMETRY_STATE_LIVE;
        const std::string reason =
            silent ? std::string(exporterName(silent->spec->exporter)) + ": " + silent->error : std::string();
        const v1::TelemetryState before = tray.state;
        if (state != before) {
            tray.sinceMs = nowMs;
            tray.state = state;
            tray.dirty = true;
            if (state == v1::TELEMETRY_STATE_SILENT || before == v1::TELEMETRY_STATE_SILENT) {
                const bool wentSilent = state == v1::TELEMETRY_STATE_SILENT;
                v1::Event& e = out.events.emplace_back();
                e.set_time_unix_ms(nowMs);
                e.set_type(v1::EVENT_TYPE_SOURCE);
                e.set_entity_index(tray.node);
                e.set_cause(wentSilent ? "source_silent" : "source_live");
                e.set_severity(wentSilent ? v1::SEVERITY_WARNING : v1::SEVERITY_INFO);
                const std::string who = tray.name + (tray.host != tray.name ? " (" + tray.host + ")" : "");
                e.set_message(wentSilent
                                  ? who + ": telemetry silent: " + reason + "; its values are the last read and age"
                                  : who + ": telemetry arrives again");
            }
        }
        if (!tray.dirty && nowMs - tray.lastSentMs < refreshMs_) continue;
        out.states.push_back(stateOf(tray, reason));
        tray.dirty = false;
        tray.lastSentMs = nowMs;
    }
}

ScrapeHealth::Counts ScrapeHealth::counts() const {
    Counts c;
    c.targets = std::uint32_t(targets_.size());
    for (const Target& target : targets_) {
        c.rejectedLines += target.rejectedLines;
        switch (target.health) {
        case v1::TARGET_HEALTH_UP: ++c.up; break;
        case v1::TARGET_HEALTH_DOWN: ++c.down; break;
        case v1::TARGET_HEALTH_FROZEN: ++c.frozen; break;
        default: break;
        }
        if (c.firstProblem.empty() &&
            (target.health == v1::TARGET_HEALTH_DOWN || target.health == v1::TARGET_HEALTH_FROZEN))
            c.firstProblem =
                target.spec->host + " " + std::string(exporterName(target.spec->exporter)) + ": " + target.error;
    }
    for (const Tray& tray : trays_) c.hostsSilent += tray.state == v1::TELEMETRY_STATE_SILENT;
    return c;
}

}  // namespace watchfloor::server::sources
