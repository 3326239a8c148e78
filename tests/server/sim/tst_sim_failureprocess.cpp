// The FailureProcess alone: over many draws with a fixed seed the accepted hardware failures
// come at the configured rate per GPU-hour (thinning at the bound is exact), the causes in the
// table's shares, lemon trays at their multiplier; software failures pick jobs by GPU count.

#include "FailureProcess.h"

#include <QtTest>

#include <cmath>

using namespace watchfloor::server;
using namespace watchfloor::server::sim;

namespace {

constexpr std::uint32_t kGpus = 72 * 100;
constexpr std::uint32_t kGpusPerTray = 4;

// Draws `candidates` hardware candidates; returns accepted failures and the exposure in GPU-hours.
struct Run {
    std::uint64_t accepted = 0;
    double gpuHours = 0;
    std::vector<std::uint64_t> byCause = std::vector<std::uint64_t>(failureCauses().size(), 0);
    std::vector<std::uint64_t> byTray = std::vector<std::uint64_t>(kGpus / kGpusPerTray, 0);
};

Run draw(FailureProcess& process, const std::vector<float>& lemons, int candidates, double excessC) {
    Run run;
    double seconds = 0;
    for (int i = 0; i < candidates; ++i) {
        seconds += process.nextHardwareCandidateS();
        const auto c = process.drawHardwareCandidate();
        const std::uint32_t tray = c.gpu / kGpusPerTray;
        if (c.acceptDraw < process.hazardMultiplier(lemons[tray], excessC) / process.hazardBound()) {
            ++run.accepted;
            ++run.byCause[c.cause];
            ++run.byTray[tray];
        }
    }
    run.gpuHours = kGpus * seconds / 3600.0;
    return run;
}

// |observed - expected| within 4 standard deviations of a Poisson count.
bool poissonClose(double observed, double expected) { return std::abs(observed - expected) <= 4 * std::sqrt(expected); }

}  // namespace

class FailureProcessTest : public QObject {
    Q_OBJECT

private slots:
    void hardwareRateOverManyDraws();
    void lemonsFailAtTheirMultiplier();
    void hotSupplyRaisesTheRate();
    void softwareFailuresPickJobsBySize();
    void sameSeedSameDraws();
};

void FailureProcessTest::hardwareRateOverManyDraws() {
    const double ratePerGpuHour = hardwareRatePerGpuHour() * 30;
    FailureProcess process(Rng(42, 2), kGpus, ratePerGpuHour, softwareRatePerGpuHour());
    const std::vector<float> lemons(kGpus / kGpusPerTray, 1.0f);
    process.setTrayHazards(lemons);
    QCOMPARE(process.hazardBound(), 5.0);  // no lemons: the temperature cap alone
    const Run run = draw(process, lemons, 200'000, 0.0);
    const double expected = ratePerGpuHour * run.gpuHours;
    qInfo("accepted %llu of 200000 candidates, expected %.0f", static_cast<unsigned long long>(run.accepted), expected);
    QVERIFY(poissonClose(run.accepted, expected));
    for (std::size_t cause = 0; cause < failureCauses().size(); ++cause) {
        const FailureCause& c = failureCauses()[cause];
        if (!c.hardware) {
            QCOMPARE(run.byCause[cause], 0u);  // software causes never come from the hardware stream
            continue;
        }
        const double share = c.ratePerGpuHour / hardwareRatePerGpuHour();
        QVERIFY2(poissonClose(run.byCause[cause], share * run.accepted), c.cause);
    }
}

void FailureProcessTest::lemonsFailAtTheirMultiplier() {
    const double ratePerGpuHour = hardwareRatePerGpuHour() * 30;
    FailureProcess process(Rng(7, 2), kGpus, ratePerGpuHour, softwareRatePerGpuHour());
    std::vector<float> lemons(kGpus / kGpusPerTray, 1.0f);
    for (std::size_t t = 0; t < lemons.size(); t += 10) lemons[t] = 8.0f;  // every tenth tray a lemon
    process.setTrayHazards(lemons);
    const double mean = (0.9 * 1.0 + 0.1 * 8.0);
    QCOMPARE(process.hazardBound(), 8.0 / mean * 5.0);
    const Run run = draw(process, lemons, 400'000, 0.0);
    // The fleet rate stays the configured one (lemons are part of the average) ...
    QVERIFY(poissonClose(run.accepted, ratePerGpuHour * run.gpuHours));
    // ... and the lemons take 8 x 0.1 / 1.7 of it.
    std::uint64_t onLemons = 0;
    for (std::size_t t = 0; t < lemons.size(); ++t) onLemons += lemons[t] > 1 ? run.byTray[t] : 0;
    QVERIFY(poissonClose(onLemons, run.accepted * 0.8 / mean));
}

void FailureProcessTest::hotSupplyRaisesTheRate() {
    FailureProcess process(Rng(3, 2), kGpus, 1e-4, 0);
    process.setTrayHazards(std::vector<float>(kGpus / kGpusPerTray, 1.0f));
    QCOMPARE(process.hazardMultiplier(1.0f, 0.0), 1.0);
    QCOMPARE(process.hazardMultiplier(1.0f, 12.0), std::exp(1.0));  // ΔT_e = 12 °C
    QCOMPARE(process.hazardMultiplier(1.0f, 100.0), 5.0);           // capped for thinning
}

void FailureProcessTest::softwareFailuresPickJobsBySize() {
    FailureProcess process(Rng(9, 2), kGpus, hardwareRatePerGpuHour(), softwareRatePerGpuHour());
    QVERIFY(process.nextSoftwareCandidateS() < 0);  // no jobs, no stream
    process.setJobGpuWeights({1000, 1500, 4000});   // 1000, 500 and 2500 GPUs
    std::vector<int> picks(3, 0);
    int softwareBug = 0;
    constexpr int kDraws = 40'000;
    for (int i = 0; i < kDraws; ++i) {
        QVERIFY(process.nextSoftwareCandidateS() >= 0);
        const auto c = process.drawSoftwareCandidate();
        QVERIFY(c.job < 3);
        ++picks[c.job];
        softwareBug += std::string(failureCauses()[c.cause].cause) == "software_bug";
        QVERIFY(!failureCauses()[c.cause].hardware);
    }
    QVERIFY(poissonClose(picks[0], kDraws * 0.25));
    QVERIFY(poissonClose(picks[1], kDraws * 0.125));
    QVERIFY(poissonClose(picks[2], kDraws * 0.625));
    QVERIFY(poissonClose(softwareBug, kDraws * failureCauses()[10].ratePerGpuHour / softwareRatePerGpuHour()));
}

void FailureProcessTest::sameSeedSameDraws() {
    auto sequence = [](std::uint64_t seed) {
        FailureProcess process(Rng(seed, 2), kGpus, hardwareRatePerGpuHour(), softwareRatePerGpuHour());
        process.setTrayHazards(std::vector<float>(kGpus / kGpusPerTray, 1.0f));
        std::vector<double> values;
        for (int i = 0; i < 100; ++i) {
            values.push_back(process.nextHardwareCandidateS());
            const auto c = process.drawHardwareCandidate();
            values.push_back(double(c.cause) + 10.0 * c.gpu + c.acceptDraw);
        }
        return values;
    };
    QCOMPARE(sequence(5), sequence(5));
    QVERIFY(sequence(5) != sequence(6));
}

QTEST_GUILESS_MAIN(FailureProcessTest)
#include "tst_sim_failureprocess.moc"
