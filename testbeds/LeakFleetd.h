#pragma once
// The rewind tests' fleet: the real fleetd's twin at 60 simulated seconds per wall second with
// one scripted fault, a coolant leak in r03 at 90 s that isolates the rack, so a moment before it
// (r03 in service, no leak incident, coolant flowing) and the live fleet (r03 isolated) differ in
// every way the console shows.

#include "FleetdProcess.h"

#include <QFile>
#include <QTemporaryDir>

namespace watchfloor::testing {

inline constexpr std::int64_t kLeakAtSimMs = 90'000;

inline bool startLeakFleetd(FleetdProcess& fleetd, const QTemporaryDir& dir, QString* error) {
    const QString scenario = dir.filePath(QStringLiteral("leak.scn"));
    QFile file(scenario);
    if (!file.open(QIODevice::WriteOnly) || file.write("at 90s leak rack=r03\n") < 0) {
        *error = QStringLiteral("cannot write %1").arg(scenario);
        return false;
    }
    file.close();
    if (fleetd.start({QStringLiteral("--seed"), QStringLiteral("11"), QStringLiteral("--speed"), QStringLiteral("60"),
                      QStringLiteral("--scenario"), scenario}))
        return true;
    *error = fleetd.errorString();
    return false;
}

}  // namespace watchfloor::testing
