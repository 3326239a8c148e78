// What the pager says to Alertmanager, without one: an incident's labels (the place labels only
// when the whole blast radius lies in one place), its annotations, the API v2 JSON (escaping,
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

namespace {

std::map<std::string, std::string> asMap(const LabelSet& set) { return {set.begin(), set.end()}; }

}  // namespace

class TestPagingAlerts : public QObject {
    Q_OBJECT
private slots:
    void oneTrayIncidentNamesEveryPlace() {
        const IncidentAlerts alerts(pagingFleet());
        const auto labels = asMap(alerts.alertOf(pagingIncident(7, {1}, {3}, 1000)).labels);
        const std::map<std::string, std::string> expected{{"alertname", "WatchfloorIncident"},
                                                          {"fleet", "testfleet"},
                                                          {"incident", "7"},
                                                          {"severity", "critical"},
                                                          {"cause", "valve_fault"},
                                                          {"scope", "cooling_loop"},
                                                          {"region", "us-east"},
                                                          {"hall", "h1"},
                                                          {"row", "2"},
                                                          {"rack", "r02"},
                                                          {"node", "r02-n02"}};
        QCOMPARE(labels, expected);
    }

    void placeLabelsOnlyWhereTheIncidentLies() {
        const IncidentAlerts alerts(pagingFleet());
        // Two racks of one hall, different rows: hall and region, no row, no rack.
        auto labels = asMap(alerts.alertOf(pagingIncident(1, {0, 1}, {}, 0)).labels);
        QCOMPARE(labels["hall"], std::string("h1"));
        QVERIFY(!labels.count("row"));
        QVERIFY(!labels.count("rack"));
        QVERIFY(!labels.count("node"));
        // Two halls: region only.
        labels = asMap(alerts.alertOf(pagingIncident(2, {0, 2}, {0, 4}, 0)).labels);
        QCOMPARE(labels["region"], std::string("us-east"));
        QVERIFY(!labels.count("hall"));
        QVERIFY(!labels.count("node"));
        // A truncated rack list (more racks than listed) proves nothing about the rest.
        auto wide = pagingIncident(3, {0}, {}, 0);
        wide.mutable_blast_radius()->set_racks(300);
        labels = asMap(alerts.alertOf(wide).labels);
        QVERIFY(!labels.count("rack"));
        QVERIFY(!labels.count("hall"));
    }

    void annotationsDescribeTheIncident() {
        const IncidentAlerts alerts(pagingFleet());
        auto incident = pagingIncident(7, {1}, {3}, 0);
        incident.set_goodput_cost_gpu_hours(12.345);
        const auto annotations = asMap(alerts.alertOf(incident).annotations);
        QCOMPARE(annotations.at("title"), incident.title());
        QCOMPARE(annotations.at("summary"), std::string("r01-loop: control valve fault"));
        QCOMPARE(annotations.at("root_cause"), std::string("r01-loop"));
        QCOMPARE(annotations.at("goodput_cost_gpu_hours"), std::string("12.3"));
        QVERIFY(annotations.at("blast_radius").find("1 racks, 1 trays, 4 GPUs") == 0);
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
