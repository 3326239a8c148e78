// What the real node_exporter makes of the fixture's sysfs tree: every family the Prometheus source
// reads, with the values written (octets through the kernel's 4-octet words, rates through the
// "Gb/sec" text, millidegrees), and a rewrite seen by the next scrape.

#include "NodeExporterFixture.h"

#include <QtTest>

#include <optional>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>

using watchfloor::testing::HwmonSensor;
using watchfloor::testing::IbPortCounters;
using watchfloor::testing::NodeExporterFixture;

namespace {

// The value of one series, written as the exposition writes it: name{labels in name order}.
// Values go through double because node_exporter writes large ones as 4.000000028e+09.
std::optional<double> sample(const QByteArray& body, const QByteArray& series) {
    for (const QByteArray& line : body.split('\n')) {
        if (line.startsWith(series + ' ')) {
            bool ok = false;
            const double value = line.mid(series.size() + 1).trimmed().toDouble(&ok);
            if (ok) return value;
        }
    }
    return std::nullopt;
}

int seriesCount(const QByteArray& body, const QByteArray& family) {
    int count = 0;
    for (const QByteArray& line : body.split('\n'))
        if (line.startsWith(family + '{')) ++count;
    return count;
}

IbPortCounters activePort() {
    IbPortCounters p;
    p.device = "mlx5_0";
    p.port = 1;
    p.linkDowned = 3;
    p.symbolErrors = 17;
    p.linkErrorRecovery = 2;
    p.rcvErrors = 5;
    p.xmitDiscards = 7;
    p.xmitWait = 123456;
    p.xmitDataOctets = 4'000'000'028;  // past 32 bits
    p.rcvDataOctets = 8'000'000'000'004;
    p.rateGbps = 400;
    return p;
}

IbPortCounters downPort() {
    IbPortCounters p;
    p.device = "mlx5_3";
    p.port = 1;
    p.linkDowned = 11;
    p.symbolErrors = 65535;
    p.linkErrorRecovery = 255;
    p.rcvErrors = 1;
    p.xmitDiscards = 0;
    p.xmitWait = 9;
    p.xmitDataOctets = 1022;  // not a whole number of words: reported as 1020
    p.rcvDataOctets = 4096;
    p.active = false;
    p.rateGbps = 200;
    return p;
}

std::vector<HwmonSensor> sensors(double cpuTemp1) {
    return {{"hwmon0", "coretemp", 1, cpuTemp1}, {"hwmon0", "coretemp", 2, 47.125}, {"hwmon1", "nvme", 1, 38}};
}

}  // namespace

class TestNodeExporterFixture : public QObject {
    Q_OBJECT

private:
    QByteArray body_;

    void expect(const QByteArray& series, double expected) {
        const auto value = sample(body_, series);
        if (!value)
            QFAIL(qPrintable(QStringLiteral("%1 missing from the scrape:\n%2")
                                 .arg(QString::fromUtf8(series), QString::fromUtf8(body_))));
        if (*value != expected)
            QFAIL(qPrintable(QStringLiteral("%1 is %2, expected %3; the scrape:\n%4")
                                 .arg(QString::fromUtf8(series))
                                 .arg(*value, 0, 'g', 17)
                                 .arg(expected, 0, 'g', 17)
                                 .arg(QString::fromUtf8(body_))));
    }

private slots:
    void reportsTheTree() {
        NodeExporterFixture fixture({activePort(), downPort()}, sensors(45.5));
        QVERIFY2(fixture.ok(), qPrintable(fixture.error()));
        QVERIFY(fixture.port() > 0);
        body_ = fixture.scrape();
        QVERIFY2(!body_.isEmpty(), fixture.log().constData());

        // Both collectors read the tree without error.
        expect(R"(node_scrape_collector_success{collector="infiniband"})", 1);
        expect(R"(node_scrape_collector_success{collector="hwmon"})", 1);

        const QByteArray a = R"({device="mlx5_0",port="1"})";
        expect("node_infiniband_link_downed_total" + a, 3);
        expect("node_infiniband_symbol_error_total" + a, 17);
        expect("node_infiniband_link_error_recovery_total" + a, 2);
        expect("node_infiniband_port_errors_received_total" + a, 5);
        expect("node_infiniband_port_discards_transmitted_total" + a, 7);
        expect("node_infiniband_port_transmit_wait_total" + a, 123456);
        expect("node_infiniband_port_data_transmitted_bytes_total" + a, 4'000'000'028.0);
        expect("node_infiniband_port_data_received_bytes_total" + a, 8'000'000'000'004.0);
        expect("node_infiniband_state_id" + a, 4);
        expect("node_infiniband_physical_state_id" + a, 5);
        expect("node_infiniband_rate_bytes_per_second" + a, 50e9);  // 400 Gb/s

        const QByteArray b = R"({device="mlx5_3",port="1"})";
        expect("node_infiniband_link_downed_total" + b, 11);
        expect("node_infiniband_symbol_error_total" + b, 65535);
        expect("node_infiniband_link_error_recovery_total" + b, 255);
        expect("node_infiniband_port_errors_received_total" + b, 1);
        expect("node_infiniband_port_discards_transmitted_total" + b, 0);
        expect("node_infiniband_port_transmit_wait_total" + b, 9);
        expect("node_infiniband_port_data_transmitted_bytes_total" + b, 1020);
        expect("node_infiniband_port_data_received_bytes_total" + b, 4096);
        expect("node_infiniband_state_id" + b, 1);
        expect("node_infiniband_physical_state_id" + b, 3);
        expect("node_infiniband_rate_bytes_per_second" + b, 25e9);  // 200 Gb/s
        QCOMPARE(seriesCount(body_, "node_infiniband_link_downed_total"), 2);

        expect(R"(node_hwmon_temp_celsius{chip="coretemp",sensor="temp1"})", 45.5);
        expect(R"(node_hwmon_temp_celsius{chip="coretemp",sensor="temp2"})", 47.125);
        expect(R"(node_hwmon_temp_celsius{chip="nvme",sensor="temp1"})", 38);
        QCOMPARE(seriesCount(body_, "node_hwmon_temp_celsius"), 3);
        expect(R"(node_hwmon_chip_names{chip="coretemp",chip_name="coretemp"})", 1);

        // The exporter reads sysfs on every scrape: a rewrite shows in the next one.
        IbPortCounters flapped = activePort();
        flapped.linkDowned = 4;
        flapped.xmitDataOctets += 400'000'000'000;
        fixture.update({flapped, downPort()}, sensors(61.25));
        QVERIFY2(fixture.ok(), qPrintable(fixture.error()));
        body_ = fixture.scrape();
        QVERIFY2(!body_.isEmpty(), fixture.log().constData());
        expect("node_infiniband_link_downed_total" + a, 4);
        expect("node_infiniband_port_data_transmitted_bytes_total" + a, 404'000'000'028.0);
        expect("node_infiniband_link_downed_total" + b, 11);
        expect(R"(node_hwmon_temp_celsius{chip="coretemp",sensor="temp1"})", 61.25);

        // A port that goes away is gone from the next scrape.
        fixture.update({flapped}, sensors(61.25));
        QVERIFY2(fixture.ok(), qPrintable(fixture.error()));
        body_ = fixture.scrape();
        QCOMPARE(seriesCount(body_, "node_infiniband_link_downed_total"), 1);
        expect("node_infiniband_link_downed_total" + a, 4);
    }

    void noPortsNoSensors() {
        NodeExporterFixture fixture({}, {});
        QVERIFY2(fixture.ok(), qPrintable(fixture.error()));
        body_ = fixture.scrape();
        QVERIFY2(!body_.isEmpty(), fixture.log().constData());
        QCOMPARE(seriesCount(body_, "node_infiniband_state_id"), 0);
        QCOMPARE(seriesCount(body_, "node_hwmon_temp_celsius"), 0);
    }

    void stopsTheExporter() {
        qint64 pid = 0;
        int port = 0;
        {
            NodeExporterFixture fixture({activePort()}, {});
            QVERIFY2(fixture.ok(), qPrintable(fixture.error()));
            pid = fixture.pid();
            port = fixture.port();
            QVERIFY(pid > 0);
        }
        // Reaped, and its port refuses connections.
        QCOMPARE(::kill(static_cast<pid_t>(pid), 0), -1);
        QCOMPARE(errno, ESRCH);
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        QVERIFY(fd >= 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        const int connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
        ::close(fd);
        QCOMPARE(connected, -1);
    }
};

QTEST_GUILESS_MAIN(TestNodeExporterFixture)
#include "tst_node_exporter_fixture.moc"
