#include "LinkWatch.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server {

LinkWatch::LinkWatch(std::size_t links, LinkWatchConfig config)
    : config_(config), forecaster_(config.forecast), states_(links) {
    ranked_.reserve(links);
}

std::size_t LinkWatch::bytesPerLink() { return sizeof(State); }

bool LinkWatch::takeEnd(State& s, int end, const PortCounterSample& sample, bool* stepError, std::uint32_t* downRises) {
    const PortInterval in = s.ends[end].advance(sample, config_.maxGapMs);
    if (in.events & kPortFirstSample) return false;
    ++stats_.intervals;
    if (in.events & kPortCleared) ++stats_.clears;
    if (in.events & kPortSaturated) ++stats_.saturatedIntervals;
    if (in.events & kPortRejected) ++stats_.rejected;
    if (in.events & kPortMissing) ++stats_.missing;
    if (in.events & kPortNoBits) ++stats_.noBits;
    if (in.seconds < 0) ++stats_.negativeRates;
    *downRises = in.linkDowned;
    if (in.recoveries) s.history.addRecoveries(in.recoveries);
    if (in.hasPackets) s.history.addPackets(double(in.packets), in.packetErrors);
    if (sample.has(PortField::ModuleTemperature)) s.history.addTemperature(sample.timeMs, sample.moduleTemperatureC);
    if (!in.hasSymbolErrors) {
        s.lastBits[end] = 0;
        s.lastErrors[end] = 0;
        return false;
    }
    s.history.addSymbol(static_cast<LinkEnd>(end), in.bits, in.symbolErrors);
    // The step check: this poll, and this poll with the one before, against the Error line.
    const double errors = in.symbolErrors;
    if (errors >= 1) {
        if (forecaster_.provesError(errors, in.bits) ||
            forecaster_.provesError(errors + s.lastErrors[end], in.bits + s.lastBits[end]))
            *stepError = true;
    }
    s.lastBits[end] = static_cast<float>(in.bits);
    s.lastErrors[end] = static_cast<std::uint16_t>(std::min<std::uint32_t>(in.symbolErrors, 65'535));
    return errors >= 1;
}

void LinkWatch::poll(std::int64_t nowMs, std::span<const LinkPollSample> samples) {
    nowMs_ = nowMs;
    const std::size_t n = std::min(samples.size(), states_.size());
    const int every = std::max(1, config_.forecastEveryPolls);
    for (std::size_t i = 0; i < n; ++i) {
        State& s = states_[i];
        const LinkPollSample& sample = samples[i];
        s.history.advanceTo(nowMs);
        bool stepError = false, moved = false;
        std::uint32_t rises[2] = {0, 0};
        if (sample.hostPresent) moved |= takeEnd(s, 0, sample.host, &stepError, &rises[0]);
        if (sample.switchPresent) moved |= takeEnd(s, 1, sample.switchEnd, &stepError, &rises[1]);

        if ((rises[0] || rises[1]) && s.downsSinceRestart < 65'535) ++s.downsSinceRestart;
        // Link-downs: both ends within the coincidence window, else a counter event at one end.
        for (int e = 0; e < 2; ++e)
            if (rises[e] && !s.pendingDown[e]) s.pendingDown[e] = 1;
        if (s.pendingDown[0] && s.pendingDown[1]) {
            s.history.addDown();
            ++stats_.confirmedDowns;
            s.pendingDown[0] = s.pendingDown[1] = 0;
            moved = true;
        } else {
            for (int e = 0; e < 2; ++e) {
                if (!s.pendingDown[e]) continue;
                if (s.pendingDown[e] > config_.downCoincidencePolls) {
                    ++stats_.oneEndedDowns;
                    s.pendingDown[e] = 0;
                } else {
                    ++s.pendingDown[e];
                }
            }
        }

        if (stepError) {
            s.risk.confirmedError = true;
            s.risk.atRisk = true;
        }
        const bool scheduled = (polls_ + i) % every == 0;
        if (scheduled || stepError || (moved && s.risk.atRisk)) {
            refresh(s, nowMs, forecaster_.screen(s.history, nowMs));
        } else if (moved) {
            // Cheap screen first: a forecast only when something left the baseline.
            const LinkForecaster::Screen screened = forecaster_.screen(s.history, nowMs);
            if (screened.anything()) refresh(s, nowMs, screened);
        }
    }
    ++polls_;
    rank();
}

void LinkWatch::refresh(State& s, std::int64_t nowMs, const LinkForecaster::Screen& screened) {
    ++stats_.forecasts;
    LinkRisk risk;
    if (screened.anything()) {
        const LinkForecast f = forecaster_.forecast(s.history, nowMs, screened);
        for (int h = 0; h < 3; ++h) risk.errorOrDown[h] = static_cast<float>(f.errorOrDown[h]);
        risk.hoursToError = std::isfinite(f.toError.hours) ? static_cast<float>(f.toError.hours) : -1.0f;
        risk.confirmedError = f.confirmedError;
        risk.atRisk = forecaster_.atRisk(f);
    }
    // A step seen on the last polls stays confirmed until the window says otherwise.
    if (s.risk.confirmedError && !risk.confirmedError && s.lastErrors[0] + s.lastErrors[1] > 0) {
        risk.confirmedError = true;
        risk.atRisk = true;
    }
    s.risk = risk;
}

void LinkWatch::rank() {
    ranked_.clear();
    for (std::size_t i = 0; i < states_.size(); ++i)
        if (states_[i].risk.atRisk) ranked_.push_back(static_cast<std::uint32_t>(i));
    std::sort(ranked_.begin(), ranked_.end(), [this](std::uint32_t a, std::uint32_t b) {
        const LinkRisk& x = states_[a].risk;
        const LinkRisk& y = states_[b].risk;
        if (x.confirmedError != y.confirmedError) return x.confirmedError;
        if (x.errorOrDown[1] != y.errorOrDown[1]) return x.errorOrDown[1] > y.errorOrDown[1];
        return a < b;
    });
}

SymbolBerEstimate windowEstimate(const LinkHistory& history, LinkEnd end, std::int64_t nowMs,
                                 const PortTracker& tracker, const SymbolBerLines& lines) {
    const int e = static_cast<int>(end);
    double bits = 0, errors = 0;
    history.forEachNewestFirst(nowMs, [&](const LinkBucket& b, std::int64_t, std::int64_t) {
        if (bits >= kJudgingWindowBits) return;
        bits += b.bits[e];
        errors += b.errors[e];
    });
    return judgeSymbolBer(errors, bits, tracker.bitsPerSecond(), tracker.saturated(), lines);
}

SymbolBerEstimate LinkWatch::estimate(std::size_t link, LinkEnd end) const {
    const State& s = states_[link];
    return windowEstimate(s.history, end, nowMs_, s.ends[static_cast<int>(end)], config_.forecast.lines);
}

CableJudgement LinkWatch::cable(std::size_t link) const {
    return cable(link, estimate(link, LinkEnd::Host), estimate(link, LinkEnd::Switch));
}

CableJudgement LinkWatch::cable(std::size_t link, const SymbolBerEstimate& host,
                                const SymbolBerEstimate& switchEnd) const {
    return judgeCable(host, states_[link].ends[1].seen() ? &switchEnd : nullptr);
}

PacketErrorEstimate LinkWatch::packetErrors(std::size_t link) const {
    double packets = 0, errors = 0;
    states_[link].history.forEachNewestFirst(nowMs_, [&](const LinkBucket& b, std::int64_t, std::int64_t) {
        packets += b.packets;
        errors += b.packetErrors;
    });
    return judgePacketErrors(errors, packets);
}

LinkForecast LinkWatch::forecast(std::size_t link) const { return forecaster_.forecast(states_[link].history, nowMs_); }

void LinkWatch::restartWindow(std::size_t link) {
    State& s = states_[link];
    s.history.restart();
    s.risk = {};
    s.lastBits[0] = s.lastBits[1] = 0;
    s.lastErrors[0] = s.lastErrors[1] = 0;
    s.downsSinceRestart = 0;
}

}  // namespace watchfloor::server
