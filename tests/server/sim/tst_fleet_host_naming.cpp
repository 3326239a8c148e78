// The fleet file's host naming: the addresses= and bmcs= columns of rack/racks lines (an IP or a
// DNS name per tray, "{rack}" as in hosts=) and inventory domains=, into the topology the real
// sources map telemetry with and break/fix reaches BMCs by; and every way they can be written
// wrong, refused with the file's line.

#include "FleetModel.h"
#include "FleetSpec.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace watchfloor::server;

namespace {

struct Read {
    std::optional<FleetSpec> spec;
    ConfigError error;
};

Read readFleet(const QTemporaryDir& dir, const std::string& text) {
    const std::string path = dir.filePath("naming.fleet").toStdString();
    std::ofstream(path) << "region east\n" << text;
    Read read;
    read.spec = readFleetFile(path, &read.error);
    return read;
}

}  // namespace

class TstFleetHostNaming : public QObject {
    Q_OBJECT

private slots:
    void addressesAndDomainsReachTheTopology() {
        QTemporaryDir dir;
        const auto read =
            readFleet(dir,
                      "inventory domains=Cluster.Example,.ib.cluster.example\n"
                      "racks 2 hosts=gb200-{rack}-n[01-18] addresses=gb200-{rack}-n[01-18].cluster.example\n"
                      "rack r03 addresses=10.1.3.[11-28]\n");
        QVERIFY2(read.spec, read.error.toString().c_str());
        const FleetModel model(*read.spec, 0);
        const auto& topology = model.topology();
        QCOMPARE(topology.host_domains_size(), 2);
        QCOMPARE(QString::fromStdString(topology.host_domains(0)), QString("cluster.example"));
        QCOMPARE(QString::fromStdString(topology.host_domains(1)), QString("ib.cluster.example"));
        QCOMPARE(QString::fromStdString(topology.nodes(2).hostname()), QString("gb200-r01-n03"));
        QCOMPARE(QString::fromStdString(topology.nodes(2).address()), QString("gb200-r01-n03.cluster.example"));
        QCOMPARE(QString::fromStdString(topology.nodes(19).address()), QString("gb200-r02-n02.cluster.example"));
        QCOMPARE(QString::fromStdString(topology.nodes(36).hostname()), QString("r03-n01"));
        QCOMPARE(QString::fromStdString(topology.nodes(53).address()), QString("10.1.3.28"));
    }

    void bmcsReachTheTopology() {
        QTemporaryDir dir;
        const auto read = readFleet(dir,
                                    "racks 2 hosts=gb200-{rack}-n[01-18] bmcs=gb200-{rack}-n[01-18]-bmc.oob.example\n"
                                    "rack r03 addresses=10.1.3.[11-28] bmcs=10.9.3.[11-28]\nrack r04\n");
        QVERIFY2(read.spec, read.error.toString().c_str());
        const FleetModel model(*read.spec, 0);
        const auto& topology = model.topology();
        QCOMPARE(QString::fromStdString(topology.nodes(2).bmc()), QString("gb200-r01-n03-bmc.oob.example"));
        QCOMPARE(QString::fromStdString(topology.nodes(19).bmc()), QString("gb200-r02-n02-bmc.oob.example"));
        QCOMPARE(QString::fromStdString(topology.nodes(53).bmc()), QString("10.9.3.28"));
        QCOMPARE(QString::fromStdString(topology.nodes(53).address()), QString("10.1.3.28"));
        QVERIFY(topology.nodes(54).bmc().empty());  // r04 names none
    }

    void badNamingIsRefusedWithItsLine_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("problem");
        QTest::newRow("too few") << "rack r01 addresses=10.0.0.[1-17]\n" << 2 << "names 17 addresses for rack r01";
        QTest::newRow("not a list") << "rack r01 addresses=10.0.0.[1-\n" << 2 << "is not a list of addresses";
        QTest::newRow("address twice") << "rack r01 addresses=10.0.0.[1-18]\nrack r02 addresses=10.0.0.[18-35]\n"
                                       << 3 << "'10.0.0.18' names two trays (first on line 2)";
        QTest::newRow("address is another's host") << "rack r01 hosts=n[01-18]\nrack r02 addresses=n[18-35]\n"
                                                   << 3 << "'n18' names two trays";
        QTest::newRow("host and address differ in case only") << "rack r01 hosts=N[01-18]\nrack r02 hosts=n[01-18]\n"
                                                              << 3 << "'n01' names two trays";
        QTest::newRow("too few BMCs") << "rack r01 bmcs=10.9.0.[1-19]\n" << 2 << "names 19 addresses for rack r01";
        QTest::newRow("BMCs not a list") << "rack r01 bmcs=10.9.0.[1-\n" << 2 << "bmcs= '10.9.0.[1-' is not a list";
        QTest::newRow("BMC with a scheme") << "rack r01 bmcs=https://bmc[01-18]\n" << 2 << "is not a list of addresses";
        QTest::newRow("BMC twice") << "rack r01 bmcs=10.9.0.[1-18]\nrack r02 bmcs=10.9.0.[18-35]\n"
                                   << 3 << "BMC '10.9.0.18' is named twice (first on line 2)";
        QTest::newRow("BMC is a tray's address") << "rack r01 addresses=10.1.0.[1-18]\nrack r02 bmcs=10.1.0.[18-35]\n"
                                                 << 3 << "BMC '10.1.0.18' is also a tray's host name or address";
        QTest::newRow("BMC is its own host") << "rack r01 hosts=n[01-18] bmcs=N[01-18]\n"
                                             << 2 << "BMC 'N01' is also a tray's host name or address ('n01')";
        QTest::newRow("bad domain") << "inventory domains=cluster..example\nrack r01\n" << 2 << "is not a DNS domain";
        QTest::newRow("domain is an address") << "inventory domains=10.0.0.1\nrack r01\n" << 2 << "is not a DNS domain";
        QTest::newRow("domains twice") << "inventory domains=a.example\ninventory domains=b.example\nrack r01\n"
                                       << 3 << "domains= is given on one inventory line only";
        // Under a domain list, node01.a.example and node01.b.example are both "node01": a label
        // naming node01 alone could be either tray.
        QTest::newRow("ambiguous short name")
            << "inventory domains=a.example,b.example\nrack r01 hosts=node[01-18].a.example\n"
               "rack r02 hosts=node[01-18].b.example\n"
            << 4 << "'node01.b.example' and 'node01.a.example' (line 3) are both 'node01' under inventory domains=";
        QTest::newRow("short host and a qualified one")
            << "inventory domains=b.example\nrack r01 hosts=node[01-18]\nrack r02 addresses=node[01-18].b.example\n"
            << 4 << "'node01.b.example' and 'node01' (line 3) are both 'node01'";
    }
    void badNamingIsRefusedWithItsLine() {
        QFETCH(QString, text);
        QFETCH(int, line);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const auto read = readFleet(dir, text.toStdString());
        QVERIFY(!read.spec);
        QCOMPARE(read.error.line, line);
        QVERIFY2(QString::fromStdString(read.error.problem).contains(problem), read.error.toString().c_str());
    }

    void twoDomainsWithoutAListAreTwoHosts() {
        // Without domains= nothing says node01.a.example and node01.b.example are one name: both load,
        // and the sources keep them apart (tst_host_naming).
        QTemporaryDir dir;
        const auto read =
            readFleet(dir, "rack r01 hosts=node[01-18].a.example\nrack r02 hosts=node[01-18].b.example\n");
        QVERIFY2(read.spec, read.error.toString().c_str());
    }
};

QTEST_GUILESS_MAIN(TstFleetHostNaming)
#include "tst_fleet_host_naming.moc"
