#include "LinkHealthKeeper.h"

#include "LinkStreamValues.h"
#include "PoissonBounds.h"
#include "TickClock.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace watchfloor::server {
namespace v1 = watchfloor::v1;

namespace {

enum Counter { kSymbol, kRecovery, kDowned, kReceive, kTemperature, kRateGbps, kCounters };
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Which end and counter a metric is; -1 when it is not a link counter.
int endOf(v1::Metric metric) {
    switch (metric) {
    case v1::IB_SYMBOL_ERROR_COUNTER:
    case v1::IB_LINK_ERROR_RECOVERY_COUNTER:
    case v1::IB_LINK_DOWNED_COUNTER:
    case v1::IB_PORT_RCV_ERRORS:
    case v1::IB_MODULE_TEMPERATURE_C:
    case v1::IB_LINK_RATE_GBPS:
    case v1::IB_PHY_STATE: return 0;
    case v1::IB_FAR_SYMBOL_ERROR_COUNTER:
    case v1::IB_FAR_LINK_ERROR_RECOVERY_COUNTER:
    case v1::IB_FAR_LINK_DOWNED_COUNTER:
    case v1::IB_FAR_PORT_RCV_ERRORS: return 1;
    default: return -1;
    }
}

int counterOf(v1::Metric metric) {
    switch (metric) {
    case v1::IB_SYMBOL_ERROR_COUNTER:
    case v1::IB_FAR_SYMBOL_ERROR_COUNTER: return kSymbol;
    case v1::IB_LINK_ERROR_RECOVERY_COUNTER:
    case v1::IB_FAR_LINK_ERROR_RECOVERY_COUNTER: return kRecovery;
    case v1::IB_LINK_DOWNED_COUNTER:
    case v1::IB_FAR_LINK_DOWNED_COUNTER: return kDowned;
    case v1::IB_PORT_RCV_ERRORS:
    case v1::IB_FAR_PORT_RCV_ERRORS: return kReceive;
    case v1::IB_MODULE_TEMPERATURE_C: return kTemperature;
    case v1::IB_LINK_RATE_GBPS: return kRateGbps;
    default: return -1;
    }
}

double rounded(double x) { return shownDigits(x); }

double hoursOrNone(double hours) { return std::isfinite(hours) ? rounded(hours) : -1.0; }

void fillBer(const SymbolBerEstimate& e, v1::LinkBer* out) {
    out->set_verdict(linkVerdictOf(e.verdict));
    out->set_point(rounded(e.point));
    out->set_lower(rounded(e.lower));
    out->set_upper(rounded(e.upper));
    out->set_upper_only(e.upperOnly);
    out->set_errors(e.errors);
    out->set_bits(rounded(e.bits));
    out->set_window_s(std::round(e.windowSeconds));
    out->set_needed_s(std::round(e.neededSeconds));
    out->set_text(e.text());
}

// A counter's value as the watch takes it: a negative or absurdly large value (a broken exporter)
// is no reading at all, as a blank is. 2^53: the largest whole number a source's double carries.
bool counterReading(float value) { return std::isfinite(value) && value >= 0 && value <= 9.007199254740992e15F; }

// The rate the host reports for its port (node_exporter's rate_bytes_per_second), in bytes/s, when
// it is one: blank, zero, negative or over what any InfiniBand port runs at is no reading, and the
// topology's rate stands in.
double reportedBytesPerSecond(float gbps) {
    const double bytesPerSecond = double(gbps) * 1e9 / 8;
    return std::isfinite(bytesPerSecond) && bytesPerSecond > 0 && bytesPerSecond <= PortTracker::kMaxRateBytesPerSecond
               ? bytesPerSecond
               : 0.0;
}

bool noteworthy(BerVerdict verdict) { return berVerdictRank(verdict) >= berVerdictRank(BerVerdict::Elevated); }

std::string percent(double p) {
    char text[16];
    std::snprintf(text, sizeof text, "%.0f %%", 100 * p);
    return text;
}

std::string influencerText(const Influencer& in) {
    char text[160];
    if (in.what == Influence::ModuleTemperature)
        std::snprintf(text, sizeof text, "%s %.1f °C against %.1f °C over 7 days", influenceName(in.what), in.recent,
                      in.baseline);
    else if (in.baseline > 0)
        std::snprintf(text, sizeof text, "%s %.0fx the 7-day baseline", influenceName(in.what),
                      in.recent / in.baseline);
    else
        std::snprintf(text, sizeof text, "%s, none in the last 7 days", influenceName(in.what));
    return text;
}

}  // namespace

LinkHealthKeeper::LinkHealthKeeper(const v1::Topology& topology, LinkHealthOptions options)
    : options_(options), watch_(std::size_t(topology.nic_ports_size()), options.watch) {
    links_.reserve(std::size_t(topology.nic_ports_size()));
    for (const auto& port : topology.nic_ports()) {
        linkOfEntity_.emplace(port.index(), std::uint32_t(links_.size()));
        linkOfName_.emplace(port.name(), std::uint32_t(links_.size()));
        links_.push_back({port.index(), port.node_index(), port.name(), port.link_rate_gbps() * 1e9 / 8});
    }
    Counters none;
    std::fill(std::begin(none.value), std::end(none.value), kNaN);
    for (auto& end : ends_) end.assign(links_.size(), none);
    samples_.resize(links_.size());
}

void LinkHealthKeeper::observe(FleetChanges& changes) {
    if (links_.empty()) return;
    const std::int64_t nowMs = toUnixMs(changes.time);
    record(changes);
    recordJobs(changes);
    recordTrays(changes, nowMs);
    if (nowMs < nextPollMs_) return;
    nextPollMs_ = nowMs + options_.pollMs;
    poll(nowMs, changes);
}

void LinkHealthKeeper::record(const FleetChanges& changes) {
    for (std::size_t i = 0; i < changes.samples.size(); ++i) {
        const Sample& s = changes.samples[i];
        const int end = endOf(s.metric);
        if (end < 0) continue;
        const auto link = linkOfEntity_.find(s.entityIndex);
        if (link == linkOfEntity_.end()) continue;
        Counters& c = ends_[end][link->second];
        if (s.metric == v1::IB_PHY_STATE) {
            // 5 LinkUp; anything else carries no bits. Blank: unknown, taken as up.
            c.active = std::isnan(s.value) || s.value == 5;
            continue;
        }
        const int counter = counterOf(s.metric);
        if (counter < 0) continue;
        c.value[counter] = s.value;
        if (counter == kSymbol) c.timeMs = changes.sampleTimeMs(i);
    }
}

void LinkHealthKeeper::recordJobs(const FleetChanges& changes) {
    for (const auto& job : changes.jobs) {
        const bool runs = job.state() == v1::JOB_STATE_RUNNING || job.state() == v1::JOB_STATE_CHECKPOINTING;
        if (runs)
            jobs_[job.index()] = job;
        else
            jobs_.erase(job.index());
    }
}

void LinkHealthKeeper::recordTrays(const FleetChanges& changes, std::int64_t nowMs) {
    for (const auto& state : changes.states) {
        if (state.node_state() == v1::NODE_STATE_UNSPECIFIED) continue;
        const bool down = state.node_state() == v1::NODE_STATE_DOWN;
        const auto known = trayDownUntilMs_.find(state.entity_index());
        if (down) {
            trayDownUntilMs_[state.entity_index()] = std::numeric_limits<std::int64_t>::max();
        } else if (known != trayDownUntilMs_.end() && known->second == std::numeric_limits<std::int64_t>::max()) {
            known->second = nowMs + options_.hostEventGraceMs;  // back up: its ports train again
        }
    }
}

bool LinkHealthKeeper::hostEvent(std::uint32_t node, std::int64_t nowMs) const {
    const auto found = trayDownUntilMs_.find(node);
    return found != trayDownUntilMs_.end() && nowMs <= found->second;
}

float LinkHealthKeeper::cableDowns(Counters& c, bool hostEventNow) {
    const float v = c.value[kDowned];
    if (!counterReading(v)) return v;
    if (std::isfinite(c.downedSeen)) {
        if (v < c.downedSeen)
            c.downedByHost = 0;  // cleared: what the host had added went with it
        else if (hostEventNow)
            c.downedByHost += v - c.downedSeen;
    }
    c.downedSeen = v;
    return std::max(0.0f, v - c.downedByHost);
}

void LinkHealthKeeper::fillSamples(std::int64_t nowMs) {
    for (std::size_t i = 0; i < links_.size(); ++i) {
        LinkPollSample& sample = samples_[i];
        bool* present[2] = {&sample.hostPresent, &sample.switchPresent};
        PortCounterSample* out[2] = {&sample.host, &sample.switchEnd};
        const bool hostEventNow = hostEvent(links_[i].node, nowMs);
        for (int end = 0; end < 2; ++end) {
            Counters& c = ends_[end][i];
            // A source that sends counters on change (the twin) leaves a quiet port's values as
            // they were: they still hold now. One that polls (a store, a scrape) sends them each
            // time with the scrape's own timestamp, and an old timestamp is no new sample.
            const bool fresh = c.timeMs > c.takenMs;
            *present[end] = counterReading(c.value[kSymbol]) && (fresh || options_.countersOnChange);
            if (!*present[end]) continue;
            const std::int64_t at = fresh ? c.timeMs : std::max(nowMs, c.takenMs + 1);
            out[end]->clear(at);
            c.takenMs = at;
            out[end]->setSymbolErrors(std::uint64_t(c.value[kSymbol]));
            if (counterReading(c.value[kRecovery])) out[end]->setLinkErrorRecovery(std::uint64_t(c.value[kRecovery]));
            if (const float downs = cableDowns(c, hostEventNow); counterReading(downs))
                out[end]->setLinkDowned(std::uint64_t(downs));
            if (counterReading(c.value[kReceive])) out[end]->setReceiveErrors(std::uint64_t(c.value[kReceive]));
            if (std::isfinite(c.value[kTemperature])) out[end]->setModuleTemperature(c.value[kTemperature]);
            out[end]->setActive(ends_[0][i].active);  // one cable: the host's state and rate are the link's
            // The rate the port runs at where the host reports it (a port trained down to 200 Gb/s
            // carries half the bits), else the topology's line rate; neither: no bits, no BER.
            const double reported = reportedBytesPerSecond(ends_[0][i].value[kRateGbps]);
            const double rate = reported > 0 ? reported : links_[i].bytesPerSecond;
            if (rate > 0) out[end]->setRate(rate);
        }
    }
}

std::vector<std::uint32_t> LinkHealthKeeper::linksToList() {
    std::vector<std::uint32_t> out;
    for (const std::uint32_t link : watch_.atRisk()) {
        if (out.size() == options_.listedMax) return out;
        out.push_back(link);
    }
    for (const std::uint32_t link : noteworthy_) {
        if (out.size() == options_.listedMax) break;
        if (!watch_.risk(link).atRisk) out.push_back(link);
    }
    return out;
}

void LinkHealthKeeper::poll(std::int64_t nowMs, FleetChanges& changes) {
    ++polls_;
    fillSamples(nowMs);
    watch_.poll(nowMs, samples_);

    v1::LinkHealthSummary summary;
    if (nowMs >= nextSweepMs_) {
        nextSweepMs_ = nowMs + options_.sweepMs;
        noteworthy_.clear();
        std::uint32_t judged = 0, warning = 0, error = 0;
        for (std::uint32_t i = 0; i < links_.size(); ++i) {
            const CableJudgement cable = watch_.cable(i);
            if (cable.verdict != BerVerdict::NoData && cable.verdict != BerVerdict::Judging) ++judged;
            if (cable.verdict == BerVerdict::Warning) ++warning;
            if (cable.verdict == BerVerdict::Error) ++error;
            if (noteworthy(cable.verdict)) noteworthy_.push_back(i);
        }
        summary.set_judged(judged);
        summary.set_warning(warning);
        summary.set_error(error);
    } else {
        summary.set_judged(summary_.judged());
        summary.set_warning(summary_.warning());
        summary.set_error(summary_.error());
    }

    std::map<std::uint32_t, LinkLadderEntry> ladder = followLadder(nowMs);
    std::vector<std::uint32_t> toList = linksToList();
    for (const auto& [link, entry] : ladder)
        if (std::find(toList.begin(), toList.end(), link) == toList.end()) toList.push_back(link);
    std::map<std::uint32_t, v1::LinkHealth> listed;
    double atStakeHours = 0;
    for (const std::uint32_t link : toList) {
        v1::LinkHealth health = healthOf(link, nowMs);
        if (const auto entry = ladder.find(link); entry != ladder.end()) applyStage(entry->second, health);
        if (health.at_risk()) atStakeHours += health.at_stake().unplanned_gpu_hours();
        const auto before = listed_.find(health.nic_port_index());
        if (before != listed_.end() && before->second.stage() == health.stage())
            health.set_stage_since_unix_ms(before->second.stage_since_unix_ms());
        if (before == listed_.end() || before->second.SerializeAsString() != health.SerializeAsString())
            changes.linkHealth.push_back(health);
        listed.emplace(health.nic_port_index(), std::move(health));
    }
    if (ladder_) {
        std::map<std::string, LinkLadderBook::AtStake> stakes;
        for (const auto& [entity, health] : listed)
            stakes.emplace(health.name(), LinkLadderBook::AtStake{health.at_stake().unplanned_gpu_hours() * 3600,
                                                                  health.at_stake().next_checkpoint_unix_ms(),
                                                                  health.at_risk(), health.forecast().confirmed_error(),
                                                                  health.forecast().p_error_or_down_6h()});
        ladder_->setAtStake(std::move(stakes));
    }
    for (const auto& [entity, health] : listed_) {
        if (listed.count(entity)) continue;
        v1::LinkHealth gone = health;
        gone.set_retired(true);
        changes.linkHealth.push_back(std::move(gone));
    }
    listed_ = std::move(listed);

    summary.set_links(std::uint32_t(links_.size()));
    summary.set_at_risk(std::uint32_t(watch_.atRisk().size()));
    summary.set_isolation_budget(std::uint32_t(watch_.isolationBudget()));
    if (ladder_) {
        summary.set_isolated(std::uint32_t(ladder_->isolatedNow()));
        summary.set_automation_on(ladder_->automationOn());
        summary.set_automation_dry_run(ladder_->automationDryRun());
    }
    summary.set_at_stake_gpu_hours(rounded(atStakeHours));
    if (summary.SerializeAsString() != summary_.SerializeAsString() || polls_ == 1) {
        summary_ = summary;
        changes.hasLinkSummary = true;
        changes.linkSummary = summary_;
    }
}

std::map<std::uint32_t, LinkLadderEntry> LinkHealthKeeper::followLadder(std::int64_t nowMs) {
    std::map<std::uint32_t, LinkLadderEntry> held;
    if (!ladder_) return held;
    for (auto& [name, entry] : ladder_->entries()) {
        const auto found = linkOfName_.find(name);
        if (found == linkOfName_.end() || entry.stage == v1::LINK_STAGE_UNSPECIFIED) continue;
        const std::uint32_t link = found->second;
        if (entry.stage == v1::LINK_STAGE_TREATED) judgeCleanWindow(link, name, entry, nowMs);
        if (entry.stage == v1::LINK_STAGE_RETURNED || entry.stage == v1::LINK_STAGE_PROPOSED) {
            // Listed while it matters: a returned link for an hour, a proposal while it is at risk.
            const auto [seen, first] = returnedSeenMs_.emplace(link, nowMs);
            const bool stale = entry.stage == v1::LINK_STAGE_RETURNED ? nowMs - seen->second > kReturnedListedMs
                                                                      : !watch_.risk(link).atRisk;
            if (stale) {
                ladder_->forget(name);
                returnedSeenMs_.erase(seen);
                continue;
            }
        } else {
            returnedSeenMs_.erase(link);
        }
        held.emplace(link, std::move(entry));
    }
    return held;
}

void LinkHealthKeeper::judgeCleanWindow(std::uint32_t link, const std::string& name, LinkLadderEntry& entry,
                                        std::int64_t nowMs) {
    if (ladder_->takeWindowRestart(name)) watch_.restartWindow(link);
    const SymbolBerEstimate host = watch_.estimate(link, LinkEnd::Host);
    const SymbolBerEstimate far = watch_.estimate(link, LinkEnd::Switch);
    const CableJudgement cable = watch_.cable(link, host, far);
    const std::uint32_t downs = watch_.downsSinceRestart(link);
    const bool hostClean = host.verdict == BerVerdict::Normal;
    const bool farClean = cable.oneEndSeen || far.verdict == BerVerdict::Normal;
    const bool passed = downs == 0 && hostClean && farClean;
    std::string text;
    if (downs > 0) {
        // Not clean: the window starts again from here.
        watch_.restartWindow(link);
        text = "went down since the treatment: its clean window starts again";
    } else if (passed) {
        text = "clean window passed: ready to return";
    } else {
        const SymbolBerEstimate& behind = !hostClean ? host : far;
        const std::string end = !hostClean ? "host" : "switch";
        text = behind.verdict == BerVerdict::NoData ? "clean window: no bits carried yet at the " + end + " end"
                                                    : "clean window, " + end + " end: " + behind.text();
    }
    ladder_->setCleanWindow(name, passed, text);
    entry.cleanWindowPassed = passed;
    entry.cleanWindowText = text;
    // At the pace the ends carry bits now, the slower one's window ends then.
    double remainingS = 0;
    for (const SymbolBerEstimate* e : {&host, &far})
        if ((e == &host || !cable.oneEndSeen) && e->neededSeconds > e->windowSeconds)
            remainingS = std::max(remainingS, e->neededSeconds - e->windowSeconds);
    if (!passed) {
        passedMs_.erase(link);
        entry.returnAfterMs = nowMs + std::int64_t(std::ceil(remainingS / 60) * 60'000);
    } else {
        entry.returnAfterMs = passedMs_.emplace(link, nowMs).first->second;  // when it passed, kept
    }
}

void LinkHealthKeeper::applyStage(const LinkLadderEntry& entry, v1::LinkHealth& health) {
    health.set_stage(entry.stage);
    health.set_stage_reason(
        entry.stage == v1::LINK_STAGE_TREATED && !entry.cleanWindowText.empty() ? entry.cleanWindowText : entry.reason);
    health.set_stage_since_unix_ms(entry.sinceUnixMs);
    health.set_operation_id(entry.operationId);
    health.set_treatment(entry.treatment);
    health.set_treated_end(entry.treatedEnd);
    health.set_treated_by(entry.treatedBy);
    // The ladder's times are the wall clock's (its operations'), not the keeper's fleet time.
    health.set_isolations_30d(std::uint32_t(entry.isolationsWithin30Days(wallNowMs())));
    if (entry.stage == v1::LINK_STAGE_TREATED) health.set_return_after_unix_ms(entry.returnAfterMs);
}

v1::LinkHealth LinkHealthKeeper::healthOf(std::uint32_t link, std::int64_t nowMs) const {
    const Link& l = links_[link];
    v1::LinkHealth h;
    h.set_nic_port_index(l.entity);
    h.set_name(l.name);
    const SymbolBerEstimate host = watch_.estimate(link, LinkEnd::Host);
    const SymbolBerEstimate far = watch_.estimate(link, LinkEnd::Switch);
    const CableJudgement cable = watch_.cable(link, host, far);
    fillBer(host, h.mutable_host_end());
    fillBer(far, h.mutable_switch_end());
    h.set_verdict(linkVerdictOf(cable.verdict));
    h.set_one_end_seen(cable.oneEndSeen);
    const LinkRisk& risk = watch_.risk(link);
    h.set_at_risk(risk.atRisk || risk.confirmedError);

    const LinkForecast f = watch_.forecast(link);
    v1::LinkForecast* forecast = h.mutable_forecast();
    forecast->set_p_error_or_down_1h(rounded(f.errorOrDown[0]));
    forecast->set_p_error_or_down_6h(rounded(f.errorOrDown[1]));
    forecast->set_p_error_or_down_24h(rounded(f.errorOrDown[2]));
    forecast->set_hours_to_warning(hoursOrNone(f.toWarning.hours));
    forecast->set_hours_to_error(hoursOrNone(f.toError.hours));
    forecast->set_hours_to_error_low(hoursOrNone(f.toError.earliestHours));
    forecast->set_hours_to_error_high(hoursOrNone(f.toError.latestHours));
    forecast->set_decades_per_day(f.trendFitted ? rounded(f.decadesPerDay) : 0);
    forecast->set_confirmed_error(f.confirmedError);
    for (int i = 0; i < f.influencerCount; ++i) {
        const Influencer& in = f.influencers[std::size_t(i)];
        auto* out = forecast->add_influencers();
        out->set_counter(influenceName(in.what));
        out->set_recent(rounded(in.recent));
        out->set_baseline(rounded(in.baseline));
        out->set_text(influencerText(in));
    }
    // The worse end's buckets, oldest first: the chart's points.
    const int end = static_cast<int>(cable.worstEnd);
    std::vector<v1::LinkBerPoint> points;
    watch_.history(link).forEachNewestFirst(nowMs, [&](const LinkBucket& b, std::int64_t, std::int64_t endMs) {
        if (b.bits[end] <= 0) return;
        v1::LinkBerPoint p;
        p.set_time_unix_ms(endMs);
        const double errors = b.errors[end], bits = b.bits[end];
        const RateInterval interval = poissonRateInterval(errors, bits);
        p.set_upper_only(interval.upperOnly);
        p.set_ber(rounded(interval.point));
        p.set_upper(rounded(interval.upper));
        points.push_back(std::move(p));
    });
    for (auto it = points.rbegin(); it != points.rend(); ++it) *forecast->add_history() = *it;

    atStake(l.node, nowMs, h.mutable_at_stake());
    const PacketErrorEstimate packets = watch_.packetErrors(link);
    h.set_packet_error_ratio(packets.known ? rounded(packets.ratio) : -1.0);

    if (h.at_risk() || berVerdictRank(cable.verdict) >= berVerdictRank(BerVerdict::Warning)) {
        h.set_stage(v1::LINK_STAGE_WATCH);
        h.set_stage_reason(f.confirmedError ? "errors prove the BER over the Error line now"
                           : h.at_risk()    ? "P(Error or down within 6 h) " + percent(f.errorOrDown[1])
                                            : std::string("BER ") + berVerdictName(cable.verdict));
    }
    h.set_stage_since_unix_ms(nowMs);
    return h;
}

void LinkHealthKeeper::atStake(std::uint32_t node, std::int64_t nowMs, v1::LinkAtStake* out) const {
    double gpus = 0, unplanned = 0, planned = 0;
    std::int64_t nextCheckpoint = 0;
    for (const auto& [index, job] : jobs_) {
        if (std::find(job.node_indexes().begin(), job.node_indexes().end(), node) == job.node_indexes().end()) continue;
        out->add_job_indexes(index);
        const double sinceCheckpoint = job.last_checkpoint_unix_ms() > 0
                                           ? std::max<double>(0, double(nowMs - job.last_checkpoint_unix_ms()) / 1000)
                                           : 0;
        gpus += job.gpu_count();
        unplanned += job.gpu_count() * (options_.restartSeconds + sinceCheckpoint) / 3600;
        planned += job.gpu_count() * options_.restartSeconds / 3600;
        if (job.last_checkpoint_unix_ms() > 0 && job.checkpoint_interval_s() > 0) {
            const auto next = job.last_checkpoint_unix_ms() + std::int64_t(job.checkpoint_interval_s() * 1000);
            nextCheckpoint = nextCheckpoint == 0 ? next : std::min(nextCheckpoint, next);
        }
    }
    out->set_gpus(std::uint32_t(gpus));
    out->set_unplanned_gpu_hours(rounded(unplanned));
    out->set_planned_gpu_hours(rounded(planned));
    out->set_next_checkpoint_unix_ms(nextCheckpoint);
}

}  // namespace watchfloor::server
