#pragma once
// Text for a reading as an operator should see it: a number with its unit, "n/a" for a blank
// (the source said it has no value), "—" for never reported. Never a made-up zero.

#include "client/Freshness.h"

#include <QString>

namespace watchfloor::client {

QString formatReading(const Reading& reading, int decimals, const QString& unit);
// "3 s ago", "2 min ago", "never"
QString formatAge(const Reading& reading);

}  // namespace watchfloor::client
