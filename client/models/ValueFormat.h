#pragma once
// The one place a number becomes text, for tables and pages alike: a reading with its unit, "n/a"
// for a blank (the source said it has no value), "—" for never reported, and, where a sentence has
// room, how old a stale or silent value is. Never a made-up zero.

#include "Freshness.h"

#include <QString>

#include <chrono>

namespace watchfloor::client {

enum class ReadingText {
    WithFreshness,  // "42.1 °C (stale 12 s)": cards, detail lines, tooltips
    ValueOnly,      // "42.1 °C": table cells, whose colour and tooltip carry the freshness
};

// "42.1 °C", "n/a" (blank), "—" (never reported), "42.1 °C (stale 12 s)",
// "42.1 °C (last read 3 min, source silent)".
QString formatReading(const Reading& reading, const QString& unit, int decimals = 1,
                      ReadingText text = ReadingText::WithFreshness);
QString formatValue(double value, const QString& unit, int decimals = 1);  // NaN → "n/a"
QString formatRatioPercent(double ratio, int decimals = 1);                // 0.873 → "87.3 %"
QString formatDuration(double seconds);            // 90 → "90 s", 5400 → "90 min", 9000 → "2 h 30 min"
QString formatAge(std::chrono::milliseconds age);  // "12 s", "3 min"
// "3 s ago", "2 min ago", "never reported"
QString formatAge(const Reading& reading);

}  // namespace watchfloor::client
