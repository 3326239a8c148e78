#include "LinkForecaster.h"

#include "PoissonBounds.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server {

namespace {

constexpr double kHourMs = 3'600'000.0;
constexpr double kLn10 = 2.302585092994046;
// Prior spread of the slope, ln(BER) per hour: keeps a fit on a handful of errors finite without
// holding back a real drift (one decade in 2.3 h is one sigma) [A].
constexpr double kSlopePriorSigma = 1.0;
// A single confirmed link-down is not yet a flap: the down rate is shrunk by this many hours [A].
constexpr double kDownShrinkHours = 4.0;
constexpr double kTemperatureSigma = 2.0;  // °C a module swings without meaning anything [A]
constexpr double kScanStepHours = 0.25;
constexpr double kScanHorizonHours = 72.0;

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// The screen's windows [A]: every hour up to 4 h, then 6 h and the whole 8 h. A fast drift's
// errors sit in its last two or three hours, a slow one's spread over all eight; with only 1, 2 and
// 8 h, drifts of 6-8 h from onset to Error were flagged less than an hour before crossing.
constexpr std::array<double, 6> kScreenWindowsHours = {1, 2, 3, 4, 6, 8};
// The trend's likelihood ratio is asked only with this many errors at an end in 8 h: with fewer
// the fit is mostly its slope prior [A].
constexpr double kTrendGateMinErrors = 3;

struct Sums {
    double bits[2] = {0, 0};
    double errors[2] = {0, 0};
    double packets = 0;
    double packetErrors = 0;
    double downs = 0;
    double recoveries = 0;
    double hours = 0;

    void add(const LinkBucket& b, std::int64_t start, std::int64_t end, std::int64_t nowMs) {
        for (int e = 0; e < 2; ++e) {
            bits[e] += b.bits[e];
            errors[e] += b.errors[e];
        }
        packets += b.packets;
        packetErrors += b.packetErrors;
        downs += b.downs;
        recoveries += b.recoveries;
        hours += double(std::min<std::int64_t>(end, nowMs) - start) / kHourMs;
    }
};

// A window of `hours` holds the buckets that started within it (the current one included).
bool startsWithin(std::int64_t start, std::int64_t nowMs, double hours) {
    return double(start) >= double(nowMs) - hours * kHourMs - 1;
}

// A bucket's middle in hours before now (negative), as the trend's time axis.
double bucketHours(std::int64_t start, std::int64_t stop, std::int64_t nowMs) {
    return (0.5 * double(start + std::min<std::int64_t>(stop, nowMs)) - double(nowMs)) / kHourMs;
}

Sums recentSums(const LinkHistory& history, std::int64_t nowMs, double hours) {
    Sums s;
    history.forEachNewestFirst(nowMs, [&](const LinkBucket& b, std::int64_t start, std::int64_t end) {
        if (startsWithin(start, nowMs, hours)) s.add(b, start, end, nowMs);
    });
    return s;
}

// Poisson regression of errors on time with the bits as exposure: errors_i ~ Poisson(bits_i ·
// exp(a + c·t_i)), t in hours before now. Zero-error buckets are data here, which is why this and
// not a robust line through log10 points (a quiet bucket has no log).
struct Trend {
    bool ok = false;
    double a = 0, c = 0;
    double vaa = 0, vac = 0, vcc = 0;
    double lnAt(double h) const { return a + c * h; }
    double sdAt(double h) const { return std::sqrt(std::max(0.0, vaa + 2 * h * vac + h * h * vcc)); }
};

Trend fitTrend(const LinkHistory& history, std::int64_t nowMs, int end) {
    constexpr int kMax = LinkHistory::kBuckets + 1;
    double t[kMax], y[kMax], b[kMax];
    int n = 0;
    double totalErrors = 0, totalBits = 0;
    history.forEachNewestFirst(nowMs, [&](const LinkBucket& bucket, std::int64_t start, std::int64_t stop) {
        if (bucket.bits[end] <= 0 || n >= kMax) return;
        t[n] = bucketHours(start, stop, nowMs);
        y[n] = bucket.errors[end];
        b[n] = bucket.bits[end];
        totalErrors += y[n];
        totalBits += b[n];
        ++n;
    });
    Trend trend;
    if (n < 2 || totalErrors <= 0) return trend;
    double a = std::log((totalErrors + 0.5) / totalBits), c = 0;
    double haa = 0, hac = 0, hcc = 0;
    for (int iteration = 0; iteration < 25; ++iteration) {
        double ga = 0, gc = -c / (kSlopePriorSigma * kSlopePriorSigma);
        haa = hac = 0;
        hcc = 1.0 / (kSlopePriorSigma * kSlopePriorSigma);
        for (int i = 0; i < n; ++i) {
            const double mu = b[i] * std::exp(a + c * t[i]);
            ga += y[i] - mu;
            gc += (y[i] - mu) * t[i];
            haa += mu;
            hac += mu * t[i];
            hcc += mu * t[i] * t[i];
        }
        const double det = haa * hcc - hac * hac;
        if (!(det > 0)) return trend;
        double da = (hcc * ga - hac * gc) / det;
        double dc = (haa * gc - hac * ga) / det;
        da = std::clamp(da, -3.0, 3.0);
        dc = std::clamp(dc, -1.0, 1.0);
        a += da;
        c += dc;
        if (std::fabs(da) < 1e-6 && std::fabs(dc) < 1e-6) break;
    }
    const double det = haa * hcc - hac * hac;
    if (!(det > 0) || !std::isfinite(a) || !std::isfinite(c)) return trend;
    trend.ok = true;
    trend.a = a;
    trend.c = c;
    trend.vaa = hcc / det;
    trend.vac = -hac / det;
    trend.vcc = haa / det;
    return trend;
}

// Whether one end's trend has risen off the baseline held flat: the likelihood ratio of the fitted
// line against the baseline's level over the same buckets, one-sided (the line must stand above the
// baseline now). With two parameters more than the flat line, twice the log ratio is chi-square
// with 2 degrees of freedom under a steady link, whose tail is exp(-ratio): the same alpha as the
// windows' count test. It weighs when the errors came, which a window's count cannot: a drift
// shows as errors crowding toward now.
bool risesOffBaseline(const LinkHistory& history, std::int64_t nowMs, int end, double baselineBer, double alpha) {
    const double needed = -std::log(alpha);
    // No line fits better than a rate of its own for every bucket: when even that ratio falls short
    // (a steady link's scattered errors, nearly always), the fit is not worth its Newton steps.
    double saturated = 0;
    history.forEachNewestFirst(nowMs, [&](const LinkBucket& bucket, std::int64_t, std::int64_t) {
        const double expected = bucket.bits[end] * baselineBer, errors = bucket.errors[end];
        if (expected <= 0) return;
        saturated += (errors > 0 ? errors * std::log(errors / expected) : 0.0) - (errors - expected);
    });
    if (saturated <= needed) return false;
    const Trend trend = fitTrend(history, nowMs, end);
    const double lnBase = std::log(baselineBer);
    if (!trend.ok || trend.lnAt(0) <= lnBase) return false;
    double logRatio = 0;
    history.forEachNewestFirst(nowMs, [&](const LinkBucket& bucket, std::int64_t start, std::int64_t stop) {
        if (bucket.bits[end] <= 0) return;
        const double t = bucketHours(start, stop, nowMs);
        const double fitted = trend.lnAt(t);
        logRatio += bucket.errors[end] * (fitted - lnBase) - bucket.bits[end] * (std::exp(fitted) - baselineBer);
    });
    return logRatio > needed;
}

// When the trend (and its 90 % band) first reaches ln(line), scanning the next 72 hours.
TimeToLine timeTo(const Trend& trend, double line) {
    TimeToLine out;
    const double target = std::log(line);
    if (trend.lnAt(0) >= target)
        out.hours = 0;
    else if (trend.c > 0)
        out.hours = (target - trend.a) / trend.c;
    for (double h = 0; h <= kScanHorizonHours; h += kScanStepHours) {
        const double sd = trend.sdAt(h);
        if (!std::isfinite(out.earliestHours) && trend.lnAt(h) + 1.645 * sd >= target) out.earliestHours = h;
        if (trend.lnAt(h) - 1.645 * sd >= target) {
            out.latestHours = h;
            break;
        }
    }
    return out;
}

double tailScore(double k, double expected) {
    if (k <= expected) return 0;
    const double p = poissonTailAtLeast(k, expected);
    return p > 0 ? -std::log10(p) : 300.0;
}

}  // namespace

const char* influenceName(Influence influence) {
    switch (influence) {
    case Influence::SymbolErrorsHost: return "symbol errors (host end)";
    case Influence::SymbolErrorsSwitch: return "symbol errors (switch end)";
    case Influence::LinkRecoveries: return "link error recoveries";
    case Influence::LinkDowns: return "link downs (both ends)";
    case Influence::PacketErrors: return "packet errors";
    case Influence::ModuleTemperature: return "module temperature";
    }
    return "?";
}

double LinkForecaster::baselineBer(const LinkDay& base, int end) const {
    if (base.bits[end] < kJudgingWindowBits) return config_.lines.normal;
    const RateInterval interval = poissonRateInterval(base.errors[end], base.bits[end]);
    return std::max(interval.upper, config_.baselineFloor);
}

bool LinkForecaster::provesError(double errors, double bits) const {
    if (!(bits > 0) || errors < 1) return false;
    return poissonTailAtLeast(errors, bits * config_.lines.error) < config_.confirmAlpha;
}

LinkForecaster::Screen LinkForecaster::screen(const LinkHistory& history, std::int64_t nowMs) const {
    Screen out;
    const LinkDay base = history.baseline();
    const double baseBer[2] = {baselineBer(base, 0), baselineBer(base, 1)};
    // One walk newest first; each window is judged when the walk leaves it.
    Sums s;
    std::size_t window = 0;
    auto judgeWindow = [&] {
        out.recentDowns = std::max(out.recentDowns, static_cast<std::uint32_t>(s.downs));
        for (int e = 0; e < 2; ++e) {
            if (s.bits[e] <= 0 || s.errors[e] < 1) continue;
            if (poissonTailAtLeast(s.errors[e], s.bits[e] * baseBer[e]) < config_.gateAlpha) out.aboveBaseline = true;
            if (provesError(s.errors[e], s.bits[e])) out.confirmedError = true;
        }
    };
    history.forEachNewestFirst(nowMs, [&](const LinkBucket& b, std::int64_t start, std::int64_t end) {
        for (; window < kScreenWindowsHours.size() && !startsWithin(start, nowMs, kScreenWindowsHours[window]);
             ++window)
            judgeWindow();
        if (window < kScreenWindowsHours.size()) s.add(b, start, end, nowMs);
    });
    for (; window < kScreenWindowsHours.size(); ++window) judgeWindow();
    for (int e = 0; e < 2 && !out.aboveBaseline; ++e)
        if (s.errors[e] >= kTrendGateMinErrors && risesOffBaseline(history, nowMs, e, baseBer[e], config_.gateAlpha))
            out.aboveBaseline = true;
    return out;
}

LinkForecast LinkForecaster::forecast(const LinkHistory& history, std::int64_t nowMs) const {
    return forecast(history, nowMs, screen(history, nowMs));
}

LinkForecast LinkForecaster::forecast(const LinkHistory& history, std::int64_t nowMs, const Screen& screened) const {
    LinkForecast f;
    f.aboveBaseline = screened.aboveBaseline;
    f.confirmedError = screened.confirmedError;
    const LinkDay base = history.baseline();
    const Sums recent = recentSums(history, nowMs, LinkHistory::kBuckets * 0.5);

    // The trend of the end whose errors say most.
    Trend best;
    for (int e = 0; e < 2; ++e) {
        const Trend trend = fitTrend(history, nowMs, e);
        if (!trend.ok) continue;
        if (!best.ok || trend.lnAt(6) > best.lnAt(6)) {
            best = trend;
            f.trendEnd = static_cast<LinkEnd>(e);
        }
    }
    f.trendFitted = best.ok;
    if (best.ok) {
        f.log10Ber = best.a / kLn10;
        f.decadesPerDay = best.c * 24 / kLn10;
        // The crossing times only where the probabilities below take the trend's word too: "Error in
        // 2.9 h" beside "< 1 % within 6 h" on a link that never left its baseline read as a broken
        // forecast (the twin's healthy links at 10 h).
        if (f.aboveBaseline || f.confirmedError) {
            f.toWarning = timeTo(best, config_.lines.warning);
            f.toError = timeTo(best, config_.lines.error);
        }
    }

    const double baseHours = 24.0 * history.baselineDays();
    const double downRate = std::max({recent.downs / (recent.hours + kDownShrinkHours),
                                      baseHours > 0 ? base.downs / baseHours : 0.0, config_.downPriorPerDay / 24.0});
    for (std::size_t i = 0; i < kForecastHorizonsHours.size(); ++i) {
        const double h = kForecastHorizonsHours[i];
        double pError = 0;
        if (f.confirmedError) {
            pError = 1;
        } else if (best.ok && f.aboveBaseline) {
            // Only a link that has left its own baseline gets a trend's word; a steady link's
            // noise extrapolated is no forecast.
            pError = normalCdf((best.lnAt(h) - std::log(config_.lines.error)) / std::max(1e-9, best.sdAt(h)));
        }
        f.down[i] = 1 - std::exp(-downRate * h);
        f.errorOrDown[i] = 1 - (1 - pError) * (1 - f.down[i]);
    }

    // Influencers: each counter's last 8 h against its 7-day baseline.
    std::array<Influencer, 6> all{};
    int n = 0;
    for (int e = 0; e < 2; ++e) {
        if (recent.bits[e] <= 0) continue;
        const double ber = baselineBer(base, e);
        all[n++] = {e == 0 ? Influence::SymbolErrorsHost : Influence::SymbolErrorsSwitch,
                    recent.errors[e] / recent.bits[e], ber, tailScore(recent.errors[e], ber * recent.bits[e])};
    }
    auto perHour = [&](double count, double floorPerDay) {
        return std::max(baseHours > 0 ? count / baseHours : 0.0, floorPerDay / 24.0);
    };
    if (recent.hours > 0) {
        const double recoveryBase = perHour(base.recoveries, 1.0);  // [A] one a day is unremarkable
        all[n++] = {Influence::LinkRecoveries, recent.recoveries / recent.hours, recoveryBase,
                    tailScore(recent.recoveries, recoveryBase * recent.hours)};
        const double downBase = perHour(base.downs, config_.downPriorPerDay);
        all[n++] = {Influence::LinkDowns, recent.downs / recent.hours, downBase,
                    tailScore(recent.downs, downBase * recent.hours)};
    }
    if (recent.packets > 0) {
        const double ratio = base.packets > 0 ? std::max(double(base.packetErrors) / base.packets, 1e-15) : 1e-15;
        all[n++] = {Influence::PacketErrors, recent.packetErrors / recent.packets, ratio,
                    tailScore(recent.packetErrors, ratio * recent.packets)};
    }
    const float temperature = history.recentTemperature();
    if (std::isfinite(temperature) && base.temperatureCount > 0) {
        const double mean = base.temperatureSum / base.temperatureCount;
        const double z = (temperature - mean) / kTemperatureSigma;
        const double p = 0.5 * std::erfc(z / std::sqrt(2.0));
        all[n++] = {Influence::ModuleTemperature, temperature, mean, z > 0 && p > 0 ? -std::log10(p) : 0.0};
    }
    // Insertion sort: six entries at most.
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && all[j].score > all[j - 1].score; --j) std::swap(all[j], all[j - 1]);
    for (int i = 0; i < n && f.influencerCount < 3; ++i)
        if (all[i].score >= 2) f.influencers[f.influencerCount++] = all[i];
    return f;
}

bool LinkForecaster::atRisk(const LinkForecast& forecast) const {
    return forecast.confirmedError || forecast.errorOrDown[1] >= config_.flagProbability;
}

}  // namespace watchfloor::server
