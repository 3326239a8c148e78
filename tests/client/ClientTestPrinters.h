#pragma once
// QCOMPARE printers for the client's enums, so failures show names instead of nothing.
#include "ConnectionState.h"
#include "Freshness.h"

#include <QtTest>

namespace QTest {
template <>
inline char* toString(const watchfloor::client::Freshness& f) {
    return qstrdup(qPrintable(watchfloor::client::displayName(f)));
}
template <>
inline char* toString(const watchfloor::client::ConnectionState& s) {
    return qstrdup(qPrintable(watchfloor::client::displayName(s)));
}
}  // namespace QTest
