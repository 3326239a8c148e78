#include "client/models/ValueFormat.h"

namespace watchfloor::client {

QString formatReading(const Reading& reading, int decimals, const QString& unit) {
    switch (reading.freshness) {
    case Freshness::Missing: return QStringLiteral("—");
    case Freshness::Blank: return QStringLiteral("n/a");
    case Freshness::Fresh:
    case Freshness::Stale:
    case Freshness::Silent: break;
    }
    const QString number = QString::number(double(reading.value), 'f', decimals);
    return unit.isEmpty() ? number : number + QLatin1Char(' ') + unit;
}

QString formatAge(const Reading& reading) {
    if (reading.freshness == Freshness::Missing) return QStringLiteral("never reported");
    const qint64 s = reading.age.count() / 1000;
    if (s < 120) return QStringLiteral("%1 s ago").arg(s);
    if (s < 7200) return QStringLiteral("%1 min ago").arg(s / 60);
    return QStringLiteral("%1 h ago").arg(s / 3600);
}

}  // namespace watchfloor::client
