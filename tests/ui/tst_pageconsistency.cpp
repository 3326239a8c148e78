// Numbers on one screen that must agree, against a real fleetd on the demo's fleet and scenario
// (FLEETD_BIN, digital twin, --warm-start, scenarios/demo.scn, --auto-drain 5/1h as for the README's
// screenshots, at --speed 240, so its first hour
// passes in about 15 s): r03's leak, r06's drained tray, r07's throttled and shut-down GPUs, the
// BER alarm on r06-n10-ib1 and the 405B job waiting for trays. Each page is opened in the window
// and what it shows is checked against the same FleetStore:
// - Fleet: the GPUs healthy / degraded / down cards are the sums of the racks' counts, and the
//   "N GPU(s) degraded/down" of "Needs attention" add up to the same cards;
// - Goodput: at the console's default size (1600 × 960) and at 1920 × 1080, the footnote of "What
//   separates ETTR from 100 %" lies below its table, every row of that table and of the jobs table
//   is shown, and no two widgets of one layout overlap anywhere on the page;
// - Links: a port whose BER is above the baseline has at least the errors that BER means in a
//   minute (at its line rate) in its symbol-error counter beside it, and the BER alarm quotes the
//   BER the table shows;
// - Jobs: a job whose rescheduling waits for trays (the twin's Job.tray_wait) says what it waits
//   for (trays needed and spares free), in the table and in the detail.
// Every other page is opened at both sizes for the overlap check.

#include "FleetdProcess.h"  // testbeds/
#include "OperatorConsole.h"

#include "EntityTableView.h"
#include "FleetPage.h"
#include "JobsPage.h"
#include "KpiStrip.h"
#include "PageId.h"

#include "FleetStore.h"
#include "JobTableModel.h"

#include <QFile>
#include <QLabel>
#include <QLayout>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <functional>
#include <map>

using namespace watchfloor;
using client::EntityId;
namespace v1 = watchfloor::v1;

namespace {
constexpr const char* kToken = "operator-token-consistency-00001";
constexpr std::int64_t kTwinStartMs = 1'798'761'600'000;

// Sum of one rack metric over every rack of the store.
quint32 rackSum(const client::FleetStore& store, v1::Metric metric) {
    double sum = 0;
    for (int row = 0; row < store.rackCount(); ++row)
        if (const client::Reading r = store.rackReading(row, metric); r.hasValue()) sum += r.value;
    return quint32(std::lround(sum));
}

// The "N GPU(s) <word>" counts of the Needs attention lines, added up.
quint32 attentionSum(const QStringList& lines, const QString& word) {
    const QRegularExpression count(QStringLiteral("(\\d+) GPU\\(s\\) %1").arg(word));
    quint32 sum = 0;
    for (const QString& line : lines)
        if (const auto m = count.match(line); m.hasMatch()) sum += m.captured(1).toUInt();
    return sum;
}

// Widgets of one layout that overlap on screen (each pair once), as "a × b" lines; empty when none.
QStringList overlaps(QWidget* root) {
    QStringList found;
    QList<QWidget*> parents = root->findChildren<QWidget*>();
    parents.prepend(root);
    for (QWidget* parent : parents) {
        if (!parent->isVisible() || !parent->layout()) continue;
        QList<QWidget*> laidOut;
        for (int i = 0; i < parent->layout()->count(); ++i) {
            // Nested layouts' widgets are the parent's children too; collect them all.
            std::function<void(QLayoutItem*)> collect = [&](QLayoutItem* item) {
                if (QWidget* w = item->widget(); w && w->isVisible() && w->height() > 0 && w->width() > 0) laidOut << w;
                if (QLayout* nested = item->layout())
                    for (int k = 0; k < nested->count(); ++k) collect(nested->itemAt(k));
            };
            collect(parent->layout()->itemAt(i));
        }
        for (int a = 0; a < laidOut.size(); ++a)
            for (int b = a + 1; b < laidOut.size(); ++b)
                if (laidOut[a]->geometry().intersects(laidOut[b]->geometry()))
                    found << QStringLiteral("%1 (%2) × %3 (%4) in %5")
                                 .arg(QString::fromLatin1(laidOut[a]->metaObject()->className()),
                                      laidOut[a]->objectName(),
                                      QString::fromLatin1(laidOut[b]->metaObject()->className()),
                                      laidOut[b]->objectName(), QString::fromLatin1(parent->metaObject()->className()));
    }
    return found;
}

// A table's rows that its viewport does not show in full; 0 when every row is visible.
int rowsCutOff(const QTableView* table) {
    int shown = 0, rows = table->model()->rowCount();
    int y = 0;
    for (int r = 0; r < rows; ++r) {
        y += table->rowHeight(r);
        if (y <= table->viewport()->height()) ++shown;
    }
    return rows - shown;
}

QString cell(const QTableWidget* table, int row, int column) {
    const QTableWidgetItem* item = table->item(row, column);
    return item ? item->text() : QString();
}

int columnOf(const QTableWidget* table, const QString& title) {
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c) && table->horizontalHeaderItem(c)->text() == title) return c;
    return -1;
}
}  // namespace

class TestPageConsistency : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testing::FleetdProcess::binary().isEmpty() || !QFile::exists(testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
        QVERIFY(!qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR").isEmpty());
    }

    void demoPagesAgreeWithTheStore() {
        QTemporaryDir dir;
        const QString tokens = testing::writePrivateFile(
            dir, "tokens", QByteArray("token ") + kToken + " principal=demo-operator role=operator\n");
        const QString scenario = qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR") + QStringLiteral("/scenarios/demo.scn");
        testing::FleetdProcess fleetd;
        QVERIFY2(fleetd.start({QStringLiteral("--speed"), QStringLiteral("240"), QStringLiteral("--warm-start"),
                               QStringLiteral("--scenario"), scenario, QStringLiteral("--tokens"), tokens,
                               QStringLiteral("--audit-log"), dir.filePath(QStringLiteral("audit.jsonl")),
                               QStringLiteral("--auto-drain"), QStringLiteral("5/1h")}),
                 qPrintable(fleetd.errorString()));
        // At FULL detail, as watchfloor subscribes outside the war room (NIC ports, per-link counters).
        testing::OperatorConsole console(QString::fromStdString(fleetd.address()), QLatin1String(kToken),
                                         v1::DETAIL_LEVEL_FULL);
        client::FleetStore& store = console.store;
        ui::MainWindow& window = console.window;
        console.start();
        QTRY_VERIFY_WITH_TIMEOUT(console.ready(), 30000);
        // 57 simulated minutes: the leak (30m), the valve (40m) and the BER alarm (55m) are in.
        QTRY_VERIFY_WITH_TIMEOUT(store.endpointFleet(0).serverTimeUnixMs() > kTwinStartMs + 57 * 60'000, 40000);

        // --- Fleet: the KPI cards, the racks' counts and Needs attention say the same numbers.
        QVERIFY(window.navigate({ui::PageId::Fleet, QString()}));
        auto* fleet = qobject_cast<ui::FleetPage*>(window.currentPage());
        QVERIFY(fleet);
        QString why;
        auto fleetAgrees = [&] {
            const quint32 healthy = rackSum(store, v1::RACK_GPUS_HEALTHY);
            const quint32 degraded = rackSum(store, v1::RACK_GPUS_DEGRADED);
            const quint32 down = rackSum(store, v1::RACK_GPUS_DOWN);
            const QStringList lines = fleet->attentionLines();
            const QString shown = QStringLiteral("%1 / %2 / %3")
                                      .arg(fleet->kpis()->value(QStringLiteral("healthy")),
                                           fleet->kpis()->value(QStringLiteral("degraded")),
                                           fleet->kpis()->value(QStringLiteral("down")));
            why = QStringLiteral(
                      "cards healthy/degraded/down %1; racks %2 / %3 / %4; Needs attention degraded %5, "
                      "down %6: %7")
                      .arg(shown)
                      .arg(healthy)
                      .arg(degraded)
                      .arg(down)
                      .arg(attentionSum(lines, QStringLiteral("degraded")))
                      .arg(attentionSum(lines, QStringLiteral("down")))
                      .arg(lines.join(QStringLiteral(" | ")));
            return shown == QStringLiteral("%1 / %2 / %3").arg(healthy).arg(degraded).arg(down) &&
                   attentionSum(lines, QStringLiteral("degraded")) == degraded &&
                   attentionSum(lines, QStringLiteral("down")) == down && healthy + degraded + down == 504;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(fleetAgrees(), qPrintable(why), 10000);
        // Not vacuous: the scenario has degraded GPUs (drained trays, throttling) and down ones (r03).
        QVERIFY2(rackSum(store, v1::RACK_GPUS_DEGRADED) > 0 && rackSum(store, v1::RACK_GPUS_DOWN) > 0, qPrintable(why));

        // --- Links: a BER above the baseline is backed by the symbol errors beside it.
        QVERIFY(window.navigate({ui::PageId::Links, QStringLiteral("r06")}));
        auto* ports = window.currentPage()->findChild<QTableWidget*>(QStringLiteral("linkPorts"));
        QVERIFY(ports);
        const int portColumn = columnOf(ports, QStringLiteral("Port"));
        const int berColumn = columnOf(ports, QStringLiteral("Effective BER"));
        const int symbolColumn = columnOf(ports, QStringLiteral("Symbol err"));
        QVERIFY(portColumn >= 0 && berColumn >= 0 && symbolColumn >= 0);
        std::map<QString, double> rateGbps;
        for (const v1::NicPort& port : store.endpointFleet(0).topology().topology().nic_ports())
            rateGbps[QString::fromStdString(port.name())] = port.link_rate_gbps();
        QString alarmBer;
        auto portsAgree = [&] {
            int elevated = 0;
            QStringList wrong;
            for (int r = 0; r < ports->rowCount(); ++r) {
                const QString name = cell(ports, r, portColumn);
                const double ber = cell(ports, r, berColumn).toDouble();
                if (ber <= 1e-13) continue;
                ++elevated;
                const double errorsAMinute = ber * rateGbps[name] * 1e9 * 60.0;
                const double counted = cell(ports, r, symbolColumn).toDouble();
                if (counted < 0.99 * errorsAMinute)
                    wrong << QStringLiteral("%1: BER %2 means %3 errors a minute, its counter reads %4")
                                 .arg(name, cell(ports, r, berColumn))
                                 .arg(errorsAMinute, 0, 'f', 0)
                                 .arg(cell(ports, r, symbolColumn));
                if (name == QStringLiteral("r06-n10-ib1") && !alarmBer.isEmpty() &&
                    !alarmBer.startsWith(QString::number(ber, 'e', 1)))
                    wrong
                        << QStringLiteral("the alarm quotes %1, the table %2").arg(alarmBer, cell(ports, r, berColumn));
            }
            why = elevated > 0
                      ? wrong.join(QStringLiteral("; "))
                      : QStringLiteral("no port above the baseline BER among %1 rows; first: %2 | %3 | %4")
                            .arg(ports->rowCount())
                            .arg(cell(ports, 0, portColumn), cell(ports, 0, berColumn), cell(ports, 0, symbolColumn));
            return elevated > 0 && wrong.isEmpty();
        };
        for (const client::StoredEvent& e : store.eventLog().events()) {
            const auto m = QRegularExpression(QStringLiteral("^r06-n10-ib1 bit error ratio ([0-9.e+-]+)"))
                               .match(QString::fromStdString(e.event.message()));
            if (e.event.type() == v1::EVENT_TYPE_LINK_BER && m.hasMatch()) alarmBer = m.captured(1);
        }
        QVERIFY2(!alarmBer.isEmpty(), "the scenario's BER alarm on r06-n10-ib1 did not arrive");
        QTRY_VERIFY2_WITH_TIMEOUT(portsAgree(), qPrintable(why), 30000);

        // --- Jobs: a job rescheduling onto trays that are not there says what it waits for.
        QVERIFY(window.navigate({ui::PageId::Jobs, QString()}));
        auto* jobs = qobject_cast<ui::JobsPage*>(window.currentPage());
        QVERIFY(jobs);
        int waitingLong = 0;
        for (int row = 0; row < store.jobCount(); ++row) {
            const v1::Job* job = store.job(row);
            if (!job || job->state() != v1::JOB_STATE_RECOVERING ||
                job->recovery_stage() != v1::RECOVERY_STAGE_RESCHEDULE)
                continue;
            // The twin reports what a placement waits for until it succeeds; a job without a wait
            // is swapping in its spares (1-3 min once placed, however long it waited before).
            if (!job->has_tray_wait()) continue;
            ++waitingLong;
            const QString name = QString::fromStdString(job->name());
            const QRegularExpression says(QStringLiteral("waiting for trays: (\\d+) needed, (\\d+) spares? free"));
            QVERIFY(jobs->showEntity(name));
            const auto inDetail = says.match(jobs->detailText());
            QVERIFY2(inDetail.hasMatch(), qPrintable(name + QStringLiteral(": ") + jobs->detailText()));
            QVERIFY2(inDetail.captured(1).toUInt() > inDetail.captured(2).toUInt(), qPrintable(jobs->detailText()));
            QString inTable;
            const QAbstractItemModel* model = jobs->table()->proxy();
            for (int r = 0; r < model->rowCount(); ++r)
                if (model->index(r, client::JobTableModel::Name).data().toString() == name)
                    inTable = model->index(r, client::JobTableModel::State).data().toString();
            QVERIFY2(says.match(inTable).hasMatch(), qPrintable(name + QStringLiteral(": ") + inTable));
        }
        QVERIFY2(waitingLong > 0, "no job waited for trays after r03's leak");

        // --- Geometry: every page at the console's default size and at 1920 x 1080.
        for (const QSize size : {QSize(1600, 960), QSize(1920, 1080)}) {
            window.resize(size);
            for (const ui::PageId page : ui::kAllPages) {
                if (page == ui::PageId::Incident) continue;  // opened from an incident, not on its own
                QVERIFY(window.navigate({page, QString()}));
                QTest::qWait(100);  // layouts settle, lists refill
                const QString where =
                    QStringLiteral("%1 at %2×%3: ").arg(ui::pageTitle(page)).arg(size.width()).arg(size.height());
                const QStringList overlapping = overlaps(window.currentPage());
                QVERIFY2(overlapping.isEmpty(), qPrintable(where + overlapping.join(QStringLiteral("; "))));
                if (page != ui::PageId::Goodput) continue;
                auto* budget = window.currentPage()->findChild<QTableWidget*>(QStringLiteral("ettrBudget"));
                auto* note = window.currentPage()->findChild<QLabel*>(QStringLiteral("ettrBudgetNote"));
                auto* goodputJobs = window.currentPage()->findChild<QTableWidget*>(QStringLiteral("goodputJobs"));
                QVERIFY(budget && note && goodputJobs);
                const QPoint tableBottom = budget->mapTo(window.currentPage(), QPoint(0, budget->height()));
                const QPoint noteTop = note->mapTo(window.currentPage(), QPoint(0, 0));
                QVERIFY2(noteTop.y() >= tableBottom.y(),
                         qPrintable(where + QStringLiteral("the footnote starts at y %1, inside its table (to y %2)")
                                                .arg(noteTop.y())
                                                .arg(tableBottom.y())));
                QVERIFY2(note->height() >= note->heightForWidth(note->width()),
                         qPrintable(where + QStringLiteral("the footnote is cut: %1 px of %2")
                                                .arg(note->height())
                                                .arg(note->heightForWidth(note->width()))));
                QCOMPARE(rowsCutOff(budget), 0);
                QVERIFY(goodputJobs->rowCount() >= 3);
                QVERIFY2(rowsCutOff(goodputJobs) == 0,
                         qPrintable(where + QStringLiteral("the jobs table shows %1 of %2 rows in %3 px")
                                                .arg(goodputJobs->rowCount() - rowsCutOff(goodputJobs))
                                                .arg(goodputJobs->rowCount())
                                                .arg(goodputJobs->viewport()->height())));
            }
        }
    }
};

QTEST_MAIN(TestPageConsistency)
#include "tst_pageconsistency.moc"
