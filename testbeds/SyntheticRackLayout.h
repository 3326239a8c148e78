#pragma once
// A made-up fleet laid out like a real one (regions → halls → rows of racks) for widget tests and
// the paint benchmark. Not telemetry: values are whatever the test sets.

#include "RackMapLayout.h"

#include <QString>

#include <vector>

namespace watchfloor::widgets::testing {

inline std::vector<RackPlacement> syntheticFleet(int rackCount, int racksPerRow = 20, int rowsPerHall = 15,
                                                 int hallsPerRegion = 3) {
    std::vector<RackPlacement> racks;
    racks.reserve(static_cast<std::size_t>(rackCount));
    const int perHall = racksPerRow * rowsPerHall;
    const int perRegion = perHall * hallsPerRegion;
    for (int i = 0; i < rackCount; ++i) {
        const int region = i / perRegion;
        const int hall = (i % perRegion) / perHall;
        const int row = (i % perHall) / racksPerRow;
        const int pos = i % racksPerRow;
        RackPlacement p;
        p.region = region == 0 ? QStringLiteral("us-east") : QStringLiteral("eu-west-%1").arg(region);
        p.hall = QStringLiteral("Hall %1").arg(QChar('A' + hall));
        p.row = QStringLiteral("R%1").arg(row + 1, 2, 10, QChar('0'));
        p.label = QStringLiteral("%1%2-%3").arg(QChar('a' + hall)).arg(row + 1).arg(pos + 1, 2, 10, QChar('0'));
        p.id = QStringLiteral("%1/%2").arg(p.region, p.label);
        racks.push_back(p);
    }
    return racks;
}

}  // namespace watchfloor::widgets::testing
