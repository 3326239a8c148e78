#pragma once
// One displayed value and how much it can be trusted. Widgets never show a stale or missing value
// as if it were a fresh one: stale values are drawn hatched/greyed, missing ones as an empty outline
// with "n/a": stale or missing data is drawn as such, never as a healthy zero.

#include <cmath>
#include <limits>

namespace watchfloor::widgets {

enum class Freshness : unsigned char {
    Fresh,    // measured within the source's expected interval
    Stale,    // last known value, older than the freshness budget: show it, but visibly aged
    Missing,  // never measured, or the source reported blank (DCGM blank sentinel): no value at all
    // The last value read from a source that went silent (its exporter stopped answering or keeps
    // repeating itself): stale, and the reason is known. Neither failed nor healthy.
    Silent,
};

struct Reading {
    float value = std::numeric_limits<float>::quiet_NaN();
    Freshness freshness = Freshness::Missing;

    static Reading fresh(float v) { return {v, Freshness::Fresh}; }
    static Reading stale(float v) { return {v, Freshness::Stale}; }
    static Reading silent(float v) { return {v, Freshness::Silent}; }
    static Reading missing() { return {}; }

    // A NaN value is missing whatever the flag says: a blank is never a reading.
    bool isMissing() const { return freshness == Freshness::Missing || std::isnan(value); }
    // Silent values are stale too, so a widget that knows only "stale" never draws one as fresh.
    bool isStale() const { return !isMissing() && (freshness == Freshness::Stale || freshness == Freshness::Silent); }
    bool isSilent() const { return !isMissing() && freshness == Freshness::Silent; }
};

}  // namespace watchfloor::widgets
