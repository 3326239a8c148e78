#include "ValueFormat.h"

#include <cmath>

namespace watchfloor::client {

QString formatReading(const Reading& reading, const QString& unit, int decimals, ReadingText text) {
    switch (reading.freshness) {
    case Freshness::Missing: return QStringLiteral("—");
    case Freshness::Blank: return QStringLiteral("n/a");
    case Freshness::Fresh:
    case Freshness::Stale:
    case Freshness::Silent: break;
    }
    QString value = formatValue(reading.value, unit, decimals);
    if (text == ReadingText::ValueOnly) return value;
    if (reading.freshness == Freshness::Stale)
        value += QStringLiteral(" (stale %1)").arg(formatAge(reading.age));
    else if (reading.freshness == Freshness::Silent)
        value += QStringLiteral(" (last read %1, source silent)").arg(formatAge(reading.age));
    return value;
}

QString formatValue(double value, const QString& unit, int decimals) {
    if (std::isnan(value)) return QStringLiteral("n/a");
    const QString number = QString::number(value, 'f', decimals);
    return unit.isEmpty() ? number : number + QLatin1Char(' ') + unit;
}

QString formatRatioPercent(double ratio, int decimals) {
    return std::isnan(ratio) ? QStringLiteral("n/a")
                             : QString::number(ratio * 100.0, 'f', decimals) + QStringLiteral(" %");
}

QString formatDuration(double seconds) {
    if (std::isnan(seconds) || seconds < 0) return QStringLiteral("n/a");
    if (seconds < 120) return QStringLiteral("%1 s").arg(qRound(seconds));
    if (seconds < 7200) return QStringLiteral("%1 min").arg(qRound(seconds / 60.0));
    if (seconds < 48 * 3600) {
        const int minutes = qRound(seconds / 60.0);
        return QStringLiteral("%1 h %2 min").arg(minutes / 60).arg(minutes % 60);
    }
    return QStringLiteral("%1 d").arg(seconds / 86400.0, 0, 'f', 1);
}

QString formatAge(std::chrono::milliseconds age) { return formatDuration(double(age.count()) / 1000.0); }

QString formatAge(const Reading& reading) {
    if (reading.freshness == Freshness::Missing) return QStringLiteral("never reported");
    return formatAge(reading.age) + QStringLiteral(" ago");
}

}  // namespace watchfloor::client
