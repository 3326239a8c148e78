// Closed-form formulas next to the ledger, against the published numbers in
// docs/domain/goodput.md and chi-square table values.
#include "ChiSquare.h"
#include "GoodputLedger.h"

#include <QTest>

#include <chrono>
#include <cmath>

using namespace watchfloor::server;

namespace {

constexpr double kMinute = 60.0;
constexpr double kHour = 3600.0;
constexpr double kDay = 86400.0;

Seconds s(double seconds) { return Seconds(seconds); }

bool near(double actual, double expected, double tolerance) { return std::fabs(actual - expected) <= tolerance; }

}  // namespace

class TestReliabilityMath : public QObject {
    Q_OBJECT

private slots:
    void chiSquareQuantileMatchesTables_data();
    void chiSquareQuantileMatchesTables();
    void chiSquareQuantileInvertsTheCdf_data();
    void chiSquareQuantileInvertsTheCdf();
    void lowerGammaForLargeCounts_data();
    void lowerGammaForLargeCounts();
    void chiSquareEdges();
    void mttfInterval();
    void mttfWithoutFailuresIsALowerBound();
    void dalyMatchesHisFigures_data();
    void dalyMatchesHisFigures();
    void youngAtLlama3Rate_data();
    void youngAtLlama3Rate();
    void intervalEdges();
    void expectedEttr_data();
    void expectedEttr();
    void expectedEttrStaysInRange();
    void palmMfuByHand();
    void palmMfuWithoutHardwareIsZero();
};

void TestReliabilityMath::chiSquareQuantileMatchesTables_data() {
    QTest::addColumn<double>("p");
    QTest::addColumn<double>("dof");
    QTest::addColumn<double>("table");
    QTest::addColumn<double>("tolerance");  // half a unit of the table's last printed digit
    QTest::newRow("0.975, 2") << 0.975 << 2.0 << 7.378 << 0.0005;
    QTest::newRow("0.025, 2") << 0.025 << 2.0 << 0.0506 << 0.00005;
    QTest::newRow("0.975, 20") << 0.975 << 20.0 << 34.17 << 0.005;
    QTest::newRow("0.025, 20") << 0.025 << 20.0 << 9.591 << 0.0005;
    QTest::newRow("0.975, 22") << 0.975 << 22.0 << 36.781 << 0.0005;
    QTest::newRow("0.95, 1") << 0.95 << 1.0 << 3.841 << 0.0005;
    QTest::newRow("0.005, 1") << 0.005 << 1.0 << 0.0000393 << 0.00000005;
    QTest::newRow("0.5, 10") << 0.5 << 10.0 << 9.342 << 0.0005;
    QTest::newRow("0.99, 100") << 0.99 << 100.0 << 135.807 << 0.0005;
    QTest::newRow("0.999, 10") << 0.999 << 10.0 << 29.588 << 0.0005;
    QTest::newRow("0.001, 10") << 0.001 << 10.0 << 1.479 << 0.0005;
}

void TestReliabilityMath::chiSquareQuantileMatchesTables() {
    QFETCH(double, p);
    QFETCH(double, dof);
    QFETCH(double, table);
    QFETCH(double, tolerance);
    const double x = chiSquareQuantile(p, dof);
    QVERIFY2(near(x, table, tolerance), qPrintable(QString::number(x, 'g', 10)));
}

void TestReliabilityMath::chiSquareQuantileInvertsTheCdf_data() {
    QTest::addColumn<double>("p");
    QTest::addColumn<double>("dof");
    for (double dof : {1.0, 2.0, 3.0, 20.0, 2001.0, 4002.0, 20001.0, 2e6})
        for (double p : {1e-9, 0.025, 0.5, 0.975, 1 - 1e-9}) QTest::addRow("p=%g dof=%g", p, dof) << p << dof;
}

void TestReliabilityMath::chiSquareQuantileInvertsTheCdf() {
    QFETCH(double, p);
    QFETCH(double, dof);
    const double x = chiSquareQuantile(p, dof);
    const double back = regularizedLowerGamma(dof / 2.0, x / 2.0);
    // Relative to the smaller tail, down to the resolution of a double near 1.
    QVERIFY2(near(back, p, 1e-10 * std::min(p, 1 - p) + 1e-15), qPrintable(QString::number(back, 'g', 17)));
    // χ²(2) is exponential with mean 2: closed-form quantile −2·ln(1 − p). (Near p = 1 the
    // rounding of p itself dominates, so the check stops at the usual confidence levels.)
    if (dof == 2.0 && p < 0.99)
        QVERIFY2(near(x, -2.0 * std::log1p(-p), 1e-12 * x), qPrintable(QString::number(x, 'g', 17)));
}

// A week of symbol errors on a bad link reaches millions; the series would need ~√(70a) terms there.
// References: mpmath 1.3.0, gammainc(a, 0, x, regularized=True) at 40 digits.
void TestReliabilityMath::lowerGammaForLargeCounts_data() {
    QTest::addColumn<double>("a");
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("reference");
    QTest::newRow("a=2000 at the mean") << 2000.0 << 2000.0 << 0.50297354844420253;
    QTest::newRow("a=2000 lower tail") << 2000.0 << 1850.0 << 0.00029701619532437507;
    QTest::newRow("a=2000 upper") << 2000.0 << 2100.0 << 0.98635253231662962;
    QTest::newRow("a=3000 lower tail") << 3000.0 << 2800.0 << 9.580940676978427577e-5;
    QTest::newRow("a=5000 lower tail") << 5000.0 << 4700.0 << 7.5970648619412705e-6;
    QTest::newRow("a=1e6 far lower tail") << 1e6 << 994000.0 << 9.178900262302023e-10;
}

void TestReliabilityMath::lowerGammaForLargeCounts() {
    QFETCH(double, a);
    QFETCH(double, x);
    QFETCH(double, reference);
    const double p = regularizedLowerGamma(a, x);
    QVERIFY2(near(p, reference, 1e-6 * std::min(reference, 1 - reference)), qPrintable(QString::number(p, 'g', 17)));
}

void TestReliabilityMath::chiSquareEdges() {
    QCOMPARE(chiSquareQuantile(0.0, 4.0), 0.0);
    QVERIFY(std::isinf(chiSquareQuantile(1.0, 4.0)));
    QVERIFY(std::isnan(chiSquareQuantile(0.5, 0.0)));
    QVERIFY(std::isnan(chiSquareQuantile(0.5, -3.0)));
    QCOMPARE(regularizedLowerGamma(1.0, 0.0), 0.0);
    QVERIFY(near(regularizedLowerGamma(1.0, 3.0), 1.0 - std::exp(-3.0), 1e-14));  // P(1, x) = 1 − e^−x
}

void TestReliabilityMath::mttfInterval() {
    // 10 failures in 1000 h: MLE 100 h; 95%: [2·1000/χ²(0.975, 22), 2·1000/χ²(0.025, 20)]
    //   = [2000/36.781, 2000/9.591] = [54.38 h, 208.53 h].
    const MttfEstimate e = estimateMttf(1000 * kHour, 10);
    QVERIFY(near(e.mttfS / kHour, 100.0, 1e-9));
    QVERIFY(near(e.lowS / kHour, 54.376, 0.002));
    QVERIFY(near(e.highS / kHour, 208.53, 0.02));
    // A wider confidence gives a wider interval.
    const MttfEstimate wide = estimateMttf(1000 * kHour, 10, 0.99);
    QVERIFY(wide.lowS < e.lowS && wide.highS > e.highS);
}

void TestReliabilityMath::mttfWithoutFailuresIsALowerBound() {
    // n = 0: low = 2T/χ²(0.975, 2) = 2·1000/7.3778 = 271.08 h; no upper bound.
    const MttfEstimate e = estimateMttf(1000 * kHour, 0);
    QCOMPARE(e.mttfS, 0.0);
    QVERIFY(near(e.lowS / kHour, 271.08, 0.01));
    QVERIFY(std::isinf(e.highS));
    const MttfEstimate invalid = estimateMttf(-1.0, 3);
    QCOMPARE(invalid.mttfS, 0.0);
    QCOMPARE(invalid.lowS, 0.0);
    QCOMPARE(estimateMttf(10.0, 3, 1.5).highS, 0.0);
}

void TestReliabilityMath::dalyMatchesHisFigures_data() {
    QTest::addColumn<double>("mtbfMinutes");
    QTest::addColumn<double>("optimumMinutes");
    // C = 5 min. 24 h: sqrt(2·5·1440) = 120; C/2M = 1/576; 120·(1 + 1/72 + 1/5184) − 5 = 116.69.
    QTest::newRow("M = 24 h") << 24 * 60.0 << 116.7;
    QTest::newRow("M = 6 h") << 6 * 60.0 << 56.7;
    QTest::newRow("M = 15 min") << 15.0 << 9.14;
}

void TestReliabilityMath::dalyMatchesHisFigures() {
    QFETCH(double, mtbfMinutes);
    QFETCH(double, optimumMinutes);
    const double tau = dalyOptimalInterval(s(5 * kMinute), s(mtbfMinutes * kMinute)).count() / kMinute;
    QVERIFY2(near(tau, optimumMinutes, 0.05), qPrintable(QString::number(tau)));
}

void TestReliabilityMath::youngAtLlama3Rate_data() {
    QTest::addColumn<double>("costS");
    QTest::addColumn<double>("optimumMinutes");
    QTest::addColumn<double>("tolerance");  // the published figures have 2-3 significant figures
    // 16,384-GPU job at the Llama 3 rate: M = 185.6 min. sqrt(2·10 s·11136 s) = 471.9 s = 7.9 min.
    QTest::newRow("C = 10 s") << 10.0 << 7.9 << 0.05;
    QTest::newRow("C = 60 s") << 60.0 << 19.3 << 0.05;
    QTest::newRow("C = 300 s") << 300.0 << 43.0 << 0.5;  // 43.08
}

void TestReliabilityMath::youngAtLlama3Rate() {
    QFETCH(double, costS);
    QFETCH(double, optimumMinutes);
    QFETCH(double, tolerance);
    const double tau = youngOptimalInterval(s(costS), s(185.6 * kMinute)).count() / kMinute;
    QVERIFY2(near(tau, optimumMinutes, tolerance), qPrintable(QString::number(tau)));
}

void TestReliabilityMath::intervalEdges() {
    // Daly's expansion holds for C < 2M; beyond it the optimum is M.
    QCOMPARE(dalyOptimalInterval(s(30), s(10)).count(), 10.0);
    QCOMPARE(dalyOptimalInterval(s(0), s(3600)).count(), 0.0);
    QCOMPARE(youngOptimalInterval(s(-1), s(3600)).count(), 0.0);
    // Higher order sits below Young for small C/M (the −C dominates the correction).
    QVERIFY(dalyOptimalInterval(s(60), s(kDay)) < youngOptimalInterval(s(60), s(kDay)));
}

void TestReliabilityMath::expectedEttr_data() {
    QTest::addColumn<double>("failuresPerSecond");
    QTest::addColumn<double>("restartS");
    QTest::addColumn<double>("intervalS");
    QTest::addColumn<double>("costS");
    QTest::addColumn<double>("expected");
    QTest::addColumn<double>("tolerance");
    // Meta RSC-1: 16,384 GPUs = 2048 nodes × 6.5e-3 failures/node-day = 13.312/day (MTTF 1.8 h).
    const double rsc1 = 2048 * 6.5e-3 / kDay;
    // Δt = 60 min: 1 − (13.312/24 h)·(5 + 30) min = 1 − 0.5547·0.5833 = 0.676.
    QTest::newRow("RSC-1 16k GPUs, 60 min") << rsc1 << 5 * kMinute << 60 * kMinute << 0.0 << 0.676 << 0.0005;
    // Δt = 5 min: 1 − 0.5547·(5 + 2.5)/60 = 0.931.
    QTest::newRow("RSC-1 16k GPUs, 5 min") << rsc1 << 5 * kMinute << 5 * kMinute << 0.0 << 0.931 << 0.0005;
    // Llama 3: M = 185.6 min, C = 60 s, u0 = 10 min, τ = 19.3 min:
    //   (1 − (10 + 9.65)/185.6)/(1 + 1/19.3) = 0.8941/1.0518 = 0.850.
    QTest::newRow("Llama 3 worked example")
        << 1.0 / (185.6 * kMinute) << 10 * kMinute << 19.3 * kMinute << 60.0 << 0.850 << 0.0005;
}

void TestReliabilityMath::expectedEttr() {
    QFETCH(double, failuresPerSecond);
    QFETCH(double, restartS);
    QFETCH(double, intervalS);
    QFETCH(double, costS);
    QFETCH(double, expected);
    QFETCH(double, tolerance);
    const double ettr = watchfloor::server::expectedEttr(failuresPerSecond, s(restartS), s(intervalS), s(costS));
    QVERIFY2(near(ettr, expected, tolerance), qPrintable(QString::number(ettr, 'f', 5)));
}

void TestReliabilityMath::expectedEttrStaysInRange() {
    // 131k GPUs at RSC-1 (MTTF 0.23 h) with hourly checkpoints: the linear model goes negative.
    QCOMPARE(watchfloor::server::expectedEttr(1.0 / (0.23 * kHour), s(5 * kMinute), s(kHour), s(60)), 0.0);
    QCOMPARE(watchfloor::server::expectedEttr(0.0, s(0), s(kHour), s(0)), 1.0);
    QCOMPARE(watchfloor::server::expectedEttr(0.0, s(0), s(0), s(60)), 0.0);  // checkpointing forever
    QCOMPARE(watchfloor::server::expectedEttr(-1.0, s(0), s(kHour), s(0)), 0.0);
}

void TestReliabilityMath::palmMfuByHand() {
    watchfloor::v1::ModelConfig model;
    model.set_parameters(405e9);
    model.set_layers(126);
    model.set_heads(128);
    model.set_head_dim(128);
    model.set_sequence_length(8192);
    model.set_gpu_peak_flops(989e12);
    // 6N = 2,430,000,000,000; 12·126·128·128·8192 = 202,937,204,736;
    // FLOP/token = 2,632,937,204,736. At 2.5e6 tokens/s: 6.582343e18 FLOP/s.
    // Peak: 16,384 × 989e12 = 1.6203776e19. MFU = 6.582343e18 / 1.6203776e19 = 0.406223.
    QVERIFY(near(palmMfu(model, 2.5e6, 16384), 0.406223, 1e-6));
    // Linear in throughput, inverse in GPU count.
    QVERIFY(near(palmMfu(model, 1.25e6, 8192), 0.406223, 1e-6));
}

void TestReliabilityMath::palmMfuWithoutHardwareIsZero() {
    watchfloor::v1::ModelConfig model;
    model.set_parameters(7e9);
    model.set_gpu_peak_flops(989e12);
    QCOMPARE(palmMfu(model, 1e5, 0), 0.0);
    model.set_gpu_peak_flops(0);
    QCOMPARE(palmMfu(model, 1e5, 8), 0.0);
}

QTEST_GUILESS_MAIN(TestReliabilityMath)
#include "tst_reliabilitymath.moc"
