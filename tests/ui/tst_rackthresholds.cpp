// The Rack page's threshold policy alone: each headline's warning and critical boundaries against
// the rack's design values; a reading without a value is Missing, never judged; a stale value is
// judged by its last value; no design value leaves nothing to judge against.
#include "RackThresholds.h"

#include <QtTest>

#include <cmath>

using namespace watchfloor;
using ui::KpiLevel;

Q_DECLARE_METATYPE(ui::KpiLevel)

namespace {
client::Reading value(double v, client::Freshness f = client::Freshness::Fresh) {
    client::Reading r;
    r.value = float(v);
    r.freshness = f;
    r.sampleTimeUnixMs = 1;
    return r;
}
client::Reading none(client::Freshness f) {
    client::Reading r;
    r.freshness = f;
    return r;
}
const double kNaN = std::nan("");
}  // namespace

namespace QTest {
template <>
inline char* toString(const KpiLevel& level) {
    static const char* names[] = {"Neutral", "Ok", "Warning", "Critical", "Missing", "Silent"};
    return qstrdup(names[int(level)]);
}
}  // namespace QTest

class TestRackThresholds : public QObject {
    Q_OBJECT

private slots:
    void rackPower() {
        QCOMPARE(ui::rackPowerLevel(value(120), 132), KpiLevel::Ok);
        QCOMPARE(ui::rackPowerLevel(value(125.25), 132), KpiLevel::Ok);  // just under 95 % (125.4)
        QCOMPARE(ui::rackPowerLevel(value(125.5), 132), KpiLevel::Warning);
        QCOMPARE(ui::rackPowerLevel(value(132), 132), KpiLevel::Warning);  // at design, not above
        QCOMPARE(ui::rackPowerLevel(value(132.5), 132), KpiLevel::Critical);
        QCOMPARE(ui::rackPowerLevel(value(140, client::Freshness::Stale), 132), KpiLevel::Critical);
        QCOMPARE(ui::rackPowerLevel(none(client::Freshness::Missing), 132), KpiLevel::Missing);
        QCOMPARE(ui::rackPowerLevel(none(client::Freshness::Blank), 132), KpiLevel::Missing);
        QCOMPARE(ui::rackPowerLevel(value(500), kNaN), KpiLevel::Ok);
    }

    void hottestGpu() {
        QCOMPARE(ui::hottestGpuLevel(value(79.9), 87), KpiLevel::Ok);
        QCOMPARE(ui::hottestGpuLevel(value(82), 87), KpiLevel::Warning);  // within 5 °C
        QCOMPARE(ui::hottestGpuLevel(value(86.9), 87), KpiLevel::Warning);
        QCOMPARE(ui::hottestGpuLevel(value(87), 87), KpiLevel::Critical);  // at slowdown
        QCOMPARE(ui::hottestGpuLevel(value(90, client::Freshness::Silent), 87), KpiLevel::Critical);
        QCOMPARE(ui::hottestGpuLevel(none(client::Freshness::Missing), 87), KpiLevel::Missing);
        QCOMPARE(ui::hottestGpuLevel(value(99), kNaN), KpiLevel::Ok);
    }

    void coolantFlow() {
        QCOMPARE(ui::coolantFlowLevel(value(100), 100), KpiLevel::Ok);
        QCOMPARE(ui::coolantFlowLevel(value(90), 100), KpiLevel::Ok);  // 90 % is enough
        QCOMPARE(ui::coolantFlowLevel(value(89), 100), KpiLevel::Warning);
        QCOMPARE(ui::coolantFlowLevel(value(70), 100), KpiLevel::Warning);
        QCOMPARE(ui::coolantFlowLevel(value(69), 100), KpiLevel::Critical);
        QCOMPARE(ui::coolantFlowLevel(value(0), 100), KpiLevel::Critical);  // no flow is a reading
        QCOMPARE(ui::coolantFlowLevel(none(client::Freshness::Blank), 100), KpiLevel::Missing);
        QCOMPARE(ui::coolantFlowLevel(value(10), kNaN), KpiLevel::Ok);
    }

    void coolantDelta() {
        QCOMPARE(ui::coolantDeltaLevel(value(9.5)), KpiLevel::Neutral);
        QCOMPARE(ui::coolantDeltaLevel(value(-1)), KpiLevel::Neutral);
        QCOMPARE(ui::coolantDeltaLevel(none(client::Freshness::Missing)), KpiLevel::Missing);
    }

    void gpusUp() {
        QCOMPARE(ui::gpusUpLevel(value(0), value(0)), KpiLevel::Ok);
        QCOMPARE(ui::gpusUpLevel(value(0), value(1)), KpiLevel::Warning);
        QCOMPARE(ui::gpusUpLevel(value(0), none(client::Freshness::Missing)), KpiLevel::Ok);
        QCOMPARE(ui::gpusUpLevel(value(1), value(0)), KpiLevel::Warning);
        QCOMPARE(ui::gpusUpLevel(value(3), value(0)), KpiLevel::Warning);
        QCOMPARE(ui::gpusUpLevel(value(4), value(0)), KpiLevel::Critical);
        QCOMPARE(ui::gpusUpLevel(none(client::Freshness::Missing), value(5)), KpiLevel::Missing);
    }

    void leaks() {
        QCOMPARE(ui::leakLevel(value(0), value(0)), KpiLevel::Ok);
        QCOMPARE(ui::leakLevel(value(0), value(1)), KpiLevel::Warning);
        QCOMPARE(ui::leakLevel(value(1), value(0)), KpiLevel::Critical);
        QCOMPARE(ui::leakLevel(value(0), none(client::Freshness::Missing)), KpiLevel::Ok);
        QCOMPARE(ui::leakLevel(none(client::Freshness::Missing), value(2)), KpiLevel::Missing);
    }
};

QTEST_GUILESS_MAIN(TestRackThresholds)
#include "tst_rackthresholds.moc"
