// The pager against a real Alertmanager (Debian's prometheus-alertmanager) on loopback: an open
// incident becomes a firing alert with its routing labels, its resolution ends it there; an
// incident stays one alert while its scope grows, its severity escalates and its cause is named; a
// maintenance window becomes a silence (createdBy, comment, matchers) that silences the alerts of
// its place and expires when cancelled; with Alertmanager stopped the tick side never waits,
// the queue stays within its bound (the excess dropped and counted), the status says "failing
// since" with the error, and after a restart delivery resumes and Alertmanager holds the truth.
#include "AlertmanagerReader.h"
#include "Pager.h"
#include "PagingFixtures.h"

#include <QTest>

using namespace watchfloor::server;
using namespace watchfloor::server::paging;
using namespace watchfloor::test;
using namespace std::chrono_literals;

namespace {

std::int64_t wallNowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::int64_t parseTime(const QString& rfc3339) {
    return QDateTime::fromString(rfc3339, Qt::ISODateWithMs).toMSecsSinceEpoch();
}

PagerOptions optionsFor(const LoopbackStore& am) {
    PagerOptions o;
    o.http.url = am.url();
    o.http.timeout = 3s;
    o.http.connectTimeout = 1s;
    return o;
}

}  // namespace

class TestPagingAlertmanager : public QObject {
    Q_OBJECT
    std::unique_ptr<LoopbackStore> am_;

private slots:
    void initTestCase() {
        if (!LoopbackStore::installed(StoreKind::Alertmanager))
            QFAIL("prometheus-alertmanager is not installed: run scripts/deps (scripts/test installs it)");
    }
    void init() {
        std::string error;
        am_ = startAlertmanager(error);
        QVERIFY2(am_, error.c_str());
    }
    void cleanup() { am_.reset(); }

    void openIncidentFiresWithItsLabels() {
        Pager pager(pagingFleet(), optionsFor(*am_));
        const std::int64_t now = wallNowMs();
        FleetChanges changes;
        changes.time = fromUnixMs(now);
        changes.incidents = {causedBy(pagingIncident(7, {1}, {3}, now - 30'000), watchfloor::v1::CAUSE_SCOPE_TRAY, 103,
                                      "r02-n02", "gpu_hard_fault")};
        pager.observe(changes);
        QVERIFY(changes.hasPaging);  // the first status goes out with the first tick
        QVERIFY(pager.waitDelivered(10s));

        AlertmanagerReader reader(am_->port());
        QJsonObject alert;
        QVERIFY(eventually([&] { return !(alert = reader.alertOfIncident("7")).isEmpty(); }, 10s));
        const auto labels = alert["labels"].toObject();
        QCOMPARE(labels["alertname"].toString(), QString("WatchfloorIncident"));
        QCOMPARE(labels["severity"].toString(), QString("critical"));
        QCOMPARE(labels["cause"].toString(), QString("gpu_hard_fault"));
        QCOMPARE(labels["region"].toString(), QString("us-east"));
        QCOMPARE(labels["hall"].toString(), QString("h1"));
        QCOMPARE(labels["row"].toString(), QString("2"));
        QCOMPARE(labels["rack"].toString(), QString("r02"));
        QCOMPARE(labels["node"].toString(), QString("r02-n02"));
        QCOMPARE(alert["annotations"].toObject()["summary"].toString(), QString("r02-n02: gpu_hard_fault"));
        QCOMPARE(alert["status"].toObject()["state"].toString(), QString("active"));
        QVERIFY(std::abs(parseTime(alert["startsAt"].toString()) - (now - 30'000)) < 1000);
        // Firing: endsAt four resends ahead, so a lost resend or two does not resolve it.
        QVERIFY(parseTime(alert["endsAt"].toString()) > wallNowMs() + 3 * 60'000);

        const auto status = pager.status();
        QCOMPARE(status.state(), watchfloor::v1::PAGING_STATE_DELIVERED);
        QCOMPARE(status.target(), am_->url());
        QCOMPARE(status.firing(), 1u);
        QCOMPARE(status.delivered(), 1u);
        QVERIFY(status.last_delivered_unix_ms() >= now);
        // The delivered status goes out with the first tick after delivery (the first one's own,
        // when the worker was that quick); then, nothing changed, none.
        if (changes.paging.state() != watchfloor::v1::PAGING_STATE_DELIVERED) {
            FleetChanges next;
            next.time = fromUnixMs(wallNowMs());
            pager.observe(next);
            QVERIFY(next.hasPaging);
            QCOMPARE(next.paging.state(), watchfloor::v1::PAGING_STATE_DELIVERED);
        }
        FleetChanges quiet;
        quiet.time = fromUnixMs(wallNowMs());
        pager.observe(quiet);
        QVERIFY(!quiet.hasPaging);
    }

    void resolvedIncidentEndsInAlertmanager() {
        Pager pager(pagingFleet(), optionsFor(*am_));
        const std::int64_t now = wallNowMs();
        const auto incident = pagingIncident(8, {0}, {0}, now - 5000);
        pager.observeIncidents({incident}, now);
        AlertmanagerReader reader(am_->port());
        QVERIFY(eventually([&] { return !reader.alertOfIncident("8").isEmpty(); }, 10s));
        pager.observeIncidents({resolved(incident, wallNowMs())}, wallNowMs());
        QVERIFY(pager.waitDelivered(10s));
        // Alertmanager lists alerts until their endsAt: the resolution's endsAt is now.
        QVERIFY(eventually([&] { return reader.alertOfIncident("8").isEmpty(); }, 10s));
        QCOMPARE(pager.status().firing(), 0u);
        QCOMPARE(pager.status().delivered(), 2u);
    }

    void maintenanceWindowSilencesItsPlaceUntilCancelled() {
        Pager pager(pagingFleet(), optionsFor(*am_));
        const std::int64_t now = wallNowMs();
        SilenceWindow window;
        window.id = "mw-1";
        window.places = {{SilencedPlace::Kind::Rack, {}, 0, "r02"}, {SilencedPlace::Kind::Row, "h2", 1, {}}};
        window.startsUnixMs = now;
        window.endsUnixMs = now + 3'600'000;
        window.owner = "alice";
        window.reason = "replace CDU pump";
        QVERIFY(pager.silence(window));
        QVERIFY(pager.waitDelivered(10s));
        const auto ids = pager.silenceIdsOf("mw-1");
        QCOMPARE(ids.size(), std::size_t(2));
        QCOMPARE(pager.status().silences(), 2u);

        AlertmanagerReader reader(am_->port());
        const auto rack = reader.silence(QString::fromStdString(ids[0]));
        QCOMPARE(rack["createdBy"].toString(), QString("alice"));
        QCOMPARE(rack["comment"].toString(), QString("replace CDU pump"));
        QCOMPARE(rack["status"].toObject()["state"].toString(), QString("active"));
        QVERIFY(std::abs(parseTime(rack["endsAt"].toString()) - (now + 3'600'000)) < 1000);
        QMap<QString, QString> matchers;
        for (const auto& m : rack["matchers"].toArray())
            matchers[m.toObject()["name"].toString()] = m.toObject()["value"].toString();
        QCOMPARE(matchers.value("rack"), QString("r02"));
        QCOMPARE(matchers.value("alertname"), QString("WatchfloorIncident"));
        QCOMPARE(matchers.value("fleet"), QString("testfleet"));
        const auto row = reader.silence(QString::fromStdString(ids[1]));
        QCOMPARE(row["matchers"].toArray().size(), 4);

        // An incident caused in r02 is silenced by it; one in r01 is not; the CDU of hall h2's
        // row 1 is silenced by the row's silence (the labels a silence matches are the cause's place).
        pager.observeIncidents({pagingIncident(21, {1}, {2}, now), pagingIncident(22, {0}, {0}, now),
                                causedByNamed(pagingIncident(23, {2}, {4}, now), watchfloor::v1::CAUSE_SCOPE_CDU,
                                              "cdu-h2-row1", "pump_failure")},
                               now);
        QVERIFY(pager.waitDelivered(10s));
        QVERIFY(eventually(
            [&] {
                return reader.alertOfIncident("21")["status"].toObject()["state"].toString() == "suppressed" &&
                       reader.alertOfIncident("22")["status"].toObject()["state"].toString() == "active" &&
                       reader.alertOfIncident("23")["status"].toObject()["state"].toString() == "suppressed";
            },
            10s));
        QCOMPARE(reader.alertOfIncident("23")["status"].toObject()["silencedBy"].toArray().at(0).toString(),
                 QString::fromStdString(ids[1]));
        QCOMPARE(reader.alertOfIncident("21")["status"].toObject()["silencedBy"].toArray().at(0).toString(),
                 QString::fromStdString(ids[0]));

        QVERIFY(pager.cancelSilence("mw-1"));
        QVERIFY(!pager.cancelSilence("mw-unknown"));
        QVERIFY(pager.waitDelivered(10s));
        for (const auto& id : ids)
            QCOMPARE(reader.silence(QString::fromStdString(id))["status"].toObject()["state"].toString(),
                     QString("expired"));
        QVERIFY(pager.silenceIdsOf("mw-1").empty());
        QCOMPARE(pager.status().silences(), 0u);
        QVERIFY(eventually(
            [&] { return reader.alertOfIncident("21")["status"].toObject()["state"].toString() == "active"; }, 10s));
    }

    // One incident, one alert, through its whole life: the demo's CDU pump (opened by the pump
    // alarm with no rack, then its racks' supply temperatures join) and r02's valve (opened by a
    // throttling GPU on one tray, warning; then the valve alarm names the cause and the rack's
    // trays shut down, critical). Alertmanager lists exactly one alert per incident at every
    // step; the pump's keeps its labels while its blast radius grows; when the valve's severity
    // and cause change, the old label set is resolved rather than left firing beside the new one;
    // both end resolved.
    void oneAlertPerIncidentThroughItsLife() {
        PagerOptions options = optionsFor(*am_);
        options.resendInterval = 1s;  // a resend round within the test
        Pager pager(pagingFleet(), options);
        AlertmanagerReader reader(am_->port());
        // incident id -> the alerts Alertmanager lists (active or suppressed: not resolved)
        auto listed = [&] {
            QMap<QString, QList<QJsonObject>> byIncident;
            for (const auto& a : reader.alerts())
                byIncident[a.toObject()["labels"].toObject()["incident"].toString()] << a.toObject();
            return byIncident;
        };
        auto step = [&](const std::vector<watchfloor::v1::Incident>& incidents) {
            pager.observeIncidents(incidents, wallNowMs());
            return pager.waitDelivered(10s);
        };
        const std::int64_t t0 = wallNowMs();
        auto pump = causedByNamed(pagingIncident(41, {}, {}, t0), watchfloor::v1::CAUSE_SCOPE_CDU, "cdu-h1-row1",
                                  "pump_failure");
        pump.set_severity(watchfloor::v1::SEVERITY_WARNING);
        auto valve = causedBy(pagingIncident(42, {1}, {2}, t0), watchfloor::v1::CAUSE_SCOPE_COOLING_LOOP, 201,
                              "r02-loop", "thermal");
        valve.set_severity(watchfloor::v1::SEVERITY_WARNING);
        // Alertmanager stores what a POST carries before it answers, so once the pager has
        // delivered, its list is the truth: each check below is immediate, not eventual (an old
        // label set left firing would be listed until its endsAt, 4 resend intervals later).
        auto onlyOne = [&](const QString& incident) {
            const auto alerts = listed().value(incident);
            QString labels;
            for (const auto& a : alerts) labels += QJsonDocument(a["labels"].toObject()).toJson(QJsonDocument::Compact);
            return std::make_pair(
                alerts.size() == 1 ? alerts.front() : QJsonObject(),
                QString("incident %1 is listed %2 times: %3").arg(incident).arg(alerts.size()).arg(labels));
        };
        QVERIFY(step({pump, valve}));
        auto [first, problem] = onlyOne("41");
        QVERIFY2(!first.isEmpty(), qPrintable(problem));
        const auto pumpLabels = first["labels"].toObject();
        QCOMPARE(pumpLabels["hall"].toString(), QString("h1"));
        QCOMPARE(pumpLabels["row"].toString(), QString("1"));
        QVERIFY(!pumpLabels.contains("rack"));
        QVERIFY2(!onlyOne("42").first.isEmpty(), qPrintable(onlyOne("42").second));

        // The pump's scope grows over three ticks: r01, then r04 and two trays, then a third.
        for (const auto& [racks, trays] :
             std::vector<std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>>{
                 {{10}, {}}, {{10, 13}, {100, 106}}, {{10, 13}, {100, 101, 106}}}) {
            auto* radius = pump.mutable_blast_radius();
            radius->clear_rack_indexes();
            radius->clear_node_indexes();
            for (auto r : racks) radius->add_rack_indexes(r);
            for (auto n : trays) radius->add_node_indexes(n);
            radius->set_racks(std::uint32_t(racks.size()));
            radius->set_trays(std::uint32_t(trays.size()));
            pump.set_member_count(pump.member_count() + 2);
            pump.set_title("cdu-h1-row1: pump failure · " + std::to_string(racks.size()) + " racks");
            QVERIFY(step({pump}));
            const auto [now, why] = onlyOne("41");
            QVERIFY2(!now.isEmpty(), qPrintable(why));
            QCOMPARE(now["labels"].toObject(), pumpLabels);
        }
        QCOMPARE(onlyOne("41").first["annotations"].toObject()["racks"].toString(), QString("r01, r04"));

        // The valve: its alarm names the cause, the rack's trays shut down, the severity escalates.
        valve = causedBy(valve, watchfloor::v1::CAUSE_SCOPE_COOLING_LOOP, 201, "r02-loop", "valve_fault");
        valve.set_severity(watchfloor::v1::SEVERITY_CRITICAL);
        valve.mutable_blast_radius()->add_node_indexes(3);
        valve.mutable_blast_radius()->set_trays(2);
        valve.set_title("r02-loop: control valve fault · 1 rack, 2 trays");
        QVERIFY(step({valve}));
        const auto [escalated, why] = onlyOne("42");
        QVERIFY2(!escalated.isEmpty(), qPrintable(why));
        const auto valveLabels = escalated["labels"].toObject();
        QCOMPARE(valveLabels["severity"].toString(), QString("critical"));
        QCOMPARE(valveLabels["cause"].toString(), QString("valve_fault"));
        QCOMPARE(valveLabels["rack"].toString(), QString("r02"));
        QVERIFY(!valveLabels.contains("node"));
        QCOMPARE(listed().size(), 2);
        // The same after resend rounds: the resends carry the same label sets.
        QTest::qWait(2500);
        QVERIFY2(!onlyOne("41").first.isEmpty(), qPrintable(onlyOne("41").second));
        QCOMPARE(onlyOne("42").first["labels"].toObject(), valveLabels);

        // Both resolve: Alertmanager lists neither any more.
        QVERIFY(step({resolved(pump, wallNowMs()), resolved(valve, wallNowMs())}));
        QVERIFY2(listed().isEmpty(),
                 qPrintable(QString("still listed: %1").arg(QStringList(listed().keys()).join(", "))));
        QCOMPARE(pager.status().firing(), 0u);
    }

    void windowsThatCannotBeSilencesAreRefused() {
        Pager pager(pagingFleet(), optionsFor(*am_));
        const std::int64_t now = wallNowMs();
        SilenceWindow window{"mw-2", {{SilencedPlace::Kind::Hall, "h1", 0, {}}}, now, now - 1, "bob", "backwards"};
        QVERIFY(!pager.silence(window));
        window.startsUnixMs = now - 7'200'000;
        window.endsUnixMs = now - 3'600'000;  // over already
        QVERIFY(!pager.silence(window));
        window.places.clear();
        window.endsUnixMs = now + 60'000;
        QVERIFY(!pager.silence(window));
        QCOMPARE(pager.status().queued(), 0u);
    }

    void alertmanagerDownQueuesWithinItsBoundAndResumes() {
        PagerOptions options = optionsFor(*am_);
        options.maxQueued = 3;
        options.minBackoff = 200ms;
        options.maxBackoff = 800ms;
        options.resendInterval = 2s;  // Alertmanager keeps alerts in memory only: the resend restores them
        Pager pager(pagingFleet(), options);
        const std::int64_t now = wallNowMs();
        std::vector<watchfloor::v1::Incident> open;
        for (std::uint64_t id = 31; id <= 36; ++id) open.push_back(pagingIncident(id, {0}, {0}, now));
        pager.observeIncidents(open, now);
        QVERIFY(pager.waitDelivered(10s));

        am_->stopProcess();
        // Five resolutions and a new incident while it is down: the tick side returns at once.
        std::vector<watchfloor::v1::Incident> changes;
        for (std::size_t k = 0; k < 5; ++k) changes.push_back(resolved(open[k], wallNowMs()));
        changes.push_back(pagingIncident(37, {2}, {5}, wallNowMs()));
        const auto began = std::chrono::steady_clock::now();
        pager.observeIncidents(changes, wallNowMs());
        QVERIFY(std::chrono::steady_clock::now() - began < 50ms);

        QVERIFY(eventually([&] { return pager.status().state() == watchfloor::v1::PAGING_STATE_FAILING; }, 10s));
        auto status = pager.status();
        QVERIFY2(
            status.last_error().find("connection refused by " + am_->url() + "/api/v2/alerts") != std::string::npos,
            status.last_error().c_str());
        QVERIFY(status.failing_since_unix_ms() >= now);
        QVERIFY(status.next_attempt_unix_ms() >= status.failing_since_unix_ms());
        QCOMPARE(status.dropped(), 2u);  // five resolutions, room for three
        QCOMPARE(status.queued(), 4u);   // three resolutions and the new incident
        QCOMPARE(status.firing(), 2u);   // 36 and 37
        // Retries keep failing, with backoff, and the bound holds.
        QTest::qWait(1500);
        QCOMPARE(pager.status().state(), watchfloor::v1::PAGING_STATE_FAILING);
        QCOMPARE(pager.status().queued(), 4u);
        QCOMPARE(pager.status().failing_since_unix_ms(), status.failing_since_unix_ms());

        std::string error;
        QVERIFY2(am_->restart(error), error.c_str());
        QVERIFY(pager.waitDelivered(10s));
        status = pager.status();
        QCOMPARE(status.state(), watchfloor::v1::PAGING_STATE_DELIVERED);
        QCOMPARE(status.failing_since_unix_ms(), 0);
        QVERIFY(status.last_error().empty());
        QCOMPARE(status.dropped(), 2u);
        // The restarted Alertmanager lost its alerts; the resend brings back the firing ones only.
        AlertmanagerReader reader(am_->port());
        QVERIFY(eventually(
            [&] {
                QStringList ids;
                for (const auto& a : reader.alerts()) ids << a.toObject()["labels"].toObject()["incident"].toString();
                ids.sort();
                return ids == QStringList{"36", "37"};
            },
            10s));
    }
};

QTEST_GUILESS_MAIN(TestPagingAlertmanager)
#include "tst_paging_alertmanager.moc"
