// How a store's answers become fleetd's values, on hand-made series: the fleet file's inventory
// (hosts=, gpus=, nics=), both Hostname spellings, sample times from timestamp() anchors (and
// what happens without one, or from the future), DCGM blanks, infinities, duplicates, Xid gauge
// changes, IB octets to Gb/s, hosts not in the inventory reported once, a failed answer discarded.

#include "FleetModel.h"
#include "FleetSpec.h"
#include "StoreTelemetry.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace watchfloor::server;
namespace v1 = watchfloor::v1;
using sources::PollQuery;

namespace {

constexpr std::int64_t kPollMs = 1'800'000'000'000;  // 2027-01-15
constexpr std::chrono::minutes kLookback(5);

struct Series {
    std::vector<std::pair<std::string, std::string>> labels;
    std::vector<prom::Label> views() const {
        std::vector<prom::Label> out;
        for (const auto& [n, v] : labels) out.push_back({n, v});
        return out;
    }
};

const PollQuery& queryOf(const std::vector<PollQuery>& queries, PollQuery::Kind kind, std::string_view name = {}) {
    for (const auto& q : queries)
        if (q.kind == kind && (name.empty() || q.promql == name)) return q;
    qFatal("no such query");
}

class Fleet {
public:
    explicit Fleet(const std::string& fleetFile) {
        QVERIFY(dir_.isValid());
        const std::string path = dir_.filePath("site.fleet").toStdString();
        std::ofstream(path) << fleetFile;
        ConfigError error;
        auto spec = readFleetFile(path, &error);
        if (!spec) qFatal("%s", error.toString().c_str());
        model_ = std::make_unique<FleetModel>(*spec, 0);
    }
    const v1::Topology& topology() const { return model_->topology(); }
    std::uint32_t entity(const std::string& name) const {
        for (const auto& g : topology().gpus())
            if (g.name() == name) return g.index();
        for (const auto& n : topology().nic_ports())
            if (n.name() == name) return n.index();
        for (const auto& n : topology().nodes())
            if (n.name() == name) return n.index();
        for (const auto& r : topology().racks())
            if (r.name() == name) return r.index();
        for (const auto& l : topology().nvlinks())
            if (l.name() == name) return l.index();
        qFatal("no entity %s", name.c_str());
    }

private:
    QTemporaryDir dir_;
    std::unique_ptr<FleetModel> model_;
};

const char* kSiteFleet =
    "fleet site\n"
    "region east\n"
    "inventory gpus=3,2,1,0 nics=mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1\n"
    "rack r01 hosts=gb200-a[01-18]\n"
    "rack r02 hosts={rack}-host[101-118]\n";

struct Poll {
    sources::StoreTelemetry& telemetry;
    std::vector<PollQuery> queries = sources::pollQueries();
    std::size_t next = 0;
    void add(PollQuery::Kind kind, std::string_view name, const Series& series, double value,
             std::int64_t timeMs = kPollMs) {
        const auto& q = queryOf(queries, kind, name);
        const auto labels = series.views();
        telemetry.add(std::size_t(&q - queries.data()), q, labels, {timeMs, value});
    }
};

Series gpu(const std::string& hostLabel, const std::string& host, const std::string& index) {
    return Series{
        {{hostLabel, host}, {"gpu", index}, {"UUID", "GPU-" + host + "-" + index}, {"instance", host + ":9400"}}};
}

Series port(const std::string& host, const std::string& device) {
    return {{{"device", device}, {"port", "1"}, {"instance", host + ":9100"}, {"job", "node"}}};
}

}  // namespace

class TstStoreTelemetry : public QObject {
    Q_OBJECT

private slots:
    void inventoryMapsHostsGpusAndPorts() {
        Fleet fleet(kSiteFleet);
        const auto& nodes = fleet.topology().nodes();
        QCOMPARE(QString::fromStdString(nodes[2].hostname()), QString("gb200-a03"));
        QCOMPARE(QString::fromStdString(nodes[18].hostname()), QString("r02-host101"));
        sources::StoreTelemetry telemetry(fleet.topology(), kLookback, {});
        telemetry.begin(kPollMs);
        Poll poll{telemetry};
        // DCGM's gpu 3 is slot g0 on these hosts; the 4.8 exporter spells the label hostname.
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_GPU_TEMP", gpu("Hostname", "gb200-a03", "3"), 61);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_GPU_TEMP", gpu("hostname", "r02-host118", "0"), 64);
        poll.add(PollQuery::Kind::GpuAnchor, "", gpu("Hostname", "gb200-a03", "3"), (kPollMs - 4000) / 1000.0);
        poll.add(PollQuery::Kind::GpuAnchor, "", gpu("hostname", "r02-host118", "0"), (kPollMs - 2000) / 1000.0);
        poll.add(PollQuery::Kind::IbFamily, "node_infiniband_link_downed_total", port("gb200-a03", "mlx5_5"), 2);
        poll.add(PollQuery::Kind::IbAnchor, "", port("gb200-a03", "mlx5_5"), (kPollMs - 1000) / 1000.0);
        // mlx5_0 is not one of this inventory's rails: counted, not mapped.
        poll.add(PollQuery::Kind::IbFamily, "node_infiniband_link_downed_total", port("gb200-a03", "mlx5_0"), 9);
        FleetChanges out;
        const auto notes = telemetry.finish(out);
        QCOMPARE(notes.unmapped, std::uint64_t(1));
        std::map<std::pair<std::uint32_t, int>, std::pair<float, std::int64_t>> got;
        for (std::size_t i = 0; i < out.samples.size(); ++i)
            got[{out.samples[i].entityIndex, out.samples[i].metric}] = {out.samples[i].value, out.sampleTimeMs(i)};
        const auto a = got.at({fleet.entity("r01-n03-g0"), v1::DCGM_FI_DEV_GPU_TEMP});
        QCOMPARE(a.first, 61.0f);
        QCOMPARE(a.second, kPollMs - 4000);  // the scrape's time, not the poll's
        QCOMPARE(got.at({fleet.entity("r02-n18-g3"), v1::DCGM_FI_DEV_GPU_TEMP}).first, 64.0f);
        const auto ib = got.at({fleet.entity("r01-n03-ib1"), v1::IB_LINK_DOWNED_COUNTER});
        QCOMPARE(ib.first, 2.0f);
        QCOMPARE(ib.second, kPollMs - 1000);
        // Rack aggregates from what was read.
        QCOMPARE(got.at({fleet.entity("r01"), v1::RACK_GPU_TEMP_MAX_C}).first, 61.0f);
        QCOMPARE(got.at({fleet.entity("r01"), v1::RACK_GPUS_HEALTHY}).first, 1.0f);
        // The rack's health as its GPUs show it, for the rack map; sent again only on change.
        QCOMPARE(out.states.size(), std::size_t(2));
        QCOMPARE(out.states[0].health(), v1::HEALTH_STATE_HEALTHY);
        QVERIFY(QString::fromStdString(out.states[0].reason()).contains("1 of 72 GPUs reporting"));
    }

    void badFleetFilesNameTheLine_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("problem");
        QTest::newRow("17 hosts") << "region e\nrack r01 hosts=h[01-17]\n"
                                  << "site.fleet:2: hosts= 'h[01-17]' names 17 hosts";
        QTest::newRow("twice") << "region e\nrack r01 hosts=h[01-18]\nrack r02 hosts=h[18-35]\n"
                               << "site.fleet:3: host 'h18' is named twice (first on line 2)";
        QTest::newRow("racks without {rack}") << "region e\nracks 2 hosts=h[01-18]\n"
                                              << "is named twice";
        QTest::newRow("not a hostlist") << "region e\nrack r01 hosts=h[01-18\n"
                                        << "is not a hostlist";
        QTest::newRow("gpus") << "region e\ninventory gpus=0,1,1,2\nrack r01\n"
                              << "site.fleet:2: gpus= item '1' is not a distinct";
        QTest::newRow("nics") << "region e\ninventory nics=mlx5_0,mlx5_1:1,mlx5_2:1,mlx5_3:1\nrack r01\n"
                              << "nics= item 'mlx5_0'";
    }
    void badFleetFilesNameTheLine() {
        QFETCH(QString, text);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const std::string path = dir.filePath("site.fleet").toStdString();
        std::ofstream(path) << text.toStdString();
        ConfigError error;
        QVERIFY(!readFleetFile(path, &error));
        QVERIFY2(QString::fromStdString(error.toString()).contains(problem), error.toString().c_str());
    }

    void valuesThatAreNotReadings() {
        Fleet fleet(kSiteFleet);
        sources::StoreTelemetry telemetry(fleet.topology(), kLookback, {});
        telemetry.begin(kPollMs);
        Poll poll{telemetry};
        const auto g0 = gpu("Hostname", "gb200-a01", "3"), g1 = gpu("Hostname", "gb200-a01", "2"),
                   g2 = gpu("Hostname", "gb200-a01", "1"), g3 = gpu("Hostname", "gb200-a01", "0");
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_MEM_CLOCK", g0, 9223372036854775794.0);  // DCGM blank
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_MEM_CLOCK", g1, INFINITY);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_MEM_CLOCK", g2, 1593);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_MEM_CLOCK", g2, 1400);  // a second series: duplicate
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_MEM_CLOCK", g3, 1593);  // no anchor for g3
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", g2, 250000);  // MB/s
        for (const auto& g : {g0, g1, g2}) poll.add(PollQuery::Kind::GpuAnchor, "", g, (kPollMs - 3000) / 1000.0);
        poll.add(PollQuery::Kind::GpuAnchor, "", gpu("Hostname", "gb200-a02", "3"), (kPollMs + 60'000) / 1000.0);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_GPU_TEMP", gpu("Hostname", "gb200-a02", "3"), 50);
        FleetChanges out;
        const auto notes = telemetry.finish(out);
        QCOMPARE(notes.notFinite, std::uint64_t(1));
        QCOMPARE(notes.duplicates, std::uint64_t(1));
        QCOMPARE(notes.fromTheFuture, std::uint64_t(1));
        QCOMPARE(notes.withoutAnchor, std::uint64_t(1));
        auto find = [&](const std::string& name, v1::Metric metric) -> std::pair<float, std::int64_t> {
            for (std::size_t i = 0; i < out.samples.size(); ++i)
                if (out.samples[i].entityIndex == fleet.entity(name) && out.samples[i].metric == metric)
                    return {out.samples[i].value, out.sampleTimeMs(i)};
            qFatal("missing %s", name.c_str());
        };
        QVERIFY(std::isnan(find("r01-n01-g0", v1::DCGM_FI_DEV_MEM_CLOCK).first));
        QVERIFY(std::isnan(find("r01-n01-g1", v1::DCGM_FI_DEV_MEM_CLOCK).first));
        QCOMPARE(find("r01-n01-g2", v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL).first, 250.0f);  // GB/s
        // Without an anchor: as old as the store could have answered with, so shown stale.
        QCOMPARE(find("r01-n01-g3", v1::DCGM_FI_DEV_MEM_CLOCK).second, kPollMs - 300'000);
        // From the future: clamped to the poll, never later.
        QCOMPARE(find("r01-n02-g0", v1::DCGM_FI_DEV_GPU_TEMP).second, kPollMs);
    }

    void xidChangesAreEventsAndUnknownHostsAreReportedOnce() {
        Fleet fleet(kSiteFleet);
        std::vector<std::string> log;
        sources::StoreTelemetry telemetry(fleet.topology(), kLookback, [&](const std::string& l) { log.push_back(l); });
        const auto g = gpu("Hostname", "gb200-a05", "1");  // slot g2
        std::vector<v1::Event> events;
        for (int round = 0; round < 4; ++round) {
            telemetry.begin(kPollMs + round * 1000);
            Poll poll{telemetry};
            // Round 0: a last-Xid already there (old news). 1: unchanged. 2: Xid 79. 3: an Xid
            // the catalogue does not have.
            const double xid = round < 2 ? 13 : round == 2 ? 79 : 999;
            poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_XID_ERRORS", g, xid);
            poll.add(PollQuery::Kind::GpuAnchor, "", g, (kPollMs + round * 1000) / 1000.0);
            poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_GPU_TEMP", gpu("Hostname", "intruder", "0"), 40);
            poll.add(PollQuery::Kind::HostTemperature, "", {{{"instance", "intruder:9100"}}}, 40);
            FleetChanges out;
            telemetry.finish(out);
            for (auto& e : out.events) events.push_back(e);
        }
        std::vector<v1::Event> xids, unknown;
        for (const auto& e : events) (e.type() == v1::EVENT_TYPE_XID ? xids : unknown).push_back(e);
        QCOMPARE(xids.size(), std::size_t(2));
        QCOMPARE(xids[0].entity_index(), fleet.entity("r01-n05-g2"));
        QCOMPARE(xids[0].xid().xid(), 79u);
        QCOMPARE(QString::fromStdString(xids[0].xid().mnemonic()), QString("GPU_HAS_FALLEN_OFF_THE_BUS"));
        QCOMPARE(xids[0].severity(), v1::SEVERITY_CRITICAL);
        QCOMPARE(xids[0].time_unix_ms(), kPollMs + 2000);
        QVERIFY(QString::fromStdString(xids[1].message()).contains("not in the fleet's Xid table"));
        QCOMPARE(unknown.size(), std::size_t(1));
        QCOMPARE(unknown[0].type(), v1::EVENT_TYPE_SOURCE);
        QVERIFY(QString::fromStdString(unknown[0].message()).contains("'intruder'"));
        QCOMPARE(log.size(), std::size_t(1));
    }

    void octetCountersBecomeRates() {
        Fleet fleet(kSiteFleet);
        sources::StoreTelemetry telemetry(fleet.topology(), kLookback, {});
        const auto p = port("gb200-a07", "mlx5_6");  // rail 2
        std::vector<float> rates;
        const double octets[] = {1e12, 1e12 + 25e9, 1e12 + 25e9, 5e9};  // +25 GB in 10 s, same scrape, reset
        for (int round = 0; round < 4; ++round) {
            const std::int64_t scrapeMs = kPollMs + std::min(round, 1) * 10'000 + (round == 3 ? 20'000 : 0);
            telemetry.begin(kPollMs + round * 10'000);
            Poll poll{telemetry};
            poll.add(PollQuery::Kind::IbFamily, "node_infiniband_port_data_transmitted_bytes_total", p, octets[round]);
            poll.add(PollQuery::Kind::IbAnchor, "", p, scrapeMs / 1000.0);
            FleetChanges out;
            telemetry.finish(out);
            for (const auto& s : out.samples)
                if (s.metric == v1::IB_PORT_XMIT_DATA_GBPS && s.entityIndex == fleet.entity("r01-n07-ib2"))
                    rates.push_back(s.value);
        }
        // First sight: no rate; then 25e9 octets x 8 / 10 s = 20 Gb/s; the same scrape again and a
        // counter reset give none.
        QCOMPARE(rates.size(), std::size_t(1));
        QCOMPARE(rates[0], 20.0f);
    }

    void nvlink5FieldsUnderEitherNameLandOnTheGpuAndItsLinks() {
        Fleet fleet(kSiteFleet);
        sources::StoreTelemetry telemetry(fleet.topology(), kLookback, {});
        telemetry.begin(kPollMs);
        Poll poll{telemetry};
        // One host's CSV says the older names, another's the DCGM 4.6 ones.
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_COUNT_RX_SYMBOL_ERRORS",
                 gpu("Hostname", "gb200-a03", "3"), 17);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL",
                 gpu("hostname", "gb200-a04", "3"), 18);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_COUNT_SYMBOL_BER_FLOAT",
                 gpu("Hostname", "gb200-a03", "3"), 2.5e-15);
        poll.add(PollQuery::Kind::GpuAnchor, "", gpu("Hostname", "gb200-a03", "3"), (kPollMs - 3000) / 1000.0);
        // Link-entity series: nvlink beside gpu, gpu_uuid, model_name, hostname (render_metrics.go).
        auto link = [](const std::string& host, const std::string& gpuIndex, const std::string& nvlink) {
            return Series{{{"nvlink", nvlink},
                           {"gpu", gpuIndex},
                           {"gpu_uuid", "GPU-" + host + "-" + gpuIndex},
                           {"pci_bus_id", "00000008:01:00.0"},
                           {"device", "nvidia" + gpuIndex},
                           {"model_name", "NVIDIA GB200"},
                           {"hostname", host},
                           {"instance", host + ":9400"}}};
        };
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODES", link("gb200-a03", "3", "5"),
                 4e12);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_ERROR_TOTAL",
                 link("gb200-a03", "3", "5"), 40);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_UNCORRECTABLE_CODE",
                 link("gb200-a03", "3", "17"), 1);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_GET_STATE", link("gb200-a03", "3", "6"), 0);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_PPCNT_PHYSICAL_LINK_DOWN_COUNTER",
                 link("gb200-a03", "3", "6"), 2);
        // A link the GPU does not have, and one without its nvlink label: counted, not mapped.
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODES", link("gb200-a03", "3", "18"), 1);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODES",
                 gpu("Hostname", "gb200-a03", "3"), 1);
        // node_exporter's rate: a port trained down to 200 Gb/s reads 2.5e10 bytes/s.
        poll.add(PollQuery::Kind::IbFamily, "node_infiniband_rate_bytes_per_second", port("gb200-a03", "mlx5_5"),
                 2.5e10);
        FleetChanges out;
        const auto notes = telemetry.finish(out);
        QCOMPARE(notes.unmapped, std::uint64_t(2));
        std::map<std::pair<std::uint32_t, int>, std::pair<float, std::int64_t>> got;
        for (std::size_t i = 0; i < out.samples.size(); ++i)
            got[{out.samples[i].entityIndex, out.samples[i].metric}] = {out.samples[i].value, out.sampleTimeMs(i)};
        const auto g0 = fleet.entity("r01-n03-g0");
        QCOMPARE(got.at({g0, v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL}).first, 17.0F);
        QCOMPARE(got.at({fleet.entity("r01-n04-g0"), v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL}).first, 18.0F);
        QCOMPARE(got.at({g0, v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO}).first, 2.5e-15F);
        const auto l5 = got.at({fleet.entity("r01-n03-g0-l05"), v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_TOTAL});
        QCOMPARE(l5.first, 4e12F);
        QCOMPARE(l5.second, kPollMs - 3000);  // its GPU's scrape time
        QCOMPARE(got.at({fleet.entity("r01-n03-g0-l05"), v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_ERROR_TOTAL}).first,
                 40.0F);
        QCOMPARE(got.at({fleet.entity("r01-n03-g0-l17"), v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_UNCORRECTABLE_TOTAL})
                     .first,
                 1.0F);
        QCOMPARE(got.at({fleet.entity("r01-n03-g0-l06"), v1::DCGM_FI_DEV_NVLINK_GET_STATE}).first, 0.0F);
        QCOMPARE(got.at({fleet.entity("r01-n03-g0-l06"), v1::DCGM_FI_DEV_NVLINK_PPCNT_PHYSICAL_LINK_DOWN_TOTAL}).first,
                 2.0F);
        QCOMPARE(got.at({fleet.entity("r01-n03-ib1"), v1::IB_LINK_RATE_GBPS}).first, 200.0F);
    }

    void aFailedAnswerIsDiscardedWhole() {
        Fleet fleet(kSiteFleet);
        sources::StoreTelemetry telemetry(fleet.topology(), kLookback, {});
        telemetry.begin(kPollMs);
        Poll poll{telemetry};
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_GPU_TEMP", gpu("Hostname", "gb200-a01", "0"), 60);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_POWER_USAGE", gpu("Hostname", "gb200-a01", "0"), 900);
        poll.add(PollQuery::Kind::DcgmField, "DCGM_FI_DEV_POWER_USAGE", gpu("Hostname", "gb200-a01", "1"), 910);
        const auto& power = queryOf(poll.queries, PollQuery::Kind::DcgmField, "DCGM_FI_DEV_POWER_USAGE");
        telemetry.discard(std::size_t(&power - poll.queries.data()));
        FleetChanges out;
        telemetry.finish(out);
        for (const auto& s : out.samples) QVERIFY(s.metric != v1::DCGM_FI_DEV_POWER_USAGE);
        QVERIFY(std::any_of(out.samples.begin(), out.samples.end(),
                            [](const Sample& s) { return s.metric == v1::DCGM_FI_DEV_GPU_TEMP; }));
    }

    // Only sample times that moved since an earlier poll say how late the store delivers: a GPU
    // whose exporter stopped keeps its old anchor (the store still has it within its lookback) and
    // counts for nothing, nor does a first sight, nor an answer that failed part-way.
    void freshAnchorsAreTheSampleTimesThatMoved() {
        Fleet fleet(kSiteFleet);
        sources::StoreTelemetry telemetry(fleet.topology(), kLookback, {});
        const auto a = gpu("Hostname", "gb200-a01", "0"), b = gpu("Hostname", "gb200-a02", "0");
        const auto ib = port("gb200-a01", "mlx5_4");
        auto anchors = [&](std::int64_t pollMs, std::int64_t aMs, std::int64_t bMs, std::int64_t ibMs) {
            telemetry.begin(pollMs);
            Poll poll{telemetry};
            poll.add(PollQuery::Kind::GpuAnchor, "", a, aMs / 1000.0);
            poll.add(PollQuery::Kind::GpuAnchor, "", b, bMs / 1000.0);
            poll.add(PollQuery::Kind::IbAnchor, "", ib, ibMs / 1000.0);
            return poll;
        };
        FleetChanges out;
        anchors(kPollMs, kPollMs - 31'000, kPollMs - 31'000, kPollMs - 30'500);
        QVERIFY(telemetry.freshAnchors().empty());  // first sight: not known to be new
        telemetry.finish(out);

        Poll second = anchors(kPollMs + 5'000, kPollMs - 26'000, kPollMs - 31'000, kPollMs - 25'500);
        const std::size_t gpuAnchors =
            std::size_t(&queryOf(second.queries, PollQuery::Kind::GpuAnchor) - second.queries.data());
        const std::size_t ibAnchors =
            std::size_t(&queryOf(second.queries, PollQuery::Kind::IbAnchor) - second.queries.data());
        const auto& fresh = telemetry.freshAnchors();
        QCOMPARE(fresh.size(), std::size_t(2));  // a and the port moved; b did not
        QCOMPARE(fresh[0].queryIndex, gpuAnchors);
        QCOMPARE(fresh[0].ageMs, std::int64_t(31'000));
        QCOMPARE(fresh[1].queryIndex, ibAnchors);
        QCOMPARE(fresh[1].ageMs, std::int64_t(30'500));
        telemetry.finish(out);

        // The port's answer fails part-way: its anchors teach nothing.
        anchors(kPollMs + 10'000, kPollMs + 9'000, kPollMs - 31'000, kPollMs + 9'500);
        telemetry.discard(ibAnchors);
        QCOMPARE(telemetry.freshAnchors().size(), std::size_t(1));
        QCOMPARE(telemetry.freshAnchors()[0].ageMs, std::int64_t(1'000));
        telemetry.finish(out);
    }

    // The lag: a poll's median fresh age, smoothed (rises slowly, falls quickly), bounded so that a
    // value stamped with the lookback's time is still stale.
    void deliveryLagIsARobustSmoothedMedian() {
        using std::chrono::milliseconds;
        using std::chrono::seconds;
        QCOMPARE(sources::DeliveryLag::ceilingFor(seconds(5), seconds(5), std::chrono::minutes(5)), seconds(265));
        QCOMPARE(sources::DeliveryLag::ceilingFor(seconds(15), seconds(15), std::chrono::minutes(1)), seconds(0));

        sources::DeliveryLag lag(sources::DeliveryLag::ceilingFor(seconds(5), seconds(5), kLookback));
        QVERIFY(!lag.lag());
        std::vector<std::int64_t> none;
        lag.addPoll(none);
        QVERIFY(!lag.lag());  // nothing new read: nothing learned

        // VictoriaMetrics asked without nocache=1: every sample 30-35 s old; one GPU far behind.
        std::vector<std::int64_t> late{31'000, 33'000, 32'000, 250'000, 34'000};
        lag.addPoll(late);
        QCOMPARE(*lag.lag(), milliseconds(33'000));
        QVERIFY(!lag.capped());

        // The store answers with its newest samples from now on: the lag falls quickly.
        std::vector<std::int64_t> prompt{2'000, 3'000, 4'000};
        lag.addPoll(prompt);
        QCOMPARE(*lag.lag(), milliseconds(18'000));
        for (int i = 0; i < 8; ++i) {
            std::vector<std::int64_t> again = prompt;
            lag.addPoll(again);
        }
        QVERIFY(lag.lag()->count() >= 3'000 && lag.lag()->count() < 3'100);

        // One slow poll excuses little; a poll without new samples changes nothing.
        std::vector<std::int64_t> slow{20'000, 21'000};
        lag.addPoll(slow);
        QVERIFY(lag.lag()->count() < 7'000);
        const auto before = *lag.lag();
        lag.addPoll(none);
        QCOMPARE(*lag.lag(), before);

        // A store that delivers later than the lookback leaves room for: capped, and said.
        for (int i = 0; i < 40; ++i) {
            std::vector<std::int64_t> behind{400'000, 410'000};
            lag.addPoll(behind);
        }
        QVERIFY(lag.capped());
        QCOMPARE(lag.lastPollMedianMs(), std::int64_t(410'000));
        QVERIFY(*lag.lag() <= seconds(265));
        QVERIFY(*lag.lag() > seconds(260));
    }
};

QTEST_GUILESS_MAIN(TstStoreTelemetry)
#include "tst_store_telemetry.moc"
