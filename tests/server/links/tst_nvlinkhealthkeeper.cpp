// fleetd's NVLink5 link health on the stream (NvlinkHealthKeeper): DCGM's per-GPU symbol-error
// total (1214) and link states, and the per-link PLR counters (586-588), in as a real source's
// FleetChanges carry them; the GPU's symbol BER and the links' PLR ratios out as samples. A quiet
// GPU is an upper bound over the bits its links up carried, never 0; a GPU with links down carries
// fewer bits and one with none carries none; counters that go back, gaps and absurd values drop
// their interval, never count it.
#include "NvlinkHealthKeeper.h"
#include "TickClock.h"

#include <QTest>

#include <cmath>
#include <map>

using namespace watchfloor::server;
namespace v1 = watchfloor::v1;

namespace {

constexpr std::int64_t kStartMs = 1'800'000'000'000;
constexpr std::int64_t kPollMs = 15'000;
constexpr std::uint32_t kGpu0 = 10, kGpu1 = 11;
constexpr double kLinkBitsPerSecond = 400e9;

// Two GPUs of 18 NVLink5 links each (entities 100.. and 200..).
v1::Topology twoGpus() {
    v1::Topology t;
    for (std::uint32_t g = 0; g < 2; ++g) {
        auto* gpu = t.add_gpus();
        gpu->set_index(kGpu0 + g);
        gpu->set_name("r01-n01-g" + std::to_string(g));
        for (std::uint32_t l = 0; l < 18; ++l) {
            auto* link = t.add_nvlinks();
            link->set_index(100 * (g + 1) + l);
            link->set_gpu_index(gpu->index());
            link->set_link_id(l);
            gpu->add_nvlink_indexes(link->index());
        }
    }
    return t;
}

struct Feed {
    NvlinkHealthKeeper keeper{twoGpus()};
    std::int64_t nowMs = kStartMs;
    std::map<std::pair<std::uint32_t, int>, float> sent;  // newest value sent per (entity, metric)
    int valuesSent = 0;

    // One poll of a real source: every series with this poll's scrape time.
    void poll(const std::vector<Sample>& samples) {
        FleetChanges changes;
        changes.time = fromUnixMs(nowMs);
        for (const Sample& s : samples) {
            changes.samples.push_back(s);
            changes.sampleTimesMs.push_back(nowMs);
        }
        const std::size_t in = changes.samples.size();
        keeper.observe(changes);
        QCOMPARE(changes.sampleTimesMs.size(), changes.samples.size());
        for (std::size_t i = in; i < changes.samples.size(); ++i) {
            sent[{changes.samples[i].entityIndex, changes.samples[i].metric}] = changes.samples[i].value;
            ++valuesSent;
        }
        nowMs += kPollMs;
    }
    void skip(int polls) { nowMs += polls * kPollMs; }
    std::optional<float> value(std::uint32_t entity, v1::Metric metric) const {
        const auto it = sent.find({entity, metric});
        return it == sent.end() ? std::nullopt : std::optional<float>(it->second);
    }
};

// Buckets keep bits as float: equal to a part in a million.
bool sameBits(double actual, double expected) {
    if (std::fabs(actual - expected) <= 1e-6 * std::fabs(expected)) return true;
    qWarning("bits %.10g, expected %.10g", actual, expected);
    return false;
}

Sample symbols(std::uint32_t gpu, double total) {
    return {gpu, v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL, float(total)};
}

std::vector<Sample> linkStates(std::uint32_t gpu, int down) {
    std::vector<Sample> out;
    const std::uint32_t base = gpu == kGpu0 ? 100 : 200;
    for (int l = 0; l < 18; ++l)
        out.push_back({base + std::uint32_t(l), v1::DCGM_FI_DEV_NVLINK_GET_STATE, l < down ? 0.0F : 1.0F});
    return out;
}

std::vector<Sample> plr(std::uint32_t link, double codes, double errors, double uncorrectable) {
    return {{link, v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_TOTAL, float(codes)},
            {link, v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_ERROR_TOTAL, float(errors)},
            {link, v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_UNCORRECTABLE_TOTAL, float(uncorrectable)}};
}

}  // namespace

class TstNvlinkHealthKeeper : public QObject {
    Q_OBJECT

private slots:
    void aQuietGpuIsAnUpperBoundOverItsLinksBitsNeverZero() {
        Feed f;
        for (int i = 0; i < 5; ++i) f.poll({symbols(kGpu0, 42)});  // a count from before fleetd looked
        const auto e = f.keeper.gpuEstimate(kGpu0);
        QVERIFY(e);
        // Four 15 s intervals, 18 links up (never reported down) at 400 Gb/s each.
        QVERIFY(sameBits(e->bits, 4 * 15.0 * 18 * kLinkBitsPerSecond));
        QCOMPARE(e->errors, 0.0);
        QVERIFY(e->upperOnly);
        QCOMPARE(e->verdict, BerVerdict::Judging);
        QVERIFY(std::fabs(e->upper - 2.9957 / e->bits) / e->upper < 1e-3);  // -ln(0.05) / bits
        QCOMPARE(*f.value(kGpu0, v1::NVLINK5_SYMBOL_BER_VERDICT), float(v1::LINK_VERDICT_JUDGING));
        QCOMPARE(*f.value(kGpu0, v1::NVLINK5_SYMBOL_BER_POINT), 0.0F);
        QVERIFY(*f.value(kGpu0, v1::NVLINK5_SYMBOL_BER_UPPER) > 0);
        QVERIFY(std::fabs(*f.value(kGpu0, v1::NVLINK5_SYMBOL_BER_UPPER) - e->upper) / e->upper < 0.01);
        // A GPU that never reported 1214 has no estimate and no value: no data, never "healthy".
        QVERIFY(!f.keeper.gpuEstimate(kGpu1));
        QVERIFY(!f.value(kGpu1, v1::NVLINK5_SYMBOL_BER_UPPER));
    }

    void aGpuWithLinksDownCarriesOnlyItsLinksUpBits() {
        Feed f;
        auto poll = [&](int down, double total) {
            std::vector<Sample> s = linkStates(kGpu0, down);
            s.push_back(symbols(kGpu0, total));
            f.poll(s);
        };
        poll(6, 0);
        poll(6, 0);
        QCOMPARE(f.keeper.linksUp(kGpu0), 12U);
        QVERIFY(sameBits(f.keeper.gpuEstimate(kGpu0)->bits, 15.0 * 12 * kLinkBitsPerSecond));
        // Every link down: no bits for that interval (and no errors counted over none).
        poll(18, 5);
        QCOMPARE(f.keeper.linksUp(kGpu0), 0U);
        QVERIFY(sameBits(f.keeper.gpuEstimate(kGpu0)->bits, 15.0 * 12 * kLinkBitsPerSecond));
        QCOMPARE(f.keeper.gpuEstimate(kGpu0)->errors, 0.0);
        // Back up: an interval needs the links up at both samples.
        poll(0, 5);
        QVERIFY(sameBits(f.keeper.gpuEstimate(kGpu0)->bits, 15.0 * 12 * kLinkBitsPerSecond));
        poll(0, 5);
        QVERIFY(sameBits(f.keeper.gpuEstimate(kGpu0)->bits,
                         15.0 * 12 * kLinkBitsPerSecond + 15.0 * 18 * kLinkBitsPerSecond));
    }

    void aGpuWhoseLinksWereNeverUpSendsNothing() {
        Feed f;
        for (int i = 0; i < 3; ++i) {
            std::vector<Sample> s = linkStates(kGpu0, 18);
            s.push_back(symbols(kGpu0, 0));
            f.poll(s);
        }
        QVERIFY(sameBits(f.keeper.gpuEstimate(kGpu0)->bits, 0.0));
        QCOMPARE(f.keeper.gpuEstimate(kGpu0)->verdict, BerVerdict::NoData);
        QVERIFY(!f.value(kGpu0, v1::NVLINK5_SYMBOL_BER_VERDICT));
    }

    void errorsFarOverTheLineAreErrorAtOnce() {
        Feed f;
        f.poll({symbols(kGpu0, 0)});
        f.poll({symbols(kGpu0, 500)});  // 500 in 1.08e14 bits: ~4.6e-12
        const auto e = f.keeper.gpuEstimate(kGpu0);
        QCOMPARE(e->errors, 500.0);
        QCOMPARE(e->verdict, BerVerdict::Error);
        QVERIFY(e->lower > 1e-14);
        QCOMPARE(*f.value(kGpu0, v1::NVLINK5_SYMBOL_BER_VERDICT), float(v1::LINK_VERDICT_ERROR));
        QVERIFY(*f.value(kGpu0, v1::NVLINK5_SYMBOL_BER_LOWER) > 1e-14F);
        QVERIFY(*f.value(kGpu0, v1::NVLINK5_SYMBOL_BER_POINT) > 0);
    }

    void countersThatGoBackAreClearedAndTheirIntervalDropped() {
        Feed f;
        for (double total : {100.0, 110.0, 5.0, 7.0}) f.poll({symbols(kGpu0, total)});
        // 100 -> 110 (10), 110 -> 5 cleared (dropped), 5 -> 7 (2).
        QCOMPARE(f.keeper.gpuEstimate(kGpu0)->errors, 12.0);
        QCOMPARE(f.keeper.stats().clears, std::uint64_t(1));
        // The same on a link's PLR counters: the ratio only over intervals that went forward.
        Feed p;
        p.poll(plr(100, 1e9, 10, 0));
        p.poll(plr(100, 2e9, 20, 0));
        p.poll(plr(100, 1e8, 1, 0));  // cleared (nvidia-smi nvlink -re)
        p.poll(plr(100, 1.1e9, 11, 1));
        const auto ratios = p.keeper.plr(100);
        QCOMPARE(ratios.codes, 2e9);
        QCOMPARE(ratios.errors, 20.0);
        QCOMPARE(ratios.uncorrectable, 1.0);
        QCOMPARE(p.keeper.stats().clears, std::uint64_t(1));
        QVERIFY(std::fabs(*p.value(100, v1::NVLINK5_PLR_CODE_ERROR_RATIO) - 1e-8F) < 1e-11F);
        QVERIFY(std::fabs(*p.value(100, v1::NVLINK5_PLR_UNCORRECTABLE_RATIO) - 5e-10F) < 1e-12F);
    }

    void missingSamplesAreAGapNotZeroErrors() {
        Feed f;
        f.poll({symbols(kGpu0, 0)});
        f.poll({symbols(kGpu0, 0)});
        f.skip(10);  // 150 s without a sample: past the 120 s a gap may last
        f.poll({symbols(kGpu0, 50)});
        QVERIFY(sameBits(f.keeper.gpuEstimate(kGpu0)->bits, 15.0 * 18 * kLinkBitsPerSecond));
        QCOMPARE(f.keeper.gpuEstimate(kGpu0)->errors, 0.0);
        QCOMPARE(f.keeper.stats().missing, std::uint64_t(1));
        // A PLR series that vanishes drops the link's references: the next complete sample starts over.
        Feed p;
        p.poll(plr(100, 1e9, 0, 0));
        p.poll({{100, v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_TOTAL, 2e9F},
                {100, v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_ERROR_TOTAL, std::nanf("")},
                {100, v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_UNCORRECTABLE_TOTAL, 0.0F}});
        p.poll(plr(100, 3e9, 5, 0));
        QVERIFY(!p.keeper.plr(100).known());
        QVERIFY(!p.value(100, v1::NVLINK5_PLR_CODE_ERROR_RATIO));
        p.poll(plr(100, 4e9, 5, 0));
        QCOMPARE(p.keeper.plr(100).codes, 1e9);
        QCOMPARE(*p.value(100, v1::NVLINK5_PLR_CODE_ERROR_RATIO), 0.0F);
    }

    void absurdValuesAreNoReadingAndNeverANegativeRate() {
        Feed f;
        for (float total : {10.0F, -5.0F, std::nanf(""), 1e30F, INFINITY, 12.0F, 13.0F})
            f.poll({symbols(kGpu0, total)});
        const auto e = f.keeper.gpuEstimate(kGpu0);
        // Only 12 -> 13 is an interval: every absurd value started the GPU over.
        QCOMPARE(e->errors, 1.0);
        QVERIFY(sameBits(e->bits, 15.0 * 18 * kLinkBitsPerSecond));
        QVERIFY(e->point >= 0 && e->lower >= 0);
        QVERIFY(f.keeper.stats().rejected >= 3);
        // More codewords in error than received is not a reading either.
        Feed p;
        p.poll(plr(100, 1e9, 0, 0));
        p.poll(plr(100, 1e9 + 10, 100, 0));
        QVERIFY(!p.keeper.plr(100).known());
        QCOMPARE(p.keeper.stats().rejected, std::uint64_t(1));
    }

    void aLinkWithoutCodewordsHasNoRatio() {
        Feed p;
        for (int i = 0; i < 3; ++i) p.poll(plr(100, 5e9, 3, 0));  // no codewords move: no traffic counted
        QVERIFY(!p.keeper.plr(100).known());
        QVERIFY(!p.value(100, v1::NVLINK5_PLR_CODE_ERROR_RATIO));
        QCOMPARE(p.valuesSent, 0);
    }

    void everyPollSendsTheEstimateAgain() {
        // The console ages these as it ages the source's values: each poll sends all four again.
        Feed f;
        for (int i = 0; i < 3; ++i) f.poll({symbols(kGpu0, 7)});
        const int before = f.valuesSent;
        f.poll({symbols(kGpu0, 7)});
        QCOMPARE(f.valuesSent - before, 4);
    }
};

QTEST_GUILESS_MAIN(TstNvlinkHealthKeeper)
#include "tst_nvlinkhealthkeeper.moc"
