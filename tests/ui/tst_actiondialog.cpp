// The action dialog against fleetd's real ControlService in-process (ControlClient → gRPC →
// operations engine → recording actuator): confirm stays disabled until the preview allows it,
// a reason is given and (to isolate) the rack's name is typed exactly; Cancel is the default and
// Enter cancels; the request carries the preview's state version and the reason; a stale preview
// is refused and nothing runs. Menus: operators get action entries, viewers and the war room none.

#include "InProcessControl.h"
#include "PageTestFleet.h"

#include "ActionBar.h"
#include "ActionDialog.h"
#include "EntityTableView.h"
#include "FailSlowPanel.h"
#include "FleetPage.h"
#include "GoodputPage.h"
#include "IncidentsDock.h"
#include "JobsPage.h"
#include "MainWindow.h"
#include "OperatorActions.h"
#include "RackPage.h"

#include "FleetStore.h"
#include "RackElevationWidget.h"
#include "Theme.h"

#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace watchfloor;
namespace v1 = watchfloor::v1;
using ui::ActionDialog;

namespace {

v1::ActionRequest draft(v1::ActionType type, const char* target) {
    v1::ActionRequest request;
    request.set_type(type);
    if (type == v1::ACTION_TYPE_ISOLATE_RACK || type == v1::ACTION_TYPE_RESTORE_RACK)
        request.set_rack_name(target);
    else if (type == v1::ACTION_TYPE_RESTART_JOB)
        request.set_job_name(target);
    else
        request.set_node_name(target);
    return request;
}

int actionEntries(const QMenu& menu) {
    int count = 0;
    for (const QAction* action : menu.actions())
        count += action->objectName() == QStringLiteral("operatorAction") ? 1 : 0;
    return count;
}

QStringList entryTexts(const QMenu& menu) {
    QStringList texts;
    for (const QAction* action : menu.actions()) texts << action->text();
    return texts;
}

}  // namespace

class TestActionDialog : public QObject {
    Q_OBJECT
    std::unique_ptr<testing::InProcessControl> m_server;
    std::unique_ptr<client::ControlClient> m_alice;

    std::unique_ptr<ActionDialog> openDialog(v1::ActionRequest request) {
        auto dialog = std::make_unique<ActionDialog>(*m_alice, std::move(request));
        dialog->show();
        return dialog;
    }

    static bool waitForPreview(ActionDialog& dialog) {
        return QTest::qWaitFor([&] { return dialog.phase() != ActionDialog::Phase::Previewing; }, 10000);
    }

private slots:
    void initTestCase() {
        m_server = std::make_unique<testing::InProcessControl>();
        QVERIFY(m_server->isUp());
        m_alice = m_server->client(testing::kAliceToken);
        QTRY_VERIFY_WITH_TIMEOUT(m_alice->canAct(), 10000);
        QCOMPARE(m_alice->principal(), QStringLiteral("alice"));
    }

    void cleanupTestCase() {
        m_alice.reset();
        m_server.reset();
    }

    void isolateNeedsTheRackNameTypedExactlyAndAReason() {
        auto dialog = openDialog(draft(v1::ACTION_TYPE_ISOLATE_RACK, "r01"));
        QVERIFY(dialog->confirmNameEdit());
        QVERIFY(waitForPreview(*dialog));
        QCOMPARE(dialog->phase(), ActionDialog::Phase::Ready);
        QVERIFY(dialog->preview()->allowed());
        QCOMPARE(dialog->preview()->gpus_lost(), 72u);
        QVERIFY(!dialog->confirmButton()->isEnabled());

        dialog->reasonEdit()->setText(QStringLiteral("coolant leak under r01"));
        QVERIFY(!dialog->confirmButton()->isEnabled());
        for (const char* nearMiss : {"R01", "r01 ", "r0", "r02", " r01"}) {
            dialog->confirmNameEdit()->setText(QString::fromLatin1(nearMiss));
            QVERIFY2(!dialog->confirmButton()->isEnabled(), nearMiss);
        }
        dialog->confirmNameEdit()->setText(QStringLiteral("r01"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        dialog->reasonEdit()->setText(QStringLiteral("   "));
        QVERIFY(!dialog->confirmButton()->isEnabled());
        QCOMPARE(m_server->actuator->calls().size(), 0u);
    }

    void cancelIsTheDefaultAndEnterCancels() {
        auto dialog = openDialog(draft(v1::ACTION_TYPE_DRAIN_NODE, "r01-n04"));
        QVERIFY(waitForPreview(*dialog));
        dialog->reasonEdit()->setText(QStringLiteral("xid 79"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        QVERIFY(dialog->cancelButton()->isDefault());
        QVERIFY(!dialog->confirmButton()->isDefault());
        QVERIFY(!dialog->confirmButton()->autoDefault());

        // Enter in the reason field, and Enter with the confirm button focused: both cancel.
        QSignalSpy rejected(dialog.get(), &QDialog::rejected);
        QTest::keyClick(dialog->reasonEdit(), Qt::Key_Return);
        QCOMPARE(rejected.size(), 1);
        QVERIFY(!dialog->isVisible());

        dialog->show();
        dialog->confirmButton()->setFocus();
        QTest::keyClick(dialog->confirmButton(), Qt::Key_Enter);
        QCOMPARE(rejected.size(), 2);
        QTest::qWait(200);
        QCOMPARE(m_server->actuator->calls().size(), 0u);
    }

    void aRefusedPreviewDisablesConfirm() {
        m_server->fleet.setIsolated("r02", true);
        m_server->fleet.setLeak("r02", true);
        auto dialog = openDialog(draft(v1::ACTION_TYPE_RESTORE_RACK, "r02"));
        const widgets::Theme& light = widgets::Theme::builtin(widgets::ThemeVariant::Light);
        dialog->setColours(ui::ActionColours::of(light));
        QVERIFY(waitForPreview(*dialog));
        QCOMPARE(dialog->phase(), ActionDialog::Phase::PreviewFailed);
        QVERIFY(!dialog->preview()->allowed());
        // The refusal stands out in the theme's critical colour (readable on the light theme).
        QVERIFY2(dialog->previewHtml().contains(light.colors().crit.name()), qPrintable(dialog->previewHtml()));
        dialog->reasonEdit()->setText(QStringLiteral("leak fixed"));
        QVERIFY(!dialog->confirmButton()->isEnabled());
        QVERIFY(dialog->refreshButton()->isEnabled());
        dialog->confirm();  // ignored: nothing is sent
        QCOMPARE(dialog->phase(), ActionDialog::Phase::PreviewFailed);
        m_server->fleet.setLeak("r02", false);
        dialog->refreshButton()->click();
        QVERIFY(waitForPreview(*dialog));
        QCOMPARE(dialog->phase(), ActionDialog::Phase::Ready);
        QVERIFY(dialog->confirmButton()->isEnabled());
        m_server->fleet.setIsolated("r02", false);
    }

    void theRequestCarriesTheStateVersionAndTheReasonAndRunsOnce() {
        const auto callsBefore = m_server->actuator->calls().size();
        auto dialog = openDialog(draft(v1::ACTION_TYPE_DRAIN_NODE, "r01-n05"));
        QVERIFY(waitForPreview(*dialog));
        const quint64 version = dialog->preview()->state_version();
        QVERIFY(version > 0);
        dialog->reasonEdit()->setText(QStringLiteral("Xid 79 on gpu 2"));
        QCOMPARE(dialog->request().expected_state_version(), version);
        QSignalSpy accepted(dialog.get(), &ActionDialog::operationAccepted);
        dialog->confirmButton()->click();
        QVERIFY(!dialog->confirmButton()->isEnabled());  // in flight
        dialog->confirm();                               // a second click does nothing
        QTRY_COMPARE_WITH_TIMEOUT(accepted.size(), 1, 10000);
        const auto operation = accepted.first().first().value<v1::Operation>();
        QCOMPARE(operation.request().expected_state_version(), version);
        QCOMPARE(operation.request().reason(), "alice: Xid 79 on gpu 2");
        QCOMPARE(operation.request().node_name(), "r01-n05");
        QCOMPARE(dialog->phase(), ActionDialog::Phase::Following);
        QCOMPARE(dialog->cancelButton()->text(), QStringLiteral("Close"));
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statusText().contains(QStringLiteral("Succeeded")), 10000);
        QCOMPARE(m_server->actuator->calls().size(), callsBefore + 1);
    }

    void aStalePreviewIsRefusedAndNothingRuns() {
        const auto callsBefore = m_server->actuator->calls().size();
        auto dialog = openDialog(draft(v1::ACTION_TYPE_DRAIN_NODE, "r01-n06"));
        QVERIFY(waitForPreview(*dialog));
        dialog->reasonEdit()->setText(QStringLiteral("fan failure"));
        m_server->fleet.setNodeState("r01-n06", v1::NODE_STATE_DOWN);  // changes under the operator
        dialog->confirmButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->phase() != ActionDialog::Phase::Sending, 10000);
        QVERIFY2(dialog->statusText().contains(QStringLiteral("preview"), Qt::CaseInsensitive),
                 qPrintable(dialog->statusText()));
        QVERIFY(dialog->operationId().isEmpty());
        QVERIFY(waitForPreview(*dialog));  // the dialog looks again by itself
        QVERIFY(dialog->phase() == ActionDialog::Phase::Ready || dialog->phase() == ActionDialog::Phase::PreviewFailed);
        QCOMPARE(m_server->actuator->calls().size(), callsBefore);
    }

    void restartPrefillsTheJobsBadNodes() {
        m_server->fleet.placeJob("llm-70b", {"r01-n10", "r01-n11"}, 600);
        v1::ActionRequest request = draft(v1::ACTION_TYPE_RESTART_JOB, "llm-70b");
        request.add_exclude_node_names("r01-n11");
        auto dialog = openDialog(request);
        QCOMPARE(dialog->excludeEdit()->text(), QStringLiteral("r01-n11"));
        QVERIFY(waitForPreview(*dialog));
        QVERIFY(dialog->preview()->jobs_hit_size() == 1);
        dialog->excludeEdit()->setText(QStringLiteral("r01-n11, r01-n10"));
        QCOMPARE(dialog->request().exclude_node_names_size(), 2);
    }

    // The breaker's trip alert offers an admin the reset (and everyone who may act the ack); the
    // preview is fleetd's, which refuses a reset it cannot do.
    void breakerResetIsOfferedToAnAdminOnItsTripAlert_data() {
        QTest::addColumn<QString>("token");
        QTest::addColumn<bool>("expectReset");
        QTest::newRow("operator") << QString::fromLatin1(testing::kAliceToken) << false;
        QTest::newRow("admin") << QString::fromLatin1(testing::kCarolToken) << true;
    }
    void breakerResetIsOfferedToAnAdminOnItsTripAlert() {
        QFETCH(QString, token);
        QFETCH(bool, expectReset);
        auto control = m_server->client(token.toLatin1().constData());
        QTRY_VERIFY_WITH_TIMEOUT(control->canAct(), 10000);
        testing::PageTestFleet fleet;
        fleet.addEvent(5, v1::SEVERITY_CRITICAL, v1::EVENT_TYPE_AUTOMATED_ACTION, fleet.r02,
                       "automatic draining stopped: 3 drains in 1h; an admin resets the breaker after review",
                       [](v1::Event& e) { e.set_cause("automation_circuit_breaker"); });
        client::FleetStore store;
        store.apply(store.addEndpoint(QStringLiteral("synthetic")), fleet.snapshot);
        store.flushChanges();
        quint64 trip = 0;
        for (quint64 serial = store.firstEventSerial(); serial < store.nextEventSerial(); ++serial) {
            const client::StoredEvent* e = store.eventBySerial(serial);
            trip = e && e->event.id() == 5 ? serial : trip;
        }
        QVERIFY(store.eventBySerial(trip) && store.eventBySerial(trip)->event.id() == 5);
        ui::OperatorActions actions(store, {control.get()});
        QStringList labels;
        const QList<ui::ActionDraft> drafts = actions.draftsForEvent(trip);
        for (const ui::ActionDraft& d : drafts) labels << d.label;
        QVERIFY2(labels.contains(QStringLiteral("Acknowledge event 5…")), qPrintable(labels.join(", ")));
        QCOMPARE(labels.contains(QStringLiteral("Reset automation breaker…")), expectReset);
        if (!expectReset) return;
        auto dialog = std::make_unique<ActionDialog>(*control, drafts.back().request);
        dialog->show();
        QVERIFY(waitForPreview(*dialog));
        QCOMPARE(dialog->phase(), ActionDialog::Phase::PreviewFailed);
        // This fleetd has no --auto-drain: its preview says so rather than resetting anything.
        QVERIFY2(dialog->previewHtml().contains(QStringLiteral("would refuse this now")) &&
                     dialog->previewHtml().contains(QStringLiteral("--auto-drain")),
                 qPrintable(dialog->previewHtml()));
    }

    // Menus and action bars on real pages, for an operator, a viewer, and the war room.
    // Issue 16, item 4: a proposed fail-slow tray on the Goodput page has a button that opens the
    // drain dialog for it, reason pre-filled, previewed and executed through the control connection.
    void failSlowEvictButtonDrainsThroughTheDialog() {
        const auto callsBefore = m_server->actuator->calls().size();
        testing::PageTestFleet fleet;
        v1::Job& job = *fleet.s().mutable_jobs(0);
        v1::FailSlowFinding& finding = *job.add_fail_slow();
        finding.set_node_name("r01-n07");
        for (const auto& node : fleet.s().topology().nodes())
            if (node.name() == "r01-n07") finding.set_node_index(node.index());
        finding.set_slowdown(1.15);
        finding.set_windows_slow(3);
        finding.set_windows_needed(3);
        finding.set_stage(v1::FAIL_SLOW_STAGE_PROPOSED);
        client::FleetStore store;
        store.apply(store.addEndpoint(QStringLiteral("synthetic")), fleet.snapshot);
        store.flushChanges();
        ui::PageContext context;
        context.store = &store;
        context.controls = {m_alice.get()};
        ui::MainWindow window(context, ui::MainWindowOptions{});
        window.resize(1600, 1000);
        window.show();
        QVERIFY(window.navigate({ui::PageId::Goodput, {}}));
        auto* goodput = qobject_cast<ui::GoodputPage*>(window.currentPage());
        QPushButton* evict = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(
            (evict = goodput->failSlowPanel()->findChild<QPushButton*>(QStringLiteral("evict-r01-n07"))), 10000);
        QCOMPARE(evict->text(), QStringLiteral("Evict r01-n07…"));
        evict->click();
        ActionDialog* dialog = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((dialog = goodput->findChild<ActionDialog*>()), 5000);
        QCOMPARE(dialog->request().type(), v1::ACTION_TYPE_DRAIN_NODE);
        QCOMPARE(dialog->request().node_name(), "r01-n07");
        QCOMPARE(dialog->reasonEdit()->text(),
                 QStringLiteral("fail-slow: evict r01-n07 (1.15× slow) from llm-405b-pretrain"));
        QVERIFY(waitForPreview(*dialog));
        QCOMPARE(dialog->phase(), ActionDialog::Phase::Ready);
        QSignalSpy accepted(dialog, &ActionDialog::operationAccepted);
        dialog->confirmButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(accepted.size(), 1, 10000);
        const auto operation = accepted.first().first().value<v1::Operation>();
        QCOMPARE(operation.principal(), "alice");
        QCOMPARE(operation.request().reason(), "alice: fail-slow: evict r01-n07 (1.15× slow) from llm-405b-pretrain");
        QVERIFY(operation.request().expected_state_version() > 0);
        QTRY_COMPARE_WITH_TIMEOUT(m_server->actuator->calls().size(), callsBefore + 1, 10000);
        dialog->close();
    }

    void menus_data() {
        QTest::addColumn<QString>("who");
        QTest::addColumn<bool>("wall");
        QTest::addColumn<bool>("expectActions");
        QTest::newRow("operator") << QStringLiteral("alice") << false << true;
        QTest::newRow("viewer") << QStringLiteral("val") << false << false;
        QTest::newRow("operator on the war-room wall") << QStringLiteral("alice") << true << false;
    }

    void menus() {
        QFETCH(QString, who);
        QFETCH(bool, wall);
        QFETCH(bool, expectActions);
        auto control = m_server->client(who == QStringLiteral("val") ? testing::kViewerToken : testing::kAliceToken);
        QTRY_VERIFY_WITH_TIMEOUT(control->role() != v1::ROLE_UNSPECIFIED, 10000);

        testing::PageTestFleet fleet;
        client::FleetStore store;
        store.apply(store.addEndpoint(QStringLiteral("synthetic")), fleet.snapshot);
        store.flushChanges();
        ui::PageContext context;
        context.store = &store;
        context.controls = {control.get()};
        ui::MainWindowOptions options;
        options.wallDisplay = wall;
        ui::MainWindow window(context, options);
        window.resize(1600, 1000);
        window.show();

        auto* rackPage = qobject_cast<ui::RackPage*>(window.page(ui::PageId::Rack));
        QVERIFY(window.navigate({ui::PageId::Rack, QStringLiteral("r01-n03")}));
        QMenu nodeMenu;
        rackPage->nodesTable()->populateMenu(nodeMenu, rackPage->nodesTable()->proxy()->index(0, 0));
        QCOMPARE(actionEntries(nodeMenu) > 0, expectActions);
        if (expectActions)
            QVERIFY2(entryTexts(nodeMenu).contains(QStringLiteral("Drain node r01-n01…")),
                     qPrintable(entryTexts(nodeMenu).join(", ")));
        QCOMPARE(rackPage->actionBar()->buttonLabels().isEmpty(), !expectActions);
        QCOMPARE(rackPage->actionBar()->isVisibleTo(rackPage), expectActions);
        if (expectActions) {
            QVERIFY(rackPage->actionBar()->buttonLabels().contains(QStringLiteral("Drain node r01-n03…")));
            QVERIFY(rackPage->actionBar()->buttonLabels().contains(QStringLiteral("Isolate rack r01…")));
        }
        QMenu trayMenu;
        const QPoint trayCentre = rackPage->elevation()->trayRect(2).center();
        rackPage->populateElevationMenu(trayMenu, trayCentre);
        QCOMPARE(actionEntries(trayMenu) > 0, expectActions);

        auto* fleetPage = qobject_cast<ui::FleetPage*>(window.page(ui::PageId::Fleet));
        QMenu rackMenu;
        // The tile's index on the map is the rack row the menu is for.
        fleetPage->populateRackMenu(rackMenu, fleetPage->rackMap()->indexOfRack(QStringLiteral("r01")));
        QVERIFY(entryTexts(rackMenu).contains(QStringLiteral("Open r01")));
        QCOMPARE(actionEntries(rackMenu) > 0, expectActions);
        if (expectActions) QVERIFY(entryTexts(rackMenu).contains(QStringLiteral("Isolate rack r01…")));

        auto* jobsPage = qobject_cast<ui::JobsPage*>(window.page(ui::PageId::Jobs));
        QVERIFY(window.navigate({ui::PageId::Jobs, {}}));
        QMenu jobMenu;
        jobsPage->table()->populateMenu(jobMenu, jobsPage->table()->proxy()->index(0, 0));
        QCOMPARE(actionEntries(jobMenu) > 0, expectActions);
        QCOMPARE(jobsPage->actionBar()->isVisibleTo(jobsPage), expectActions);

        // The Alerts dock acknowledges the event under the cursor (row 0: the newest alert).
        // (The wall has no docks at all.)
        auto* alerts = window.findChild<ui::IncidentsDock*>();
        QCOMPARE(alerts == nullptr, wall);
        if (alerts) {
            QVERIFY(alerts->alertCount() > 0);
            QMenu alertMenu;
            alerts->populateMenu(alertMenu, 0);
            QCOMPARE(actionEntries(alertMenu) > 0, expectActions);
            if (expectActions)
                QVERIFY2(entryTexts(alertMenu).join(u',').contains(QStringLiteral("Acknowledge event")),
                         qPrintable(entryTexts(alertMenu).join(", ")));
        }

        // A menu action opens the dialog for that target, on this operator's client.
        if (expectActions) {
            QAction* drain = nullptr;
            for (QAction* action : nodeMenu.actions())
                drain = action->text() == QStringLiteral("Drain node r01-n01…") ? action : drain;
            drain->trigger();
            auto* dialog = window.findChild<ActionDialog*>();
            QVERIFY(dialog);
            QCOMPARE(dialog->request().node_name(), "r01-n01");
            dialog->reject();
        }
    }
};

QTEST_MAIN(TestActionDialog)
#include "tst_actiondialog.moc"
