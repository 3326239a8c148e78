// Topology of the twin: counts and names at the default and at 1,800 racks, index space,
// NVLink and NIC wiring, and fleet files that override the counts.

#include "TwinTestSupport.h"

#include <QtTest>

#include <set>

using namespace twintest;
using namespace watchfloor::v1;

class TwinTopologyTest : public QObject {
    Q_OBJECT

private slots:
    void defaultFleetCounts();
    void indexesUniqueAcrossKinds();
    void nvlinkAndNicWiring();
    void largeFleetCounts();
    void fleetFileOverridesCounts();
    void fleetFileErrorsNameLine_data();
    void fleetFileErrorsNameLine();
};

void TwinTopologyTest::defaultFleetCounts() {
    auto twin = makeTwin(SimConfig{});
    const Topology& t = twin->topology();
    QCOMPARE(t.regions_size(), 2);
    QCOMPARE(t.racks_size(), 7);
    QCOMPARE(t.nodes_size(), 7 * 18);
    QCOMPARE(t.gpus_size(), 504);
    QCOMPARE(t.cpus_size(), 7 * 18 * 2);
    QCOMPARE(t.nvswitch_trays_size(), 7 * 9);
    QCOMPARE(t.power_shelves_size(), 7 * 8);
    QCOMPARE(t.nvlinks_size(), 504 * 18);
    QCOMPARE(t.nic_ports_size(), 7 * 18 * 4);
    QCOMPARE(t.cooling_loops_size(), 7);
    QCOMPARE(t.regions(0).name(), std::string("us-east"));
    QCOMPARE(t.regions(0).rack_indexes_size(), 4);
    QCOMPARE(t.regions(1).name(), std::string("us-west"));
    QCOMPARE(t.regions(1).rack_indexes_size(), 3);
    QCOMPARE(t.racks(0).name(), std::string("r01"));
    QCOMPARE(t.racks(6).name(), std::string("r07"));
    QCOMPARE(t.nodes(0).name(), std::string("r01-n01"));
    QCOMPARE(t.nodes(17).name(), std::string("r01-n18"));
    QCOMPARE(t.gpus(0).name(), std::string("r01-n01-g0"));
    QCOMPARE(t.nvlinks(5).name(), std::string("r01-n01-g0-l05"));
    QCOMPARE(t.nic_ports(2).name(), std::string("r01-n01-ib2"));
    QCOMPARE(t.cpus(1).name(), std::string("r01-n01-c1"));
    for (const auto& rack : t.racks()) {
        QCOMPARE(rack.node_indexes_size(), 18);
        QCOMPARE(rack.nvswitch_tray_indexes_size(), 9);
        QVERIFY(!rack.hall().empty());
        QVERIFY(rack.row() >= 1);
        QVERIFY(rack.position() >= 1);
        QVERIFY(rack.design_power_kw() >= 120 && rack.design_power_kw() <= 132);
    }
    for (const auto& node : t.nodes()) {
        QCOMPARE(node.gpu_indexes_size(), 4);
        QCOMPARE(node.cpu_indexes_size(), 2);
        QCOMPARE(node.nic_port_indexes_size(), 4);
    }
    for (const auto& loop : t.cooling_loops()) QCOMPARE(loop.design_flow_lpm(), 1.5 * t.racks(0).design_power_kw());
    std::set<std::string> uuids;
    for (const auto& gpu : t.gpus()) {
        QCOMPARE(gpu.nvlink_indexes_size(), 18);
        QVERIFY(uuids.insert(gpu.uuid()).second);
    }
}

void TwinTopologyTest::indexesUniqueAcrossKinds() {
    auto twin = makeTwin(SimConfig{});
    const Topology& t = twin->topology();
    std::set<std::uint32_t> seen{t.fleet_index()};
    std::size_t count = 1;
    auto add = [&](const auto& list) {
        for (const auto& entity : list) {
            seen.insert(entity.index());
            ++count;
        }
    };
    add(t.regions());
    add(t.racks());
    add(t.nodes());
    add(t.gpus());
    add(t.cpus());
    add(t.nvswitch_trays());
    add(t.power_shelves());
    add(t.nvlinks());
    add(t.nic_ports());
    add(t.cooling_loops());
    QCOMPARE(seen.size(), count);
    // Jobs take indexes too, distinct from every topology entity.
    FleetChanges changes;
    twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
    QVERIFY(!changes.jobs.empty());
    for (const auto& job : changes.jobs) QVERIFY(seen.insert(job.index()).second);
}

void TwinTopologyTest::nvlinkAndNicWiring() {
    auto twin = makeTwin(SimConfig{});
    const Topology& t = twin->topology();
    std::map<std::uint32_t, std::uint32_t> switchRack;
    for (const auto& sw : t.nvswitch_trays()) switchRack[sw.index()] = sw.rack_index();
    std::map<std::uint32_t, std::uint32_t> gpuRack;
    std::map<std::uint32_t, std::uint32_t> nodeRack;
    for (const auto& node : t.nodes()) nodeRack[node.index()] = node.rack_index();
    for (const auto& gpu : t.gpus()) gpuRack[gpu.index()] = nodeRack[gpu.node_index()];
    std::set<std::pair<std::uint32_t, std::uint32_t>> switchPorts;
    for (const auto& link : t.nvlinks()) {
        // The switch end is in the GPU's own rack: one 72-GPU NVLink domain per rack.
        QCOMPARE(switchRack.at(link.nvswitch_tray_index()), gpuRack.at(link.gpu_index()));
        QVERIFY(link.switch_port() >= 1 && link.switch_port() <= 144);
        QVERIFY(switchPorts.insert({link.nvswitch_tray_index(), link.switch_port()}).second);
    }
    std::set<std::pair<std::string, std::uint32_t>> leafPorts;
    for (const auto& nic : t.nic_ports()) {
        QCOMPARE(nic.rail(), nic.port_id());
        QVERIFY(nic.switch_name().find("rail" + std::to_string(nic.rail())) != std::string::npos);
        QVERIFY(leafPorts.insert({nic.switch_name(), nic.switch_port()}).second);
        QCOMPARE(nic.link_rate_gbps(), 400.0);
    }
}

void TwinTopologyTest::largeFleetCounts() {
    SimConfig config;
    config.racks = 1800;
    config.regions = 4;
    config.telemetry = false;
    auto twin = makeTwin(config);
    const Topology& t = twin->topology();
    QCOMPARE(t.racks_size(), 1800);
    QCOMPARE(t.gpus_size(), 129'600);
    QCOMPARE(t.nodes_size(), 32'400);
    QCOMPARE(t.nvlinks_size(), 129'600 * 18);
    QCOMPARE(t.regions_size(), 4);
    QCOMPARE(t.racks(0).name(), std::string("r0001"));
    QCOMPARE(t.racks(1799).name(), std::string("r1800"));
    QCOMPARE(t.gpus(129'599).name(), std::string("r1800-n18-g3"));
    std::set<std::string> halls;
    for (const auto& rack : t.racks()) halls.insert(std::to_string(rack.region_index()) + "/" + rack.hall());
    QVERIFY(halls.size() > 4);  // 450 racks per region spread over several halls
    std::uint32_t maxIndex = 0;
    for (const auto& link : t.nvlinks()) maxIndex = std::max(maxIndex, link.index());
    QVERIFY(maxIndex > t.gpus(129'599).index());
}

void TwinTopologyTest::fleetFileOverridesCounts() {
    QTemporaryDir dir;
    const std::string path = writeFile(dir, "three.fleet",
                                       "fleet lab\n"
                                       "region eu-north\n"
                                       "rack a1 hall=h7 row=3 power_kw=120 supply_c=27\n"
                                       "racks 2 hall=h7 row=3\n"
                                       "region ap-south\n"
                                       "racks 3\n"
                                       "job big model=405b racks=a1..r03 ckpt_interval=15m ckpt_save=20s\n"
                                       "job small model=8b trays=r04-n01..r04-n08\n");
    SimConfig config;
    config.fleetFile = path;
    config.racks = 99;  // ignored: the file decides
    auto twin = makeTwin(config);
    const Topology& t = twin->topology();
    QCOMPARE(t.fleet_name(), std::string("lab"));
    QCOMPARE(t.regions_size(), 2);
    QCOMPARE(t.racks_size(), 6);
    QCOMPARE(t.racks(0).name(), std::string("a1"));
    QCOMPARE(t.racks(0).hall(), std::string("h7"));
    QCOMPARE(t.racks(0).row(), 3u);
    QCOMPARE(t.racks(0).design_power_kw(), 120.0);
    QCOMPARE(t.cooling_loops(0).supply_setpoint_c(), 27.0);
    QCOMPARE(t.racks(1).name(), std::string("r02"));
    QCOMPARE(t.racks(1).position(), 2u);
    QCOMPARE(t.racks(5).name(), std::string("r06"));
    FleetChanges changes;
    twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
    QCOMPARE(changes.jobs.size(), std::size_t(2));
    QCOMPARE(changes.jobs[0].name(), std::string("big"));
    QCOMPARE(changes.jobs[0].gpu_count(), 3u * 72u);
    QCOMPARE(changes.jobs[0].checkpoint_interval_s(), 900.0);
    QCOMPARE(changes.jobs[0].checkpoint_save_s(), 20.0);
    QCOMPARE(changes.jobs[1].gpu_count(), 8u * 4u);
}

void TwinTopologyTest::fleetFileErrorsNameLine_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("problem");
    QTest::newRow("unknown keyword") << "region a\nrack r1\nrow r2\n" << 3 << "unknown keyword 'row'";
    QTest::newRow("rack before region") << "# racks\nrack r1\n" << 2 << "before any 'region'";
    QTest::newRow("bad number") << "region a\nrack r1 power_kw=lots\n" << 2 << "'power_kw=lots' is not a number";
    QTest::newRow("out of range") << "region a\nrack r1 power_kw=5000\n" << 2 << "out of range";
    QTest::newRow("unknown option") << "region a\nrack r1 colour=red\n" << 2 << "unknown option 'colour'";
    QTest::newRow("duplicate rack") << "region a\nrack r1\nrack r1\n" << 3 << "declared twice";
    QTest::newRow("dash in rack name") << "region a\nrack r-1\n" << 2 << "may not contain";
    QTest::newRow("bad duration") << "region a\nrack r1\njob j model=8b racks=r1 ckpt_interval=soon\n"
                                  << 3 << "'ckpt_interval=soon' is not a duration";
    QTest::newRow("auto is the only word") << "region a\nrack r1\njob j model=8b racks=r1 ckpt_interval=automatic\n"
                                           << 3 << "'ckpt_interval=automatic' is not a duration";
    QTest::newRow("unknown model") << "region a\nrack r1\njob j model=1t racks=r1\n" << 3 << "model=405b|70b|8b";
    QTest::newRow("unknown rack in job") << "region a\nrack r1\njob j model=8b racks=r1..r9\n"
                                         << 3 << "unknown name 'r9'";
    QTest::newRow("tray twice") << "region a\nrack r1\njob j model=8b racks=r1\njob k model=8b trays=r1-n02\n"
                                << 4 << "already belongs to another job";
    QTest::newRow("malformed option") << "region a\nrack r1 hall=\n" << 2 << "malformed option";
    QTest::newRow("no racks") << "region a\n" << 0 << "no racks declared";
}

void TwinTopologyTest::fleetFileErrorsNameLine() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const std::string path = writeFile(dir, "bad.fleet", text.toStdString());
    SimConfig config;
    config.fleetFile = path;
    ConfigError error;
    QVERIFY(DigitalTwin::create(config, &error) == nullptr);
    QCOMPARE(error.file, path);
    QCOMPARE(error.line, line);
    QVERIFY2(QString::fromStdString(error.problem).contains(problem), error.toString().c_str());
    const std::string prefix = line > 0 ? path + ":" + std::to_string(line) + ": " : path + ": ";
    QVERIFY2(error.toString().rfind(prefix, 0) == 0, error.toString().c_str());
}

QTEST_GUILESS_MAIN(TwinTopologyTest)
#include "tst_twin_topology.moc"
