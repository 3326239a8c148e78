// How a series' host name finds its tray (InventoryIndex), the ways real sites name hosts: by IP
// address (the inventory's addresses= column), by fully qualified name (a listed domain, or none
// listed), short labels for an inventory of FQDNs, letter case, a foreign domain that must not
// match, and short names that two trays could have (never mapped, reported as unknown hosts).
// Then the same through StoreTelemetry, as the store path maps series, with the Hostname label
// taken before the instance.

#include "InventoryIndex.h"
#include "SiteFleet.h"
#include "StoreTelemetry.h"

#include <QtTest>

using namespace watchfloor::server;
namespace v1 = watchfloor::v1;
using sources::InventoryIndex;
using sources::PollQuery;

namespace {

// The fleet file's preamble, then `text`.
struct Fleet : watchfloor::testing::SiteFleet {
    explicit Fleet(const std::string& text) : SiteFleet("fleet naming\nregion east\n" + text) {}
    std::uint32_t node(const std::string& name) const { return entity(name); }
    std::uint32_t nic(const std::string& name) const { return entity(name); }
};

constexpr std::uint32_t kNone = UINT32_MAX;
std::uint32_t find(const InventoryIndex& index, std::string_view label) {
    return index.node(InventoryIndex::hostOfInstance(label)).value_or(kNone);
}

constexpr std::int64_t kPollMs = 1'800'000'000'000;

}  // namespace

class TstHostNaming : public QObject {
    Q_OBJECT

private slots:
    void ipAddressesFromTheAddressColumn() {
        Fleet fleet("rack r01 hosts=node[01-18] addresses=10.1.2.[11-28]\nrack r02\n");
        const InventoryIndex index(fleet.topology());
        QCOMPARE(find(index, "10.1.2.13:9100"), fleet.node("r01-n03"));
        QCOMPARE(find(index, "node03:9100"), fleet.node("r01-n03"));
        // An address is matched whole: never by its first "label", never a neighbour's.
        QCOMPARE(find(index, "10.1.2.10:9100"), kNone);
        QCOMPARE(find(index, "10.1.2.131:9100"), kNone);
        // A rack without addresses: its IPs name nothing (there is nothing to match them with).
        QCOMPARE(find(index, "10.1.3.11:9100"), kNone);
        QCOMPARE(find(index, "r02-n04:9100"), fleet.node("r02-n04"));
        QVERIFY(index.ambiguities().empty());
    }

    void qualifiedNamesUnderListedDomains() {
        Fleet fleet("inventory domains=cluster.example,.ib.cluster.example\nrack r01 hosts=node[01-18]\n");
        const InventoryIndex index(fleet.topology());
        QCOMPARE(find(index, "node01.cluster.example:9100"), fleet.node("r01-n01"));
        QCOMPARE(find(index, "node02.ib.cluster.example"), fleet.node("r01-n02"));
        QCOMPARE(find(index, "NODE03.Cluster.Example:9100"), fleet.node("r01-n03"));  // DNS has no case
        // Another domain is another site's node01 (one Prometheus often scrapes several clusters).
        QCOMPARE(find(index, "node01.other.example:9100"), kNone);
        QCOMPARE(find(index, "node01.cluster.example.evil:9100"), kNone);
        QCOMPARE(find(index, "node99.cluster.example"), kNone);
        // A store query selects the same names: the regex lists them, case-insensitively.
        const std::string regex = index.hostRegex("node01");
        QVERIFY2(regex.starts_with("(?i:") && regex.find("node01\\\\.cluster\\\\.example") != std::string::npos &&
                     regex.find("node01\\\\.ib\\\\.cluster\\\\.example") != std::string::npos,
                 regex.c_str());
        QVERIFY2(regex.find("other") == std::string::npos, regex.c_str());
    }

    void inventoryOfFqdnsAndShortLabels() {
        // The inverse: the inventory lists FQDNs, the exporters label short names.
        Fleet listed("inventory domains=cluster.example\nrack r01 hosts=node[01-18].cluster.example\n");
        const InventoryIndex index(listed.topology());
        QCOMPARE(find(index, "node07:9100"), listed.node("r01-n07"));
        QCOMPARE(find(index, "node07.cluster.example:9100"), listed.node("r01-n07"));
        QCOMPARE(find(index, "node07.elsewhere.example:9100"), kNone);
        QCOMPARE(QString::fromStdString(index.hostRegex("node07.cluster.example")),
                 QString("(?i:node07|node07\\\\.cluster\\\\.example)"));
        // With no domain list the short name still finds the one host whose first label it is.
        Fleet unlisted("rack r01 hosts=node[01-18].cluster.example\n");
        const InventoryIndex guessed(unlisted.topology());
        QCOMPARE(find(guessed, "node07:9100"), unlisted.node("r01-n07"));
        QCOMPARE(find(guessed, "node07.elsewhere.example:9100"), kNone);  // both qualified, and differ
    }

    void withoutADomainListAQualifiedNameIsItsFirstLabel() {
        Fleet fleet("rack r01 hosts=node[01-18]\n");
        const InventoryIndex index(fleet.topology());
        QCOMPARE(find(index, "node05.cluster.example:9100"), fleet.node("r01-n05"));
        QCOMPARE(find(index, "[::1]:9100"), kNone);
        QVERIFY2(index.hostRegex("node05") == "(?i:node05(\\\\.[-a-z0-9_.]+)?)", index.hostRegex("node05").c_str());
    }

    void ambiguousShortNamesMapNowhere() {
        // Two clusters' trays in one fleet: node01.a.example and node01.b.example.
        Fleet fleet("rack r01 hosts=node[01-18].a.example\nrack r02 hosts=node[01-18].b.example\n");
        const InventoryIndex index(fleet.topology());
        QCOMPARE(find(index, "node01.a.example:9100"), fleet.node("r01-n01"));
        QCOMPARE(find(index, "node01.b.example:9100"), fleet.node("r02-n01"));
        QCOMPARE(find(index, "node01:9100"), kNone);  // either tray: neither
        QCOMPARE(find(index, "node01.c.example:9100"), kNone);
        QCOMPARE(index.ambiguities().size(), std::size_t(18));
        QCOMPARE(QString::fromStdString(index.ambiguities().front()),
                 QString("node01: node01.a.example, node01.b.example"));
        QCOMPARE(QString::fromStdString(index.hostRegex("node01.a.example")), QString("(?i:node01\\\\.a\\\\.example)"));

        // Through the store path: the ambiguous series is not put on either tray, and its host is
        // reported (once) as unknown; the qualified one lands on its tray.
        sources::StoreTelemetry telemetry(fleet.topology(), std::chrono::minutes(5), {});
        const auto queries = sources::pollQueries();
        const PollQuery* linkDowned = nullptr;
        for (const auto& q : queries)
            if (q.kind == PollQuery::Kind::IbFamily && q.promql == "node_infiniband_link_downed_total") linkDowned = &q;
        QVERIFY(linkDowned);
        auto add = [&](const std::string& instance, double value) {
            const std::vector<prom::Label> labels{{"device", "mlx5_0"}, {"port", "1"}, {"instance", instance}};
            telemetry.add(std::size_t(linkDowned - queries.data()), *linkDowned, labels, {kPollMs, value});
        };
        telemetry.begin(kPollMs);
        add("node01:9100", 5);
        add("node02.b.example:9100", 7);
        FleetChanges out;
        const auto notes = telemetry.finish(out);
        QCOMPARE(notes.unmapped, std::uint64_t(1));
        for (const auto& sample : out.samples)
            QVERIFY(sample.entityIndex != fleet.nic("r01-n01-ib0") && sample.entityIndex != fleet.nic("r02-n01-ib0"));
        QVERIFY(std::any_of(out.samples.begin(), out.samples.end(), [&](const Sample& s) {
            return s.entityIndex == fleet.nic("r02-n02-ib0") && s.value == 7.0f;
        }));
        QCOMPARE(out.events.size(), std::size_t(1));
        QVERIFY2(out.events.front().message().find("'node01'") != std::string::npos,
                 out.events.front().message().c_str());
        // ... and says why: the name is not missing from the inventory, it names two trays.
        QVERIFY2(out.events.front().message().find("node01.a.example, node01.b.example") != std::string::npos,
                 out.events.front().message().c_str());
    }

    void hostTemperatureKeepsTheHostLabels();

    void theHostnameLabelBeforeTheInstance() {
        // A scrape config that adds the host's name to an IP target: the label wins.
        Fleet fleet("inventory domains=cluster.example\nrack r01 hosts=node[01-18]\n");
        sources::StoreTelemetry telemetry(fleet.topology(), std::chrono::minutes(5), {});
        const auto queries = sources::pollQueries();
        const PollQuery* linkDowned = nullptr;
        for (const auto& q : queries)
            if (q.kind == PollQuery::Kind::IbFamily && q.promql == "node_infiniband_link_downed_total") linkDowned = &q;
        QVERIFY(linkDowned);
        telemetry.begin(kPollMs);
        const std::vector<prom::Label> labels{
            {"Hostname", "node04.cluster.example"}, {"device", "mlx5_1"}, {"instance", "10.9.9.9:9100"}, {"port", "1"}};
        telemetry.add(std::size_t(linkDowned - queries.data()), *linkDowned, labels, {kPollMs, 3});
        FleetChanges out;
        QCOMPARE(telemetry.finish(out).unmapped, std::uint64_t(0));
        QVERIFY(std::any_of(out.samples.begin(), out.samples.end(),
                            [&](const Sample& s) { return s.entityIndex == fleet.nic("r01-n04-ib1"); }));
    }
};

// The hottest-sensor queries aggregate, which drops every label not grouped by: they keep the
// host labels a series is mapped by, so a node_exporter named by a relabelled Hostname keeps it.
void TstHostNaming::hostTemperatureKeepsTheHostLabels() {
    int seen = 0;
    for (const auto& query : sources::pollQueries()) {
        if (query.kind != PollQuery::Kind::HostTemperature && query.kind != PollQuery::Kind::HostAnchor) continue;
        ++seen;
        QVERIFY2(query.promql.starts_with("max by (instance, Hostname, hostname) ("), query.promql.c_str());
    }
    QCOMPARE(seen, 2);
}

QTEST_GUILESS_MAIN(TstHostNaming)
#include "tst_host_naming.moc"
