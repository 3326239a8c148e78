// The reconnect schedule: 1 s × 1.6^n, ±20 % jitter, capped at 30 s, reset when data flows.
#include "ReconnectBackoff.h"

#include <QtTest>

#include <cmath>

using watchfloor::client::ReconnectBackoff;
using namespace std::chrono_literals;

class TestReconnectBackoff : public QObject {
    Q_OBJECT

private slots:
    void delaysStayWithinJitteredBounds_data() {
        QTest::addColumn<quint32>("seed");
        for (quint32 seed : {1u, 7u, 42u, 1234u, 99999u}) QTest::newRow(qPrintable(QString::number(seed))) << seed;
    }
    void delaysStayWithinJitteredBounds() {
        QFETCH(quint32, seed);
        ReconnectBackoff backoff({}, seed);
        for (int n = 0; n < 20; ++n) {
            const double nominal = std::min(30000.0, 1000.0 * std::pow(1.6, n));
            QCOMPARE(backoff.nominalDelay().count(), std::llround(nominal));
            const auto d = backoff.nextDelay();
            QVERIFY2(
                d.count() >= std::floor(nominal * 0.8) && d.count() <= std::ceil(nominal * 1.2),
                qPrintable(QStringLiteral("attempt %1: %2 ms outside %3 ±20%").arg(n).arg(d.count()).arg(nominal)));
        }
    }

    void capsAtThirtySeconds() {
        ReconnectBackoff backoff({}, 3);
        for (int n = 0; n < 100; ++n) backoff.nextDelay();
        QCOMPARE(backoff.nominalDelay(), 30000ms);
        QVERIFY(backoff.nextDelay() <= 36000ms);
    }

    void jitterSpreadsConsoles() {
        // Two consoles that lost the same server must not re-dial in lockstep.
        ReconnectBackoff a({}, 1), b({}, 2);
        int different = 0;
        for (int n = 0; n < 10; ++n) different += a.nextDelay() != b.nextDelay() ? 1 : 0;
        QVERIFY(different >= 8);
    }

    void resetStartsOver() {
        ReconnectBackoff backoff({}, 5);
        for (int n = 0; n < 6; ++n) backoff.nextDelay();
        QVERIFY(backoff.nominalDelay() > 10000ms);
        backoff.reset();
        QCOMPARE(backoff.attempt(), 0);
        QCOMPARE(backoff.nominalDelay(), 1000ms);
        const auto d = backoff.nextDelay();
        QVERIFY(d >= 800ms && d <= 1200ms);
    }
};

QTEST_GUILESS_MAIN(TestReconnectBackoff)
#include "tst_reconnectbackoff.moc"
