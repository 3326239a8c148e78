// The straggler drill-down end to end against a real fleetd (FLEETD_BIN, digital twin, --tokens):
// r01-n03 of llm-405b-1 made 15 % slow and its IB port flapped, r01-n07 made 30 % slow; the
// fail-slow ladder proposes them. From the Goodput page's fail-slow row the drill-down opens: the
// heat map puts r01-n07 and r01-n03 first (slowest), its colour ramp reaches the slowest tray so
// the two differ in colour, r01-n03's cause panel names the link flaps on r01-n03-ib1 and shows its
// InfiniBand port counters although the console subscribes at STANDARD detail (fetched for that
// tray; selected again while they load, only the newest answer shows) and fleetd's link keeper
// listing that port at risk, a quiet tray's counters since their last clear implicate nothing, and
// the action button
// opens the ordinary drain dialog with the eviction, previewed (never executed from the drill-down).
// WATCHFLOOR_STRAGGLER_SCREENSHOT=FILE.png keeps the drill-down as rendered.

#include "FleetdProcess.h"  // testbeds/
#include "OperatorConsole.h"
#include "SanitizerBuild.h"  // testbeds/

#include "ActionDialog.h"
#include "FailSlowPanel.h"
#include "GoodputPage.h"
#include "StragglerCausePanel.h"
#include "StragglerDrillDown.h"

#include "HeatmapWidget.h"

#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace watchfloor;
using client::EntityId;
namespace v1 = watchfloor::v1;

namespace {
constexpr const char* kToken = "operator-token-straggler-0000001";
constexpr std::int64_t kTwinStartMs = 1'798'761'600'000;

// The cause table's row for a family ("Link flaps"), -1 when absent.
int causeRow(const QTableWidget* table, const QString& family) {
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0) && table->item(r, 0)->text().endsWith(family)) return r;
    return -1;
}
}  // namespace

class TestStragglerUi : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testing::FleetdProcess::binary().isEmpty() || !QFile::exists(testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
    }

    void drillDownFindsTheSlowTrayAndItsCause() {
        QTemporaryDir dir;
        const QString tokens = testing::writePrivateFile(
            dir, "tokens", QByteArray("token ") + kToken + " principal=alice role=operator\n");
        const QString scenario = testing::writePrivateFile(dir, "slow.scn",
                                                           "at 1m straggler node=r01-n03 factor=1.15 for=12h\n"
                                                           "at 1m straggler node=r01-n07 factor=1.30 for=12h\n"
                                                           "at 3m link-flap nic=r01-n03-ib1 count=3\n");
        testing::FleetdProcess fleetd;
        QVERIFY2(fleetd.start({QStringLiteral("--speed"), QStringLiteral("120"), QStringLiteral("--warm-start"),
                               QStringLiteral("--scenario"), scenario, QStringLiteral("--tokens"), tokens,
                               QStringLiteral("--audit-log"), dir.filePath(QStringLiteral("audit.jsonl")),
                               QStringLiteral("--fail-slow-window"), QStringLiteral("2m"),
                               QStringLiteral("--fail-slow-confirm"), QStringLiteral("2")}),
                 qPrintable(fleetd.errorString()));
        testing::OperatorConsole console(QString::fromStdString(fleetd.address()), QLatin1String(kToken));
        client::FleetStore& store = console.store;
        ui::MainWindow& window = console.window;
        console.start();
        QTRY_VERIFY_WITH_TIMEOUT(console.ready(), 30000);

        // Proposed by the ladder, and a quarter of an hour of steps in fleetd's history.
        auto proposed = [&] {
            for (int r = 0; r < store.jobCount(); ++r)
                if (const v1::Job* job = store.job(r); job && job->name() == "llm-405b-1")
                    for (const auto& f : job->fail_slow())
                        if (f.node_name() == "r01-n03" && f.stage() == v1::FAIL_SLOW_STAGE_PROPOSED) return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(proposed(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(store.endpointFleet(0).serverTimeUnixMs() > kTwinStartMs + 16 * 60'000, 60000);

        QVERIFY(window.navigate({ui::PageId::Goodput, QString()}));
        auto* goodput = qobject_cast<ui::GoodputPage*>(window.currentPage());
        QVERIFY(goodput);
        QPushButton* open = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(
            (open = goodput->failSlowPanel()->findChild<QPushButton*>(QStringLiteral("drilldown-r01-n03"))), 10000);
        open->click();
        ui::StragglerDrillDown* drill = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((drill = goodput->findChild<ui::StragglerDrillDown*>()), 5000);

        // The heat map: every tray of the job, the slow ones first, reading about 1.30x and 1.15x.
        QTRY_VERIFY_WITH_TIMEOUT(drill->heatmap()->rowCount() >= 36 && drill->heatmap()->columnCount() >= 10, 15000);
        QCOMPARE(drill->displayedTrays().mid(0, 2),
                 (QStringList{QStringLiteral("r01-n07"), QStringLiteral("r01-n03")}));
        const int slowest = drill->grid().rowOfNode(store.findByName(QStringLiteral("r01-n07")).index);
        const int slow = drill->grid().rowOfNode(store.findByName(QStringLiteral("r01-n03")).index);
        QVERIFY(slow >= 0 && slowest >= 0);
        const double slowestRatio = drill->grid().meanRatio(slowest), slowRatio = drill->grid().meanRatio(slow);
        QVERIFY2(slowRatio > 1.10 && slowRatio < 1.25, qPrintable(QString::number(slowRatio)));
        QVERIFY2(slowestRatio > 1.22 && slowestRatio < 1.45, qPrintable(QString::number(slowestRatio)));
        QVERIFY(drill->summary()->text().contains(QStringLiteral("slowest tray r01-n07")));
        // The ramp reaches the slowest tray (its legend's end reads it), so 1.3x and 1.15x differ.
        const widgets::ColorScale& ramp = drill->heatmap()->colorScale();
        QCOMPARE(ramp.min(), 1.0f);
        QVERIFY2(ramp.max() >= slowestRatio - 1e-4 && ramp.max() < slowestRatio + 0.06,
                 qPrintable(QString::number(ramp.max())));
        const QColor hot = ramp.colorFor(float(slowestRatio)), warm = ramp.colorFor(float(slowRatio));
        QVERIFY2(std::abs(hot.red() - warm.red()) + std::abs(hot.green() - warm.green()) +
                         std::abs(hot.blue() - warm.blue()) >
                     40,
                 qPrintable(hot.name() + " vs " + warm.name()));

        // Opened from r01-n03's row, the drill-down selects it; its causes: the flapped port, the counters.
        QTRY_COMPARE_WITH_TIMEOUT(drill->selectedTray(), store.findByName(QStringLiteral("r01-n03")), 10000);
        // Selected again (twice, as a double click does) while its causes still load: only the
        // newest request's answer shows, so the panel never flips back to "Reading…" after it.
        QSignalSpy causesLoaded(drill, &ui::StragglerDrillDown::causesLoaded);
        drill->selectTray(store.findByName(QStringLiteral("r01-n03")));
        drill->selectTray(store.findByName(QStringLiteral("r01-n03")));
        QTRY_VERIFY_WITH_TIMEOUT(!causesLoaded.isEmpty(), 15000);
        QTableWidget* causes = drill->causePanel()->causes();
        QTRY_VERIFY_WITH_TIMEOUT(causeRow(causes, QStringLiteral("Link flaps")) >= 0, 15000);
        const int flaps = causeRow(causes, QStringLiteral("Link flaps"));
        QVERIFY2(causes->item(flaps, 0)->text().startsWith(QStringLiteral("●")),
                 qPrintable(causes->item(flaps, 0)->text()));
        QVERIFY2(causes->item(flaps, 1)->text().contains(QStringLiteral("r01-n03-ib1")),
                 qPrintable(causes->item(flaps, 1)->text()));
        QVERIFY(causeRow(causes, QStringLiteral("Thermal clocks events")) >= 0);
        QVERIFY(causeRow(causes, QStringLiteral("Power cap")) >= 0);
        QVERIFY(causeRow(causes, QStringLiteral("NVLink counters")) >= 0);
        // Its ports' counters, although this console's subscription (STANDARD) carries no port values.
        QCOMPARE(console.connection.config().detail, v1::DETAIL_LEVEL_STANDARD);
        QVERIFY(
            store.kind(EntityId{0, store.nodeInfo(store.findByName(QStringLiteral("r01-n03")))->nic_port_indexes(0)}) !=
            v1::ENTITY_KIND_NIC_PORT);
        const int ib = causeRow(causes, QStringLiteral("InfiniBand counters"));
        QVERIFY(ib >= 0);
        const QString ibFinding = causes->item(ib, 1)->text();
        QVERIFY2(QRegularExpression(
                     QStringLiteral("^link downed [1-9][0-9]*, error recoveries [0-9]+, symbol errors [0-9]+, "
                                    "receive errors [0-9]+ since the last clear \\([1-4] of its 4 ports reported\\); "
                                    "fleetd lists r01-n03-ib1 at risk$"))
                     .match(ibFinding)
                     .hasMatch(),
                 qPrintable(ibFinding));
        QVERIFY(causes->item(ib, 0)->text().startsWith(QStringLiteral("●")));
        QVERIFY2(drill->causePanel()->verdict()->text().contains(QStringLiteral("link flaps")),
                 qPrintable(drill->causePanel()->verdict()->text()));
        // The earlier request's answer (tens of milliseconds away) is dropped, not shown after.
        QTest::qWait(1500 * testing::kSanitizerSlowdown);
        QCOMPARE(causesLoaded.count(), 1);
        QVERIFY2(drill->causePanel()->verdict()->text().contains(QStringLiteral("link flaps")),
                 qPrintable(drill->causePanel()->verdict()->text()));

        // Another tray: nothing implicates it, and the ladder proposes nothing for it.
        const int other = drill->grid().rowOfNode(store.findByName(QStringLiteral("r01-n05")).index);
        QVERIFY(other >= 0);
        causesLoaded.clear();
        drill->selectTray(store.findByName(QStringLiteral("r01-n05")));
        QTRY_VERIFY_WITH_TIMEOUT(!causesLoaded.isEmpty(), 10000);  // answers for an earlier tray are dropped
        QVERIFY(!drill->causePanel()->actionButton()->isVisible());
        // Its ports report counters that count since their last clear (a healthy port's weeks of
        // reboots); fleetd's link keeper lists none of its links, so they implicate nothing.
        const int quiet = causeRow(causes, QStringLiteral("InfiniBand counters"));
        const QString quietFinding = causes->item(quiet, 1)->text();
        QVERIFY2(
            QRegularExpression(QStringLiteral("^link downed [0-9]+, error recoveries [0-9]+, symbol errors [0-9]+, "
                                              "receive errors [0-9]+ since the last clear \\(4 of its 4 ports "
                                              "reported\\); fleetd lists none of its links at risk$"))
                .match(quietFinding)
                .hasMatch(),
            qPrintable(quietFinding));
        QVERIFY(causes->item(quiet, 0)->text().startsWith(QStringLiteral("○")));
        QVERIFY2(drill->causePanel()->verdict()->text().contains(QStringLiteral("no finding")),
                 qPrintable(drill->causePanel()->verdict()->text()));

        causesLoaded.clear();
        drill->selectTray(store.findByName(QStringLiteral("r01-n03")));
        QTRY_VERIFY_WITH_TIMEOUT(!causesLoaded.isEmpty(), 10000);
        QPushButton* evict = drill->causePanel()->actionButton();
        QVERIFY(evict->isVisible() && evict->isEnabled());
        QCOMPARE(evict->text(), QStringLiteral("Evict r01-n03…"));
        if (const QString shot = qEnvironmentVariable("WATCHFLOOR_STRAGGLER_SCREENSHOT"); !shot.isEmpty())
            QVERIFY(drill->grab().save(shot));

        // One click to the proposed action, through the ordinary dialog and its preview.
        evict->click();
        ui::ActionDialog* dialog = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((dialog = drill->findChild<ui::ActionDialog*>()), 5000);
        QCOMPARE(dialog->request().type(), v1::ACTION_TYPE_DRAIN_NODE);
        QCOMPARE(dialog->request().node_name(), "r01-n03");
        QVERIFY(dialog->reasonEdit()->text().startsWith(QStringLiteral("fail-slow: evict r01-n03")));
        QTRY_COMPARE_WITH_TIMEOUT(dialog->phase(), ui::ActionDialog::Phase::Ready, 10000);
        dialog->close();
        drill->close();
    }
};

QTEST_MAIN(TestStragglerUi)
#include "tst_stragglerui.moc"
