#include "SymbolBerEstimate.h"

#include "PoissonBounds.h"

#include <cmath>
#include <cstdio>

namespace watchfloor::server {

const char* berVerdictName(BerVerdict verdict) {
    switch (verdict) {
    case BerVerdict::NoData: return "no data";
    case BerVerdict::Judging: return "judging";
    case BerVerdict::Normal: return "normal";
    case BerVerdict::Elevated: return "elevated";
    case BerVerdict::Saturated: return "saturated";
    case BerVerdict::Warning: return "warning";
    case BerVerdict::Error: return "error";
    }
    return "?";
}

int berVerdictRank(BerVerdict verdict) {
    switch (verdict) {
    case BerVerdict::NoData: return 0;
    case BerVerdict::Normal: return 1;
    case BerVerdict::Judging: return 2;
    case BerVerdict::Elevated: return 3;
    case BerVerdict::Saturated: return 4;
    case BerVerdict::Warning: return 5;
    case BerVerdict::Error: return 6;
    }
    return 0;
}

SymbolBerEstimate judgeSymbolBer(double errors, double bits, double bitsPerSecond, bool saturated,
                                 const SymbolBerLines& lines) {
    SymbolBerEstimate e;
    e.errors = errors;
    e.bits = bits;
    if (bitsPerSecond > 0) {
        e.windowSeconds = bits / bitsPerSecond;
        e.neededSeconds = kJudgingWindowBits / bitsPerSecond;
    }
    if (saturated) {
        e.verdict = BerVerdict::Saturated;
        return e;
    }
    const RateInterval interval = poissonRateInterval(errors, bits);
    if (!interval.known) return e;
    e.point = interval.point;
    e.lower = interval.lower;
    e.upper = interval.upper;
    e.upperOnly = interval.upperOnly;
    if (e.lower > lines.error)
        e.verdict = BerVerdict::Error;
    else if (e.lower > lines.warning)
        e.verdict = BerVerdict::Warning;
    else if (bits < kJudgingWindowBits)
        e.verdict = BerVerdict::Judging;
    else
        e.verdict = e.point <= lines.normal ? BerVerdict::Normal : BerVerdict::Elevated;
    return e;
}

std::string SymbolBerEstimate::text() const {
    char buffer[96];
    switch (verdict) {
    case BerVerdict::NoData: return "no BER";
    case BerVerdict::Saturated: return "saturated (clear the counter)";
    case BerVerdict::Judging:
        if (!upperOnly) {
            std::snprintf(buffer, sizeof buffer, "judging, %.0f of %.0f min (%.1e so far)",
                          std::floor(windowSeconds / 60), std::ceil(neededSeconds / 60), point);
        } else {
            std::snprintf(buffer, sizeof buffer, "judging, %.0f of %.0f min", std::floor(windowSeconds / 60),
                          std::ceil(neededSeconds / 60));
        }
        return buffer;
    default: break;
    }
    if (upperOnly)
        std::snprintf(buffer, sizeof buffer, "\u2264 %.1e (95 %%)", upper);
    else
        std::snprintf(buffer, sizeof buffer, "%.1e (%.1e \u2026 %.1e)", point, lower, upper);
    return buffer;
}

PacketErrorEstimate judgePacketErrors(double errors, double packets) {
    PacketErrorEstimate e;
    const RateInterval interval = poissonRateInterval(errors, packets);
    if (!interval.known) return e;
    e.known = true;
    e.packets = packets;
    e.ratio = interval.point;
    e.lower = interval.lower;
    e.upper = interval.upper;
    e.overLine = e.lower > kPacketErrorLine;
    return e;
}

}  // namespace watchfloor::server
