// Issue 31 item 7, the console: the Links page's "Links at risk" list (worst first, with the words of
// client/LinksAtRisk), the selected link's BER history (a quiet bucket at its upper bound, never 0;
// the fan to the Error line), the ports table's P 6 h column ("—" for a link fleetd does not list),
// the Rack page's chip on a tray whose rail link is at risk, and the sentence an empty list shows
// (no summary, a summary with nothing at risk); a link on the ladder on its tray's chip and on the
// fleet map; the links only elevated behind a line; the GPU-hours at stake not cut at 1920 px.
// fleetd's link health arrives as Snapshot/Delta link_health records on the page-test fleet.
// WATCHFLOOR_LINKS_SCREENSHOT=FILE.png keeps the Links page with r02-n03-ib1 selected
// (docs/screenshots/links-at-risk.png); WATCHFLOOR_RACK_LINK_SCREENSHOT=FILE.png the Rack page of r02;
// WATCHFLOOR_FLEET_LINK_SCREENSHOT and WATCHFLOOR_RACK_LADDER_SCREENSHOT the Fleet page and r02 with
// its ladder links.
#include "PageTestFleet.h"

#include "EntityTableView.h"
#include "FleetPage.h"
#include "LinksAtRiskPanel.h"
#include "LinksPage.h"
#include "MainWindow.h"
#include "RackPage.h"

#include "FleetStore.h"
#include "LinkRiskModel.h"
#include "LinksAtRisk.h"
#include "ModelRoles.h"

#include "RackElevationWidget.h"
#include "RackMapWidget.h"
#include "SyntheticLinkHealth.h"

#include <QHeaderView>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTableWidget>
#include <QTest>

using namespace watchfloor;
namespace v1 = watchfloor::v1;
namespace wt = watchfloor::testing;
using ui::PageId;

namespace {

constexpr std::int64_t kNow = testing::PageTestFleet::kNowMs;
constexpr std::int64_t kMinute = 60'000;

struct Console {
    testing::PageTestFleet fleet;
    client::FleetStore store;
    int endpoint = store.addEndpoint(QStringLiteral("synthetic"));
    std::unique_ptr<ui::MainWindow> window;
    std::uint64_t sequence = 2;

    Console() {
        store.apply(endpoint, fleet.snapshot);
        store.flushChanges();
    }
    void open() {
        ui::PageContext context;
        context.store = &store;
        window = std::make_unique<ui::MainWindow>(context, ui::MainWindowOptions{});
        window->resize(1920, 1080);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    }
    std::uint32_t port(const char* name) const { return store.findByName(QString::fromLatin1(name)).index; }

    v1::LinkAtStake bigJob(std::uint32_t gpus) const {
        // llm-405b-pretrain: checkpointed 10 min ago every 30 min; 10 min to restart.
        v1::LinkAtStake s;
        s.add_job_indexes(fleet.bigJob);
        s.set_gpus(gpus);
        s.set_unplanned_gpu_hours(gpus * (600.0 + 600.0) / 3600.0);
        s.set_planned_gpu_hours(gpus * 600.0 / 3600.0);
        s.set_next_checkpoint_unix_ms(kNow + 20 * kMinute);
        return s;
    }

    // What fleetd lists on this fleet: a drifting link (r02-n03-ib1), a link whose errors prove it
    // over Error (r02-n15-ib2), one at risk seen from one end (r01-n12-ib0), one above Warning not
    // at risk whose switch end is still judging (r01-n02-ib3).
    std::vector<v1::LinkHealth> links() const {
        std::vector<v1::LinkHealth> out;
        v1::LinkHealth drifting =
            wt::linkHealth(port("r02-n03-ib1"), "r02-n03-ib1", v1::LINK_VERDICT_WARNING, true, 0.31, 0.82, 0.97, kNow);
        *drifting.mutable_host_end() = wt::linkBerPoint(7.2e-15, v1::LINK_VERDICT_WARNING);
        *drifting.mutable_switch_end() = wt::linkBerPoint(6.8e-15, v1::LINK_VERDICT_WARNING);
        v1::LinkForecast& f = *drifting.mutable_forecast();
        f.set_hours_to_warning(0);
        f.set_hours_to_error(3.2);
        f.set_hours_to_error_low(1.9);
        f.set_hours_to_error_high(6.0);
        wt::addDriftingHistory(f, kNow, 16, 3.3e-15, 1.07, 3);
        f.add_influencers()->set_text("symbol errors 40x their 7-day baseline");
        f.add_influencers()->set_text("link recoveries 6x their 7-day baseline");
        *drifting.mutable_at_stake() = bigJob(4);
        drifting.mutable_at_stake()->set_unplanned_gpu_hours(40);
        drifting.mutable_at_stake()->set_planned_gpu_hours(20);
        drifting.set_stage_reason("P(Error or down within 6 h) 82 %");
        out.push_back(drifting);

        v1::LinkHealth error =
            wt::linkHealth(port("r02-n15-ib2"), "r02-n15-ib2", v1::LINK_VERDICT_ERROR, true, 0.97, 0.99, 1.0, kNow);
        *error.mutable_host_end() = wt::linkBerPoint(2.4e-14, v1::LINK_VERDICT_ERROR);
        *error.mutable_switch_end() = wt::linkBerPoint(2.1e-14, v1::LINK_VERDICT_ERROR);
        error.mutable_forecast()->set_confirmed_error(true);
        wt::addDriftingHistory(*error.mutable_forecast(), kNow, 12, 6e-15, 2.5, 0);
        error.mutable_forecast()->add_influencers()->set_text("symbol errors 300x their 7-day baseline");
        *error.mutable_at_stake() = bigJob(4);
        error.mutable_at_stake()->set_unplanned_gpu_hours(40);
        error.mutable_at_stake()->set_planned_gpu_hours(20);
        error.set_stage_reason("errors prove the BER over the Error line now");
        out.push_back(error);

        v1::LinkHealth oneEnd =
            wt::linkHealth(port("r01-n12-ib0"), "r01-n12-ib0", v1::LINK_VERDICT_ELEVATED, true, 0.04, 0.41, 0.77, kNow);
        *oneEnd.mutable_host_end() = wt::linkBerPoint(3.1e-15, v1::LINK_VERDICT_ELEVATED);
        *oneEnd.mutable_switch_end() = wt::linkBerNoData();
        oneEnd.set_one_end_seen(true);
        oneEnd.mutable_forecast()->set_hours_to_error(20);
        oneEnd.mutable_forecast()->set_hours_to_error_low(12);
        oneEnd.mutable_forecast()->set_hours_to_error_high(41);
        wt::addDriftingHistory(*oneEnd.mutable_forecast(), kNow, 16, 2e-15, 0.6, 2);
        oneEnd.mutable_forecast()->add_influencers()->set_text("link recoveries 12x their 7-day baseline");
        *oneEnd.mutable_at_stake() = bigJob(4);
        oneEnd.set_stage_reason("P(Error or down within 6 h) 41 %");
        out.push_back(oneEnd);

        v1::LinkHealth warning =
            wt::linkHealth(port("r01-n02-ib3"), "r01-n02-ib3", v1::LINK_VERDICT_WARNING, false, 0.01, 0.12, 0.3, kNow);
        *warning.mutable_host_end() = wt::linkBerPoint(5.6e-15, v1::LINK_VERDICT_WARNING);
        v1::LinkBer judging = wt::linkBerUpper(8e-15);
        judging.set_verdict(v1::LINK_VERDICT_JUDGING);
        judging.set_text("judging, 37 of 125 min");
        *warning.mutable_switch_end() = judging;
        wt::addDriftingHistory(*warning.mutable_forecast(), kNow, 8, 5e-15, 0.1, 0);
        warning.set_stage_reason("BER Warning");
        out.push_back(warning);
        return out;
    }

    // The ladder on r02: n07-ib0 isolated by automation 32 min ago (its errors still over the
    // Error line), n09-ib2 isolating, n11-ib3 treated by alice and waiting for its clean window,
    // n13-ib1 returned to service.
    std::vector<v1::LinkHealth> ladder() const {
        auto onLadder = [&](const char* name, v1::LinkVerdict verdict, bool atRisk, v1::LinkStage stage,
                            const char* reason) {
            v1::LinkHealth h = wt::linkHealth(port(name), name, verdict, atRisk, 0.2, 0.5, 0.7, kNow);
            h.set_stage(stage);
            h.set_stage_reason(reason);
            h.set_stage_since_unix_ms(kNow - 32 * kMinute);
            return h;
        };
        std::vector<v1::LinkHealth> out;
        out.push_back(onLadder("r02-n07-ib0", v1::LINK_VERDICT_ERROR, true, v1::LINK_STAGE_ISOLATED,
                               "isolated by auto: errors prove the BER over the Error line"));
        out.push_back(onLadder("r02-n09-ib2", v1::LINK_VERDICT_WARNING, true, v1::LINK_STAGE_ISOLATING,
                               "drain at the next checkpoint"));
        v1::LinkHealth treated = onLadder("r02-n11-ib3", v1::LINK_VERDICT_NORMAL, false, v1::LINK_STAGE_TREATED,
                                          "cable reseated and cleaned");
        treated.set_treated_by("alice");
        treated.set_return_after_unix_ms(kNow + 90 * kMinute);
        out.push_back(treated);
        out.push_back(
            onLadder("r02-n13-ib1", v1::LINK_VERDICT_NORMAL, false, v1::LINK_STAGE_RETURNED, "clean for 2 h"));
        return out;
    }

    // Two links a little above Normal, at no risk and on no ladder (the demo's quiet majority).
    std::vector<v1::LinkHealth> elevated() const {
        std::vector<v1::LinkHealth> out;
        for (const char* name : {"r01-n05-ib1", "r02-n17-ib0"}) {
            v1::LinkHealth h =
                wt::linkHealth(port(name), name, v1::LINK_VERDICT_ELEVATED, false, 0.001, 0.004, 0.01, kNow);
            *h.mutable_host_end() = wt::linkBerPoint(1.3e-15, v1::LINK_VERDICT_ELEVATED);
            out.push_back(h);
        }
        return out;
    }

    // fleetd's summary of those links: three at risk, two above Warning, one in Error.
    static v1::LinkHealthSummary summary() {
        v1::LinkHealthSummary s = wt::linkSummary(144, 118, 3);
        s.set_warning(2);
        s.set_error(1);
        s.set_at_stake_gpu_hours(81.3);
        return s;
    }

    void send(const std::vector<v1::LinkHealth>& records, const v1::LinkHealthSummary* summary) {
        v1::SubscribeResponse m;
        v1::Delta& d = *m.mutable_delta();
        d.set_sequence(sequence);
        d.set_first_sequence(sequence);
        ++sequence;
        d.set_server_time_unix_ms(kNow);
        for (const v1::LinkHealth& r : records) *d.add_link_health() = r;
        if (summary) *d.mutable_link_summary() = *summary;
        store.apply(endpoint, m);
        store.flushChanges();
    }

    ui::LinksPage* linksPage() const { return qobject_cast<ui::LinksPage*>(window->page(PageId::Links)); }
};

QStringList column(const QAbstractItemModel& model, int column) {
    QStringList out;
    for (int row = 0; row < model.rowCount(); ++row) out << model.index(row, column).data().toString();
    return out;
}

// The ports table's cell of a port in a column given by its header.
QString portCell(const QTableWidget& table, const QString& port, const QString& header) {
    int c = -1;
    for (int i = 0; i < table.columnCount(); ++i)
        if (table.horizontalHeaderItem(i)->text() == header) c = i;
    for (int r = 0; r < table.rowCount(); ++r)
        if (table.item(r, 0)->text() == port) return c < 0 ? QStringLiteral("<no column>") : table.item(r, c)->text();
    return QStringLiteral("<no row>");
}

}  // namespace

class TestLinksAtRiskUi : public QObject {
    Q_OBJECT

private slots:
    void theListIsWorstFirstWithItsWords() {
        Console console;
        const v1::LinkHealthSummary summary = console.summary();
        console.send(console.links(), &summary);
        console.open();
        QVERIFY(console.window->navigate({PageId::Links, {}}));
        ui::LinksPage* page = console.linksPage();
        QVERIFY(page);
        // No entity asked: the rack of the worst link at risk.
        QCOMPARE(page->entity(), QStringLiteral("r02-n15-ib2"));
        ui::LinksAtRiskPanel* panel = page->linksAtRisk();
        QVERIFY(!panel->showsEmptyText());
        const QAbstractItemModel& view = *panel->table()->proxy();
        QCOMPARE(column(view, client::LinkRiskModel::Link),
                 (QStringList{QStringLiteral("▲ r02-n15-ib2"), QStringLiteral("▲ r02-n03-ib1"),
                              QStringLiteral("▲ r01-n12-ib0"), QStringLiteral("r01-n02-ib3")}));
        QCOMPARE(column(view, client::LinkRiskModel::Eta),
                 (QStringList{QStringLiteral("now"), QStringLiteral("3.2 h (1.9–6.0)"), QStringLiteral("20 h (12–41)"),
                              QStringLiteral("—")}));
        QCOMPARE(column(view, client::LinkRiskModel::Ber).at(2), QStringLiteral("3.1e-15 / one end seen"));
        QCOMPARE(column(view, client::LinkRiskModel::Ber).at(3), QStringLiteral("5.6e-15 / judging, 37 of 125 min"));
        // The stage is the third column, one word; its reason is the tooltip.
        QCOMPARE(client::LinkRiskModel::Stage, 2);
        QCOMPARE(column(view, client::LinkRiskModel::Stage).at(1), QStringLiteral("watch"));
        QCOMPARE(view.index(1, client::LinkRiskModel::Stage).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("watch: P(Error or down within 6 h) 82 %"));
        QCOMPARE(column(view, client::LinkRiskModel::Jobs).at(1), QStringLiteral("llm-405b-pretrain"));
        QCOMPARE(column(view, client::LinkRiskModel::AtStake).at(1),
                 QStringLiteral("40 vs 20 GPU-h, saves 20 (checkpoint in 20 min)"));
        QCOMPARE(panel->summaryText(),
                 QStringLiteral("3 at risk · 2 Warning · 1 Error · 81 GPU-h at stake · 0 isolated "
                                "(budget 10) · 118 links judged, 26 judging"));

        // The ports table of r02: P 6 h for the listed links, "—" for the rest.
        const QTableWidget& ports = *page->portsTable();
        QCOMPARE(portCell(ports, QStringLiteral("r02-n15-ib2"), QStringLiteral("P 6 h")), QStringLiteral("▲ 99 %"));
        QCOMPARE(portCell(ports, QStringLiteral("r02-n03-ib1"), QStringLiteral("P 6 h")), QStringLiteral("▲ 82 %"));
        QCOMPARE(portCell(ports, QStringLiteral("r02-n03-ib0"), QStringLiteral("P 6 h")), QStringLiteral("—"));
        // A link forecast at risk ranks over one whose counters only are high (r02-n03-ib1's BER of 1e-9).
        QCOMPARE(page->worstPortName(), QStringLiteral("r02-n15-ib2"));
    }

    void theSelectedLinksChartNeverDrawsABoundAsZero() {
        Console console;
        const v1::LinkHealthSummary summary = console.summary();
        console.send(console.links(), &summary);
        console.open();
        QVERIFY(console.window->navigate({PageId::Links, QStringLiteral("r02-n03-ib1")}));
        ui::LinksPage* page = console.linksPage();
        ui::LinksAtRiskPanel* panel = page->linksAtRisk();
        QCOMPARE(panel->selectedLink(), console.store.findByName(QStringLiteral("r02-n03-ib1")));
        widgets::BerHistoryChart* chart = panel->chart();
        const widgets::BerChartData& data = chart->data();
        QVERIFY(data.title.startsWith(QStringLiteral("r02-n03-ib1")));
        QCOMPARE(data.samples.size(), std::size_t(16));
        // fleetd sends a quiet bucket with ber 0 and its bound: the chart has the bound, flagged.
        const v1::LinkBerPoint& quiet =
            console.store.endpointFleet(0).linkHealth().at(console.port("r02-n03-ib1")).forecast().history(0);
        QVERIFY(quiet.upper_only() && quiet.ber() == 0);
        QVERIFY(data.samples[0].upperBound);
        QCOMPARE(data.samples[0].value, quiet.upper());
        const std::vector<widgets::BerHistoryChart::Marker> marks = chart->markers();
        QCOMPARE(marks.size(), std::size_t(16));
        const QRectF plot = chart->plotRect();
        for (const auto& m : marks) {
            QVERIFY(m.value > 0);
            QVERIFY(m.at.y() > plot.top() && m.at.y() < plot.bottom());
        }
        QCOMPARE(int(std::count_if(marks.begin(), marks.end(), [](const auto& m) { return m.upperBound; })), 3);
        // The fan to the Error line, from the newest bucket, between the forecast's crossings.
        QVERIFY(data.band.shown);
        QCOMPARE(data.band.value, client::kBerErrorLine);
        QCOMPARE(data.band.earliestMs, kNow + std::int64_t(1.9 * 3'600'000));
        QCOMPARE(data.band.latestMs, kNow + std::int64_t(6.0 * 3'600'000));
        QCOMPARE(data.band.label, QStringLiteral("Error in 3.2 h (1.9–6.0)"));
        // A confirmed Error has no fan: it is over the line now.
        QVERIFY(panel->selectLink(console.store.findByName(QStringLiteral("r02-n15-ib2"))));
        QVERIFY(!chart->data().band.shown);
        QVERIFY(panel->selectLink(console.store.findByName(QStringLiteral("r02-n03-ib1"))));

        if (const QByteArray out = qgetenv("WATCHFLOOR_LINKS_SCREENSHOT"); !out.isEmpty()) {
            QTest::qWait(50);
            QVERIFY(console.window->grab().save(QString::fromLocal8Bit(out)));
        }
    }

    void theRackMarksATrayWhoseLinkIsAtRisk() {
        Console console;
        console.send(console.links(), nullptr);
        console.open();
        QVERIFY(console.window->navigate({PageId::Rack, QStringLiteral("r02")}));
        auto* rack = qobject_cast<ui::RackPage*>(console.window->currentPage());
        QVERIFY(rack);
        const widgets::RackElevation& e = rack->elevation()->elevation();
        QCOMPARE(e.compute[2].linkPort, QStringLiteral("ib1"));  // r02-n03
        QCOMPARE(e.compute[2].linkMark, widgets::LinkMark::AtRisk);
        QCOMPARE(rack->elevation()->linkChipShown(2), QStringLiteral("▲ ib1 at risk"));
        QCOMPARE(rack->elevation()->linkChipShown(14), QStringLiteral("▲ ib2 at risk"));  // r02-n15
        QVERIFY(e.compute[2].linkDetail.contains(QStringLiteral("r02-n03-ib1 at risk (Warning)")));
        QVERIFY(e.compute[2].linkDetail.contains(QStringLiteral("82 %")));
        QCOMPARE(e.compute[3].linkMark, widgets::LinkMark::None);
        QCOMPARE(rack->elevation()->linkChipShown(3), QString());
        const QString tip =
            rack->elevation()->toolTipText({widgets::RackElevationWidget::Hit::Kind::ComputeTray, 2, -1});
        QVERIFY2(tip.contains(QStringLiteral("Rail link r02-n03-ib1 at risk")), qPrintable(tip));
        // A link above Warning but not at risk is no mark (r01-n02-ib3).
        QVERIFY(console.window->navigate({PageId::Rack, QStringLiteral("r01")}));
        const widgets::RackElevation& r01 = rack->elevation()->elevation();
        QCOMPARE(r01.compute[1].linkMark, widgets::LinkMark::None);
        QCOMPARE(r01.compute[11].linkPort, QStringLiteral("ib0"));
        if (const QByteArray out = qgetenv("WATCHFLOOR_RACK_LINK_SCREENSHOT"); !out.isEmpty()) {
            QVERIFY(console.window->navigate({PageId::Rack, QStringLiteral("r02")}));
            QTest::qWait(50);
            QVERIFY(console.window->grab().save(QString::fromLocal8Bit(out)));
        }
    }

    // A link on the ladder is on its tray's chip, the stage's word and glyph, its reason and since
    // when in the tooltip; the fleet map marks the rack (at risk, isolated) and names the links.
    void ladderLinksShowOnTheRackAndTheFleetMap() {
        Console console;
        console.open();
        QVERIFY(console.window->navigate({PageId::Fleet, {}}));
        auto* fleet = qobject_cast<ui::FleetPage*>(console.window->currentPage());
        QVERIFY(fleet);
        widgets::RackMapWidget& map = *fleet->rackMap();
        const int r01 = console.store.rackRow(console.store.findByName(QStringLiteral("r01")));
        const int r02 = console.store.rackRow(console.store.findByName(QStringLiteral("r02")));
        QCOMPARE(map.statuses()[std::size_t(r02)].linksAtRisk + map.statuses()[std::size_t(r02)].linksIsolated, 0);

        std::vector<v1::LinkHealth> links = console.ladder();
        links.push_back(console.links().front());  // r02-n03-ib1 at risk
        console.send(links, nullptr);
        const widgets::RackStatus& marked = map.statuses()[std::size_t(r02)];
        QCOMPARE(marked.linksAtRisk, 1);    // n03-ib1 (n07-ib0 and n09-ib2 are still at risk, but on the ladder)
        QCOMPARE(marked.linksIsolated, 3);  // isolated, isolating, treated; returned is back in service
        QCOMPARE(marked.linkNote, QStringLiteral("Rail links: r02-n03-ib1 at risk · r02-n09-ib2 isolating · "
                                                 "r02-n07-ib0 isolated · r02-n11-ib3 treated"));
        QVERIFY(!map.linkMarkRect(r02).isEmpty());
        QCOMPARE(map.statuses()[std::size_t(r01)].linksAtRisk + map.statuses()[std::size_t(r01)].linksIsolated, 0);
        QVERIFY(map.linkMarkRect(r01).isEmpty());
        const QString tip = map.toolTipText(r02);
        QVERIFY2(tip.contains(QStringLiteral("r02-n07-ib0 isolated")), qPrintable(tip));
        if (const QByteArray out = qgetenv("WATCHFLOOR_FLEET_LINK_SCREENSHOT"); !out.isEmpty()) {
            QTest::qWait(50);
            QVERIFY(console.window->grab().save(QString::fromLocal8Bit(out)));
        }

        QVERIFY(console.window->navigate({PageId::Rack, QStringLiteral("r02")}));
        auto* rack = qobject_cast<ui::RackPage*>(console.window->currentPage());
        QVERIFY(rack);
        const widgets::RackElevationWidget& elevation = *rack->elevation();
        QCOMPARE(elevation.linkChipShown(2), QStringLiteral("▲ ib1 at risk"));
        QCOMPARE(elevation.linkChipShown(6), QStringLiteral("⊘ ib0 isolated"));
        QCOMPARE(elevation.linkChipShown(8), QStringLiteral("⊘ ib2 isolating"));
        QCOMPARE(elevation.linkChipShown(10), QStringLiteral("↻ ib3 treated"));
        QCOMPARE(elevation.linkChipShown(12), QStringLiteral("✓ ib1 returned"));
        const QString isolated = elevation.elevation().compute[6].linkDetail;
        QVERIFY2(isolated.startsWith(QStringLiteral("Rail link r02-n07-ib0 isolated since ")), qPrintable(isolated));
        QVERIFY2(
            isolated.contains(QStringLiteral("(32 min): isolated by auto: errors prove the BER over the Error line")),
            qPrintable(isolated));
        QVERIFY2(isolated.contains(QStringLiteral("still at risk (Error)")), qPrintable(isolated));
        const QString treated = elevation.toolTipText({widgets::RackElevationWidget::Hit::Kind::ComputeTray, 10, -1});
        QVERIFY2(treated.contains(QStringLiteral("treated by alice; back after its clean window")),
                 qPrintable(treated));
        if (const QByteArray out = qgetenv("WATCHFLOOR_RACK_LADDER_SCREENSHOT"); !out.isEmpty()) {
            QTest::qWait(50);
            QVERIFY(console.window->grab().save(QString::fromLocal8Bit(out)));
        }
    }

    // Links only elevated wait behind a line under the list; shown, they follow the rest, dim. A
    // link on the ladder stays with the links that matter even when no longer at risk.
    void elevatedLinksWaitBehindALine() {
        Console console;
        std::vector<v1::LinkHealth> links = console.links();
        for (const v1::LinkHealth& h : console.elevated()) links.push_back(h);
        links.push_back(console.ladder()[2]);  // r02-n11-ib3 treated, Normal
        console.send(links, nullptr);
        console.open();
        QVERIFY(console.window->navigate({PageId::Links, {}}));
        ui::LinksAtRiskPanel* panel = console.linksPage()->linksAtRisk();
        const QAbstractItemModel& view = *panel->table()->proxy();
        QCOMPARE(column(view, client::LinkRiskModel::Link),
                 (QStringList{QStringLiteral("▲ r02-n15-ib2"), QStringLiteral("▲ r02-n03-ib1"),
                              QStringLiteral("▲ r01-n12-ib0"), QStringLiteral("r02-n11-ib3"),
                              QStringLiteral("r01-n02-ib3")}));
        QPushButton* toggle = panel->elevatedToggle();
        QVERIFY(toggle->isVisible());
        QVERIFY2(toggle->text().contains(QStringLiteral("Show 2 elevated links")), qPrintable(toggle->text()));
        for (int row = 0; row < view.rowCount(); ++row) QVERIFY(!view.index(row, 0).data(client::MinorRole).toBool());

        toggle->click();
        QCOMPARE(view.rowCount(), 7);
        QCOMPARE(column(view, client::LinkRiskModel::Link).mid(5),
                 (QStringList{QStringLiteral("r01-n05-ib1"), QStringLiteral("r02-n17-ib0")}));
        QVERIFY(view.index(5, 0).data(client::MinorRole).toBool());
        QVERIFY(view.index(6, client::LinkRiskModel::Verdict).data(client::MinorRole).toBool());
        QVERIFY(!view.index(4, 0).data(client::MinorRole).toBool());
        QVERIFY(toggle->text().contains(QStringLiteral("Hide the 2 elevated links")));
        QCOMPARE(panel->selectedLink(), console.store.findByName(QStringLiteral("r02-n15-ib2")));

        toggle->click();
        QCOMPARE(view.rowCount(), 5);
        // Asked for by name (the ports table, a link), an elevated link shows itself.
        QVERIFY(panel->selectLink(console.store.findByName(QStringLiteral("r01-n05-ib1"))));
        QCOMPARE(view.rowCount(), 7);
        QCOMPARE(panel->selectedLink(), console.store.findByName(QStringLiteral("r01-n05-ib1")));

        // Only elevated links: the list says nothing is at risk, the line still offers them.
        Console quiet;
        quiet.send(quiet.elevated(), nullptr);
        quiet.open();
        QVERIFY(quiet.window->navigate({PageId::Links, QStringLiteral("r02")}));
        ui::LinksAtRiskPanel* quietPanel = quiet.linksPage()->linksAtRisk();
        QVERIFY(quietPanel->showsEmptyText());
        QVERIFY(quietPanel->elevatedToggle()->isVisible());
        quietPanel->elevatedToggle()->click();
        QVERIFY(!quietPanel->showsEmptyText());
        QCOMPARE(quietPanel->model()->rowCount(), 2);
    }

    // "GPU-h at stake", the long form in the header's tooltip; at 1920 px with the demo's long BER
    // and influencer, the last column is as wide as its words and no column but the two that give
    // way (their tooltips have it all) is cut.
    void theGpuHoursAtStakeFit() {
        Console console;
        std::vector<v1::LinkHealth> links = console.links();
        v1::LinkHealth& loud = links[1];  // r02-n15-ib2, as the demo's burst on r06-n10-ib1 reads
        loud.mutable_host_end()->set_text("2.4e-12 (2.3e-12 … 2.4e-12)");
        loud.mutable_switch_end()->set_text("3.2e-16 (1.7e-17 … 1.6e-15)");
        loud.mutable_forecast()->mutable_influencers(0)->set_text(
            "symbol errors (host end) 2360x the 7-day baseline, link recoveries 40x theirs");
        console.send(links, nullptr);
        console.open();
        QVERIFY(console.window->navigate({PageId::Links, {}}));
        ui::LinksAtRiskPanel* panel = console.linksPage()->linksAtRisk();
        const QAbstractItemModel& model = *panel->model();
        const int stake = client::LinkRiskModel::AtStake;
        QCOMPARE(model.headerData(stake, Qt::Horizontal).toString(), QStringLiteral("GPU-h at stake"));
        QVERIFY(model.headerData(stake, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("GPU-h unplanned vs planned")));
        ui::EntityTableView& table = *panel->table();
        QTest::qWait(20);
        QHeaderView& header = *table.horizontalHeader();
        for (int c = 0; c < client::LinkRiskModel::ColumnCount; ++c) {
            if (c == client::LinkRiskModel::Ber || c == client::LinkRiskModel::Influencer) continue;
            const int wanted = table.columnWidthWanted(c);
            QVERIFY2(header.sectionSize(c) >= wanted,
                     qPrintable(QStringLiteral("%1: %2 px of %3")
                                    .arg(model.headerData(c, Qt::Horizontal).toString())
                                    .arg(header.sectionSize(c))
                                    .arg(wanted)));
        }
        QCOMPARE(table.horizontalScrollBar()->maximum(), 0);
        QVERIFY(model.index(0, client::LinkRiskModel::Ber)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("2.4e-12 (2.3e-12 … 2.4e-12)")));
    }

    void anEmptyListSaysWhy() {
        Console console;
        console.open();
        QVERIFY(console.window->navigate({PageId::Links, QStringLiteral("r02")}));
        ui::LinksAtRiskPanel* panel = console.linksPage()->linksAtRisk();
        QVERIFY(panel->showsEmptyText());
        QCOMPARE(panel->emptyText(), QStringLiteral("fleetd judges no links."));
        QVERIFY(panel->chart()->markers().empty());

        const v1::LinkHealthSummary summary = wt::linkSummary(144, 108, 0);
        console.send({}, &summary);
        QVERIFY(panel->showsEmptyText());
        QCOMPARE(panel->emptyText(), QStringLiteral("No link at risk: 108 links judged, 36 still judging."));

        // A link listed, then retired: the list shows it, then says why it is empty again.
        console.send({console.links().front()}, nullptr);
        QVERIFY(!panel->showsEmptyText());
        QCOMPARE(panel->model()->rowCount(), 1);
        v1::LinkHealth gone;
        gone.set_nic_port_index(console.port("r02-n03-ib1"));
        gone.set_retired(true);
        console.send({gone}, nullptr);
        QVERIFY(panel->showsEmptyText());
        QCOMPARE(portCell(*console.linksPage()->portsTable(), QStringLiteral("r02-n03-ib1"), QStringLiteral("P 6 h")),
                 QStringLiteral("—"));
    }
};

QTEST_MAIN(TestLinksAtRiskUi)
#include "tst_linksatriskui.moc"
