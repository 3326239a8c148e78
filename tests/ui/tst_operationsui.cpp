// The Operations dock, the Audit page and acknowledgement marks on the Events page, against
// fleetd's real ControlService in-process: an operation started by another console streams into
// the dock with its progress; two-person approval is offered to the second operator only; the
// audit trail shows the decisions and filters them; a viewer is told why there is no trail.

#include "InProcessControl.h"
#include "PageTestFleet.h"

#include "AuditPage.h"
#include "EventAcknowledgements.h"
#include "EventsPage.h"
#include "OperationsDock.h"

#include "AuditModel.h"
#include "EventListModel.h"
#include "FleetStore.h"

#include <QDialog>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace watchfloor;
namespace v1 = watchfloor::v1;
using client::OperationsModel;

namespace {

v1::ActionRequest drain(const char* node, const char* reason) {
    v1::ActionRequest request;
    request.set_type(v1::ACTION_TYPE_DRAIN_NODE);
    request.set_node_name(node);
    request.set_reason(reason);
    return request;
}

// Runs the request through the client and waits for fleetd's answer.
client::ControlResult<v1::Operation> executeAndWait(client::ControlClient& control, v1::ActionRequest request) {
    std::optional<client::ControlResult<v1::Operation>> answer;
    control.execute(std::move(request), [&](const client::ControlResult<v1::Operation>& result) { answer = result; });
    if (!QTest::qWaitFor([&] { return answer.has_value(); }, 10000)) return {};
    return *answer;
}

int rowOf(const OperationsModel& model, const std::string& operationId) {
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.operationAt(row).id() == operationId) return row;
    }
    return -1;
}

}  // namespace

class TestOperationsUi : public QObject {
    Q_OBJECT
    std::unique_ptr<testing::InProcessControl> m_server;
    std::unique_ptr<client::ControlClient> m_alice;
    std::unique_ptr<client::ControlClient> m_bob;
    std::unique_ptr<client::ControlClient> m_viewer;
    testing::PageTestFleet m_fleet;
    client::FleetStore m_store;

    ui::PageContext contextFor(client::ControlClient* control) {
        ui::PageContext context;
        context.store = &m_store;
        context.controls = {control};
        return context;
    }

private slots:
    void initTestCase() {
        m_server = std::make_unique<testing::InProcessControl>(/*isolateNeedsApproval=*/true);
        QVERIFY(m_server->isUp());
        m_alice = m_server->client(testing::kAliceToken);
        m_bob = m_server->client(testing::kBobToken);
        m_viewer = m_server->client(testing::kViewerToken);
        QTRY_VERIFY_WITH_TIMEOUT(m_alice->canAct() && m_bob->canAct(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_viewer->role(), v1::ROLE_VIEWER, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(m_alice->isWatchLive(), 10000);
        m_store.apply(m_store.addEndpoint(QStringLiteral("synthetic")), m_fleet.snapshot);
        m_store.flushChanges();
    }

    void cleanupTestCase() {
        m_alice.reset();
        m_bob.reset();
        m_viewer.reset();
        m_server.reset();
    }

    void anotherConsolesOperationStreamsIntoTheDock() {
        ui::OperationsDock dock({m_alice.get()}, {QStringLiteral("local")});
        dock.resize(900, 300);
        dock.show();
        m_server->actuator->delay = std::chrono::milliseconds(500);
        std::optional<client::ControlResult<v1::Operation>> answer;
        m_bob->execute(drain("r01-n07", "PSU alarm"),
                       [&](const client::ControlResult<v1::Operation>& r) { answer = r; });

        // Alice's console learns of Bob's operation only through WatchOperations.
        OperationsModel& model = *dock.model();
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() > 0 && model.operationAt(0).request().node_name() == "r01-n07",
                                 10000);
        QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 10000);
        m_server->actuator->delay = std::chrono::milliseconds(0);
        const int row = rowOf(model, answer->value.id());
        QVERIFY(row >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(model.operationAt(rowOf(model, answer->value.id())).state(),
                                  v1::OPERATION_STATE_SUCCEEDED, 10000);
        const QModelIndex progress =
            dock.table()->model()->index(rowOf(model, answer->value.id()), OperationsModel::Progress);
        QCOMPARE(progress.data(OperationsModel::ProgressRatioRole).toDouble(), 1.0);
        const QString principal = dock.table()->model()->index(row, OperationsModel::Principal).data().toString();
        QCOMPARE(principal, QStringLiteral("bob"));
        // The Time column says how long ago.
        QVERIFY(
            dock.table()->model()->index(row, OperationsModel::Time).data().toString().contains(QStringLiteral("ago")));
    }

    void approvalIsOfferedToTheSecondOperatorOnly() {
        v1::ActionRequest isolate;
        isolate.set_type(v1::ACTION_TYPE_ISOLATE_RACK);
        isolate.set_rack_name("r02");
        isolate.set_confirm_rack_name("r02");
        isolate.set_reason("leak under r02");
        const auto requested = executeAndWait(*m_alice, isolate);
        QVERIFY2(requested.ok, qPrintable(requested.message));
        QCOMPARE(requested.value.state(), v1::OPERATION_STATE_AWAITING_APPROVAL);

        ui::OperationsDock aliceDock({m_alice.get()}, {});
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(*aliceDock.model(), requested.value.id()) >= 0, 10000);
        QString why;
        QVERIFY(!aliceDock.canApprove(rowOf(*aliceDock.model(), requested.value.id()), &why));
        QVERIFY2(why.contains(QStringLiteral("self-approval")), qPrintable(why));

        ui::OperationsDock viewerDock({m_viewer.get()}, {});
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(*viewerDock.model(), requested.value.id()) >= 0, 10000);
        QVERIFY(!viewerDock.approveButton()->isVisibleTo(&viewerDock));
        QVERIFY(!viewerDock.canApprove(rowOf(*viewerDock.model(), requested.value.id())));

        ui::OperationsDock bobDock({m_bob.get()}, {});
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(*bobDock.model(), requested.value.id()) >= 0, 10000);
        const int row = rowOf(*bobDock.model(), requested.value.id());
        QVERIFY(bobDock.approveButton()->isVisibleTo(&bobDock));
        QVERIFY(bobDock.canApprove(row));
        QSignalSpy opened(&bobDock, &ui::OperationsDock::approvalDialogOpened);
        bobDock.approveRow(row);
        QCOMPARE(opened.size(), 1);
        auto* dialog = opened.first().first().value<QDialog*>();
        auto* approve = dialog->findChild<QPushButton*>(QStringLiteral("approveConfirmButton"));
        QVERIFY(!approve->isEnabled());  // a reason first
        dialog->findChild<QLineEdit*>(QStringLiteral("approvalReasonEdit"))
            ->setText(QStringLiteral("saw the leak alarm"));
        QVERIFY(approve->isEnabled());
        approve->click();
        QTRY_VERIFY_WITH_TIMEOUT(bobDock.model()->operationAt(rowOf(*bobDock.model(), requested.value.id())).state() !=
                                     v1::OPERATION_STATE_AWAITING_APPROVAL,
                                 10000);
        QCOMPARE(bobDock.model()->operationAt(rowOf(*bobDock.model(), requested.value.id())).approved_by(), "bob");
    }

    void theAuditPageShowsAndFiltersTheTrail() {
        QVERIFY(executeAndWait(*m_alice, drain("r01-n08", "ECC storm")).ok);
        QVERIFY(!executeAndWait(*m_viewer, drain("r01-n09", "curious")).ok);  // denied, audited

        ui::AuditPage page(contextFor(m_alice.get()));
        page.resize(1400, 800);
        page.show();
        page.setActive(true);
        QTRY_VERIFY2_WITH_TIMEOUT(page.visibleEntryCount() > 0, qPrintable(page.model()->lastError()), 10000);
        QVERIFY(page.explanation().isEmpty());
        QVERIFY(page.hasContent());
        client::AuditModel* audit = page.model();
        QCOMPARE(QString::fromStdString(audit->entryAt(0).action()).isEmpty(), false);
        for (int row = 1; row < audit->rowCount(); ++row)
            QVERIFY(audit->entryAt(row - 1).seq() > audit->entryAt(row).seq());  // newest first

        page.setFilters(QStringLiteral("val"), {}, QStringLiteral("deny"));
        QTRY_VERIFY_WITH_TIMEOUT(page.visibleEntryCount() >= 1, 5000);
        for (int row = 0; row < page.table()->model()->rowCount(); ++row) {
            QCOMPARE(page.table()->model()->index(row, client::AuditModel::Principal).data().toString(),
                     QStringLiteral("val"));
            QCOMPARE(page.table()
                         ->model()
                         ->index(row, client::AuditModel::Decision)
                         .data(client::AuditModel::DecisionRole)
                         .toString(),
                     QStringLiteral("deny"));
        }
        page.setFilters(QStringLiteral("alice"), QStringLiteral("DRAIN_NODE"), QStringLiteral("allow"));
        QTRY_VERIFY_WITH_TIMEOUT(page.visibleEntryCount() >= 1, 5000);
        page.setFilters(QStringLiteral("nobody"), {}, {});
        QCOMPARE(page.visibleEntryCount(), 0);
    }

    void aViewerIsToldWhyThereIsNoTrail() {
        ui::AuditPage page(contextFor(m_viewer.get()));
        page.setActive(true);
        QVERIFY(page.explanation().contains(QStringLiteral("operators and admins")));
        QVERIFY(page.explanation().contains(QStringLiteral("val (viewer)")));
        QVERIFY(page.hasContent());
        QCOMPARE(page.model()->rowCount(), 0);
    }

    void acknowledgedEventsAreMarkedWithWhoAndWhen() {
        m_server->fleet.addEvent(3);                      // the synthetic fleet's leak event on r02
        ui::EventsPage page(contextFor(m_viewer.get()));  // a viewer sees acknowledgements too
        v1::ActionRequest ack;
        ack.set_type(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT);
        ack.set_event_id(3);
        ack.set_reason("on it");
        ack.set_note("ticket NOC-1234");
        const auto done = executeAndWait(*m_alice, ack);
        QVERIFY2(done.ok, qPrintable(done.message));
        QTRY_VERIFY_WITH_TIMEOUT(m_viewer->isAcknowledged(3), 10000);
        ui::AcknowledgedEventsProxy* marks = page.acknowledgedEvents();
        int leakRow = -1;
        for (int row = 0; row < marks->rowCount(); ++row) {
            if (marks->index(row, client::EventListModel::Message)
                    .data()
                    .toString()
                    .contains(QStringLiteral("Leak sensor")))
                leakRow = row;
        }
        QVERIFY(leakRow >= 0);
        const QString text = marks->index(leakRow, client::EventListModel::Message).data().toString();
        QVERIFY2(text.contains(QStringLiteral("acknowledged by alice")), qPrintable(text));
        QVERIFY(marks->index(leakRow, client::EventListModel::Message)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("NOC-1234")));
        for (int row = 0; row < marks->rowCount(); ++row) {
            if (row != leakRow)
                QVERIFY(!marks->index(row, client::EventListModel::Message)
                             .data()
                             .toString()
                             .contains(QStringLiteral("acknowledged")));
        }
    }
};

QTEST_MAIN(TestOperationsUi)
#include "tst_operationsui.moc"
