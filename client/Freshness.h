#pragma once
// How much a displayed value can be trusted. Every reading the store hands out carries one, so a
// view never draws stale or absent data as a healthy number.

#include <QMetaType>
#include <QString>

#include <chrono>
#include <cstdint>
#include <limits>

namespace watchfloor::client {

enum class Freshness : std::uint8_t {
    Fresh,    // reported recently by a Live endpoint
    Stale,    // older than the stale threshold (server time), or the endpoint is not Live
    Missing,  // never reported
    Blank,    // the source reported "blank" (DCGM sentinel, sent as NaN): not a reading
    // The tray's telemetry source is silent (fleetd scrapes its exporters, and one stopped
    // answering or keeps repeating the same values): the last value read, aging. Says nothing
    // about the tray itself: neither failed nor healthy.
    Silent,
};

QString displayName(Freshness f);

// One value with its provenance. `value` is NaN unless freshness is Fresh, Stale or Silent.
struct Reading {
    float value = std::numeric_limits<float>::quiet_NaN();
    std::int64_t sampleTimeUnixMs = 0;  // server clock; 0 = never reported
    std::chrono::milliseconds age{0};   // server now - sample time
    Freshness freshness = Freshness::Missing;

    bool hasValue() const {
        return freshness == Freshness::Fresh || freshness == Freshness::Stale || freshness == Freshness::Silent;
    }
};

}  // namespace watchfloor::client

Q_DECLARE_METATYPE(watchfloor::client::Freshness)
