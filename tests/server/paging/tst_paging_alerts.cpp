// What the pager says to Alertmanager, without one: an incident's labels (the place labels are
// where its cause sits, the same however far its blast radius grows), its annotations, the API v2 JSON (escaping,
// RFC 3339 times), a silence's matchers, and the --alertmanager URL check.
#include "AlertmanagerHttp.h"
#include "AlertmanagerJson.h"
#include "IncidentAlerts.h"
#include "PagingFixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <map>

using namespace watchfloor::server::paging;
using namespace watchfloor::test;
namespace v1 = watchfloor::v1;

namespace {

std::map<std::string, std::string> asMap(const LabelSet& set) { return {set.begin(), set.end()}; }

}  // namespace

class TestPagingAlerts : public QObject {
    Q_OBJECT
private slots:
    void oneTrayIncidentNamesEveryPlace() {
        const IncidentAlerts alerts(pagingFleet());
        const auto incident =
            causedBy(pagingIncident(7, {1}, {3}, 1000), v1::CAUSE_SCOPE_TRAY, 103, "r02-n02", "gpu_hard_fault");
        const auto labels = asMap(alerts.alertOf(incident).labels);
        const std::map<std::string, std::string> expected{{"alertname", "WatchfloorIncident"},
                                                          {"fleet", "testfleet"},
                                                          {"incident", "7"},
                                                          {"severity", "critical"},
                                                          {"cause", "gpu_hard_fault"},
                                                          {"region", "us-east"},
                                                          {"hall", "h1"},
                                                          {"row", "2"},
                                                          {"rack", "r02"},
                                                          {"node", "r02-n02"}};
        QCOMPARE(labels, expected);
    }

    // Where the cause sits, whatever the blast radius says: a CDU names its row (two racks: no
    // rack), a loop its rack (not a tray), a leaf switch and its single failing port the racks of
    // the leaf, the facility water its region, a job nothing.
    void placeLabelsAreTheCausesPlace() {
        const IncidentAlerts alerts(pagingFleet());
        using Labels = std::map<std::string, std::string>;
        auto place = [&](const v1::Incident& incident) {
            Labels labels = asMap(alerts.alertOf(incident).labels);
            for (const char* identity : {"alertname", "fleet", "incident", "severity", "cause"}) labels.erase(identity);
            return labels;
        };
        const Labels row1{{"region", "us-east"}, {"hall", "h1"}, {"row", "1"}};
        QCOMPARE(place(causedByNamed(pagingIncident(1, {}, {}, 0), v1::CAUSE_SCOPE_CDU, "cdu-h1-row1", "pump_failure")),
                 row1);
        QCOMPARE(place(causedByNamed(pagingIncident(1, {0, 3}, {0, 6}, 0), v1::CAUSE_SCOPE_CDU, "cdu-h1-row1",
                                     "pump_failure")),
                 row1);
        QCOMPARE(place(causedByNamed(pagingIncident(1, {3}, {}, 0), v1::CAUSE_SCOPE_CDU, "cdu-h2-row1", "filter_clog")),
                 (Labels{{"region", "us-east"}, {"hall", "h2"}, {"row", "1"}, {"rack", "r03"}}));
        const Labels r02{{"region", "us-east"}, {"hall", "h1"}, {"row", "2"}, {"rack", "r02"}};
        QCOMPARE(place(pagingIncident(2, {1}, {3}, 0)), r02);
        QCOMPARE(place(pagingIncident(2, {1}, {2, 3}, 0)), r02);
        const Labels leaf{{"region", "us-east"}, {"hall", "h1"}};
        QCOMPARE(place(causedBy(pagingIncident(3, {1}, {2}, 0), v1::CAUSE_SCOPE_LINK, 302, "r02-n01-ib0", "link")),
                 leaf);
        QCOMPARE(
            place(causedByNamed(pagingIncident(3, {0, 1}, {0, 2}, 0), v1::CAUSE_SCOPE_LEAF_SWITCH, "leaf-h1", "link")),
            leaf);
        QCOMPARE(
            place(causedBy(pagingIncident(4, {0, 2}, {}, 0), v1::CAUSE_SCOPE_FACILITY, 0, "us-east", "facility_water")),
            (Labels{{"region", "us-east"}}));
        QCOMPARE(place(causedBy(pagingIncident(5, {0}, {0}, 0), v1::CAUSE_SCOPE_JOB, 7000, "llm-70b", "interrupted")),
                 Labels{});
        // A cause the topology does not know has no place (rather than a wrong one).
        QCOMPARE(place(causedByNamed(pagingIncident(6, {0}, {0}, 0), v1::CAUSE_SCOPE_CDU, "cdu-elsewhere", "pump")),
                 Labels{});
    }

    // The CDU pump of the demo: opened by the pump alarm (no rack yet), then its racks' supply
    // temperatures join. One label set all along; what grows is in the annotations.
    void labelsDoNotFollowTheBlastRadius() {
        const IncidentAlerts alerts(pagingFleet());
        auto first = causedByNamed(pagingIncident(6, {}, {}, 0), v1::CAUSE_SCOPE_CDU, "cdu-h1-row1", "pump_failure");
        first.set_severity(v1::SEVERITY_WARNING);
        auto grown = first;
        auto* radius = grown.mutable_blast_radius();
        radius->set_racks(2);
        radius->add_rack_indexes(10);
        radius->add_rack_indexes(13);
        radius->set_trays(3);
        for (std::uint32_t node : {100, 101, 106}) radius->add_node_indexes(node);
        grown.set_member_count(9);
        const auto before = alerts.alertOf(first);
        const auto after = alerts.alertOf(grown);
        QCOMPARE(asMap(after.labels), asMap(before.labels));
        QCOMPARE(asMap(after.annotations)["racks"], std::string("r01, r04"));
        QVERIFY(asMap(after.annotations)["blast_radius"].find("2 racks, 3 trays") == 0);
        QVERIFY(!asMap(before.annotations).count("racks"));  // none yet: not sent empty
    }

    void annotationsDescribeTheIncident() {
        const IncidentAlerts alerts(pagingFleet());
        auto incident = pagingIncident(7, {1}, {3}, 0);
        incident.set_goodput_cost_gpu_hours(12.345);
        const auto annotations = asMap(alerts.alertOf(incident).annotations);
        QCOMPARE(annotations.at("title"), incident.title());
        QCOMPARE(annotations.at("summary"), std::string("r02-loop: control valve fault"));
        QCOMPARE(annotations.at("root_cause"), std::string("r02-loop"));
        QCOMPARE(annotations.at("scope"), std::string("cooling_loop"));
        QCOMPARE(annotations.at("racks"), std::string("r02"));
        QCOMPARE(annotations.at("goodput_cost_gpu_hours"), std::string("12.3"));
        QVERIFY(annotations.at("blast_radius").find("1 racks, 1 trays, 4 GPUs") == 0);
        // A long rack list is cut, saying how many there are.
        incident.mutable_blast_radius()->set_racks(300);
        QCOMPARE(asMap(alerts.alertOf(incident).annotations).at("racks"), std::string("r02, ... (300 racks)"));
    }

    void postableAlertsIsTheApiV2Shape() {
        const IncidentAlerts alerts(pagingFleet());
        PagedAlert alert = alerts.alertOf(pagingIncident(7, {1}, {3}, 0));
        alert.startsAtMs = 1'764'680'645'123;  // 2025-12-02T13:04:05.123Z
        alert.endsAtMs = alert.startsAtMs + 240'000;
        const std::vector<PagedAlert> list{alert};
        QJsonParseError problem{};
        const auto json = QJsonDocument::fromJson(QByteArray::fromStdString(postableAlerts(list)), &problem);
        QCOMPARE(problem.error, QJsonParseError::NoError);
        const auto first = json.array().at(0).toObject();
        QCOMPARE(first["labels"].toObject()["rack"].toString(), QString("r02"));
        QCOMPARE(first["annotations"].toObject()["title"].toString(), QString("incident 7: \"quoted\" cause"));
        QCOMPARE(first["startsAt"].toString(), QString("2025-12-02T13:04:05.123Z"));
        QCOMPARE(first["endsAt"].toString(), QString("2025-12-02T13:08:05.123Z"));
        QCOMPARE(rfc3339(0), std::string("1970-01-01T00:00:00.000Z"));
    }

    void silenceMatchersPerPlace() {
        const IncidentAlerts alerts(pagingFleet());
        auto row = asMap(alerts.matchersOf({SilencedPlace::Kind::Row, "h1", 2, {}}));
        const std::map<std::string, std::string> expected{
            {"alertname", "WatchfloorIncident"}, {"fleet", "testfleet"}, {"hall", "h1"}, {"row", "2"}};
        QCOMPARE(row, expected);
        QCOMPARE(asMap(alerts.matchersOf({SilencedPlace::Kind::Node, {}, 0, "r02-n01"}))["node"],
                 std::string("r02-n01"));
        const auto body = postableSilence(alerts.matchersOf({SilencedPlace::Kind::Rack, {}, 0, "r02"}), 0, 60'000,
                                          "alice", "swap pump");
        const auto silence = QJsonDocument::fromJson(QByteArray::fromStdString(body)).object();
        QCOMPARE(silence["createdBy"].toString(), QString("alice"));
        QCOMPARE(silence["comment"].toString(), QString("swap pump"));
        QCOMPARE(silence["matchers"].toArray().size(), 3);
        for (const auto& m : silence["matchers"].toArray()) {
            QCOMPARE(m.toObject()["isRegex"].toBool(), false);
            QCOMPARE(m.toObject()["isEqual"].toBool(), true);
        }
        std::string error;
        QCOMPARE(silenceIdOf(R"({"silenceID":"a1-b2"})", error).value_or(""), std::string("a1-b2"));
        QVERIFY(!silenceIdOf(R"({"other":1})", error));
        QVERIFY(!silenceIdOf("not json", error));
        QVERIFY(error.find("not JSON") != std::string::npos);
    }

    void alertmanagerUrls() {
        std::string problem;
        QCOMPARE(normalisedAlertmanagerUrl("http://127.0.0.1:9093/", problem), std::string("http://127.0.0.1:9093"));
        QCOMPARE(normalisedAlertmanagerUrl("https://am:9093/prefix", problem), std::string("https://am:9093/prefix"));
        for (const char* bad : {"127.0.0.1:9093", "ftp://am", "http://", "http://am/?x=1", ""}) {
            problem.clear();
            QVERIFY2(normalisedAlertmanagerUrl(bad, problem).empty(), bad);
            QVERIFY(!problem.empty());
        }
    }
};

QTEST_GUILESS_MAIN(TestPagingAlerts)
#include "tst_paging_alerts.moc"
