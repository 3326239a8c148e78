// The LinkFabric alone, without trays, jobs or cooling: a flap holds a port FLAPPING until five
// quiet minutes (a later flap restarts them) and never touches a port that is down; an error burst
// lands in the port's counters, its GPU's NVLink totals and its rack's errors of the last minute,
// and above the alarm threshold sets the BER it quotes for 30 min; a scripted BER puts the burst
// it means into the counters; a repair brings up only the repaired GPU's ports; changed NVLink
// counters and NIC port states are reported once each, by ordinal; link noise spares the ports of
// unpowered trays.

#include "FleetSpec.h"
#include "LinkFabric.h"

#include <QtTest>

#include <array>
#include <cmath>
#include <map>

using namespace watchfloor::server;
using namespace watchfloor::server::sim;
using namespace watchfloor::v1;

namespace {

// Records what the fabric tells the rest of the twin.
struct RecordingHost final : FabricHost {
    bool powered = true;
    std::map<std::uint32_t, std::array<std::uint32_t, 3>> gpuErrors;  // crc, replay, recovery

    bool trayPowered(std::uint32_t) const override { return powered; }
    void addGpuNvlinkErrors(std::uint32_t g, std::uint32_t crc, std::uint32_t replay, std::uint32_t recovery) override {
        auto& totals = gpuErrors[g];
        totals[0] += crc;
        totals[1] += replay;
        totals[2] += recovery;
    }
};

struct Fabric {
    FleetSpec spec = generatedFleetSpec(1, 2);
    FleetModel model{spec, 0};
    TwinScheduler clock;
    TelemetryPublisher publisher{model, clock, 0, {}};
    RecordingHost host;
    LinkFabric fabric{Rng(7, 6), model, clock, publisher, host};
    FleetChanges out;

    Fabric() { publisher.begin(out); }

    // Runs the timed actions due within the next `seconds`.
    void runFor(double seconds) {
        const std::int64_t untilMs = clock.nowMs() + std::llround(seconds * 1000);
        while (clock.runNext(untilMs)) {}
        clock.advanceTo(untilMs);
    }
    std::uint32_t second() const { return static_cast<std::uint32_t>(clock.nowMs() / 1000); }
    // The events since the last call, "TYPE: message".
    QStringList takeEvents() {
        QStringList events;
        for (const auto& e : out.events)
            events << QString::fromStdString(EventType_Name(e.type()) + ": " + e.message());
        out.events.clear();
        return events;
    }
};

}  // namespace

class LinkFabricTest : public QObject {
    Q_OBJECT

private slots:
    void flapHoldsUntilFiveQuietMinutes();
    void errorBurstRaisesAndHoldsTheBer();
    void scriptedBerPutsItsBurstInTheCounters();
    void repairBringsUpOnlyThatGpusPorts();
    void changedCountersAreReportedOnceByOrdinal();
    void noiseSparesUnpoweredTrays();
};

void LinkFabricTest::flapHoldsUntilFiveQuietMinutes() {
    Fabric f;
    const std::uint32_t link = 5;  // GPU 0's
    f.fabric.portFlap(true, link, 2);
    QCOMPARE(f.fabric.port(true, link).state, LINK_STATE_FLAPPING);
    QCOMPARE(f.fabric.port(true, link).recoveryOrDowned, 2u);
    QCOMPARE(f.host.gpuErrors[0], (std::array<std::uint32_t, 3>{0, 0, 2}));
    QCOMPARE(f.out.states.size(), std::size_t(1));
    QCOMPARE(f.out.states[0].link_state(), LINK_STATE_FLAPPING);
    QCOMPARE(f.out.events.size(), std::size_t(1));
    QCOMPARE(f.out.events[0].value(), 2.0);
    QCOMPARE(f.takeEvents(), QStringList{"EVENT_TYPE_LINK_FLAP: " + QString::fromStdString(f.model.linkName(link)) +
                                         " flapped 2 times"});

    f.runFor(200);
    f.fabric.portFlap(true, link, 1);  // restarts the quiet minutes
    f.runFor(200);
    QCOMPARE(f.fabric.port(true, link).state, LINK_STATE_FLAPPING);
    f.runFor(101);
    QCOMPARE(f.fabric.port(true, link).state, LINK_STATE_UP);
    QCOMPARE(f.takeEvents(),
             (QStringList{"EVENT_TYPE_LINK_FLAP: " + QString::fromStdString(f.model.linkName(link)) + " flapped 1 time",
                          "EVENT_TYPE_LINK_UP: " + QString::fromStdString(f.model.linkName(link)) + " up"}));

    f.fabric.portDown(false, 3, "scenario");
    f.takeEvents();
    f.fabric.portFlap(false, 3, 1);  // a port that is down does not flap
    QCOMPARE(f.fabric.port(false, 3).state, LINK_STATE_DOWN);
    QVERIFY(f.takeEvents().isEmpty());
}

void LinkFabricTest::errorBurstRaisesAndHoldsTheBer() {
    Fabric f;
    f.runFor(10);
    const std::uint32_t link = 2 * kLinksPerGpu + 4;  // GPU 2, tray 0, rack 0
    f.fabric.portErrorBurst(true, link, 1000, true);
    const PortState& port = f.fabric.port(true, link);
    QCOMPARE(port.crcOrSymbol, 1000u);
    QCOMPARE(port.replayOrRecovery, 250u);
    QCOMPARE(f.host.gpuErrors[2], (std::array<std::uint32_t, 3>{1000, 250, 0}));
    QCOMPARE(f.fabric.rackErrorsPerMinute(0, f.second()), 1000u);
    QCOMPARE(f.fabric.rackErrorsPerMinute(1, f.second()), 0u);
    const double ber = 1000 / (8e11 * 60);  // NVLink5: 800 Gb/s
    QCOMPARE(port.ber, static_cast<float>(ber));
    QCOMPARE(f.out.events.size(), std::size_t(1));
    QCOMPARE(f.out.events[0].type(), EVENT_TYPE_LINK_BER);
    QCOMPARE(f.out.events[0].value(), ber);
    QVERIFY2(f.out.events[0].message().find("(1000 CRC errors within a minute at 800 Gb/s)") != std::string::npos,
             f.out.events[0].message().c_str());

    std::vector<Sample> samples;
    f.fabric.emitPortCounters(samples);
    f.runFor(1799);
    QCOMPARE(f.fabric.port(true, link).ber, static_cast<float>(ber));  // held 30 min
    f.runFor(2);
    QCOMPARE(f.fabric.port(true, link).ber, 0.0f);
    samples.clear();
    f.fabric.emitPortCounters(samples);  // the BER's end is reported too
    QVERIFY(!samples.empty());
    QCOMPARE(samples.back().metric, DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO);
    QCOMPARE(samples.back().value, 0.0f);
    // A minute later the burst has left the rack's window.
    for (int s = 0; s < 60; ++s) {
        f.runFor(1);
        f.fabric.rackErrorsPerMinute(0, f.second());
    }
    QCOMPARE(f.fabric.rackErrorsPerMinute(0, f.second()), 0u);

    f.takeEvents();
    f.fabric.portErrorBurst(false, 4, 100, false);  // below the threshold, on a NIC port
    QCOMPARE(f.fabric.port(false, 4).crcOrSymbol, 100u);
    QCOMPARE(f.fabric.port(false, 4).rcvErrors, 10u);
    QCOMPARE(f.fabric.port(false, 4).ber, 0.0f);
    QVERIFY(!f.host.gpuErrors.count(4));  // not an NVLink
    QVERIFY(f.takeEvents().isEmpty());
}

void LinkFabricTest::scriptedBerPutsItsBurstInTheCounters() {
    Fabric f;
    f.fabric.portBerBurst(false, 2, 1e-12);  // 400 Gb/s over a minute: 24 errors
    QCOMPARE(f.fabric.port(false, 2).crcOrSymbol, 24u);
    QCOMPARE(f.fabric.port(false, 2).ber, static_cast<float>(24 / (4e11 * 60)));
    QVERIFY(f.takeEvents().join("\n").contains("(24 symbol errors within a minute at 400 Gb/s)"));
    f.fabric.portBerBurst(false, 3, 1e-20);  // too small for one error a minute: still one
    QCOMPARE(f.fabric.port(false, 3).crcOrSymbol, 1u);
}

void LinkFabricTest::repairBringsUpOnlyThatGpusPorts() {
    Fabric f;
    const std::uint32_t own = 3 * kLinksPerGpu + 4, other = 4 * kLinksPerGpu;
    f.fabric.portDown(true, own, "xid");
    f.fabric.portDown(true, other, "xid");
    f.fabric.portDown(false, 3, "xid");
    QCOMPARE(f.fabric.port(true, own).recoveryOrDowned, 1u);
    QCOMPARE(f.host.gpuErrors[3], (std::array<std::uint32_t, 3>{0, 0, 1}));
    f.takeEvents();
    f.fabric.repairGpuPorts(3);
    QCOMPARE(f.fabric.port(true, own).state, LINK_STATE_UP);
    QCOMPARE(f.fabric.port(false, 3).state, LINK_STATE_UP);
    QCOMPARE(f.fabric.port(true, other).state, LINK_STATE_DOWN);
    QCOMPARE(f.takeEvents().size(), 2);

    f.fabric.gpuLinkDown(5, "nvlink");  // one of GPU 5's links, drawn from the link stream
    int down = 0;
    for (std::uint32_t l = 0; l < kLinksPerGpu; ++l)
        down += f.fabric.port(true, 5 * kLinksPerGpu + l).state == LINK_STATE_DOWN;
    QCOMPARE(down, 1);
}

void LinkFabricTest::changedCountersAreReportedOnceByOrdinal() {
    Fabric f;
    for (const std::uint32_t link : {30u, 10u, 20u, 10u}) f.fabric.portErrorBurst(true, link, 8, false);
    f.fabric.portErrorBurst(false, 1, 8, false);
    std::vector<Sample> samples;
    f.fabric.emitPortCounters(samples);
    QCOMPARE(samples.size(), std::size_t(3 * 5 + 1));  // five counters an NVLink; a NIC port's state
    QCOMPARE(samples[0].entityIndex, f.model.linkIndex(10));
    QCOMPARE(samples[1].value, 16.0f);  // link 10's two bursts
    QCOMPARE(samples[5].entityIndex, f.model.linkIndex(20));
    QCOMPARE(samples[10].entityIndex, f.model.linkIndex(30));
    QCOMPARE(samples[15].entityIndex, f.model.nicIndex(1));
    QCOMPARE(samples[15].metric, IB_PHY_STATE);  // its counters are the rail links' (tst_sim_raillinks)
    samples.clear();
    f.fabric.emitPortCounters(samples);
    QVERIFY(samples.empty());
}

void LinkFabricTest::noiseSparesUnpoweredTrays() {
    Fabric f;
    f.host.powered = false;
    f.fabric.scheduleNoise();
    f.runFor(7 * 86400);
    QVERIFY(f.takeEvents().isEmpty());
    std::vector<Sample> samples;
    f.fabric.emitPortCounters(samples);
    QVERIFY(samples.empty());
    f.host.powered = true;
    f.runFor(86400);  // ~57 a day on 2 racks' 2,592 links and 144 NIC ports, few of them alarms
    f.fabric.emitPortCounters(samples);
    QVERIFY(samples.size() > 20);
}

QTEST_GUILESS_MAIN(LinkFabricTest)
#include "tst_sim_linkfabric.moc"
