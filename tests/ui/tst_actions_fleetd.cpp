// End to end against a real fleetd (FLEETD_BIN, digital twin, --tokens): an operator drains an
// idle tray from the Rack page's context menu through the action dialog; the operation appears
// in the Operations dock and succeeds, the twin's node state comes back through the telemetry
// stream as drained (the page now offers Resume), and the Audit page shows the decision. Adding
// a note to an incident waits for the note its row in client/ActionWords requires, and is named
// the same in the dialog, the Operations dock and its tooltip.

#include "FleetdProcess.h"  // testbeds/
#include "OperatorConsole.h"
#include "SanitizerBuild.h"

#include "ActionBar.h"
#include "ActionDialog.h"
#include "AuditPage.h"
#include "EntityTableView.h"
#include "MainWindow.h"
#include "OperationsDock.h"
#include "RackPage.h"

#include "AuditModel.h"
#include "ControlClient.h"
#include "EndpointConnection.h"
#include "FleetStore.h"

#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>

using namespace watchfloor;
namespace v1 = watchfloor::v1;

class TestActionsFleetd : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testing::FleetdProcess::binary().isEmpty() || !QFile::exists(testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
    }

    void drainFromTheRackPageReachesDrained() {
        QTemporaryDir dir;
        QFile tokens(dir.filePath(QStringLiteral("tokens")));
        QVERIFY(tokens.open(QIODevice::WriteOnly));
        tokens.write("token operator-token-e2e-000000001 principal=alice role=operator\n");
        tokens.close();
        tokens.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        testing::FleetdProcess fleetd;
        QVERIFY2(fleetd.start({QStringLiteral("--seed"), QStringLiteral("11"), QStringLiteral("--speed"),
                               QStringLiteral("60"), QStringLiteral("--tokens"), tokens.fileName(),
                               QStringLiteral("--audit-log"), dir.filePath(QStringLiteral("audit.jsonl"))}),
                 qPrintable(fleetd.errorString()));
        testing::OperatorConsole console(QString::fromStdString(fleetd.address()),
                                         QStringLiteral("operator-token-e2e-000000001"));
        client::FleetStore& store = console.store;
        client::ControlClient& control = console.control;
        ui::MainWindow& window = console.window;
        console.start();
        QTRY_VERIFY_WITH_TIMEOUT(console.ready(), 30000);

        // An idle tray: its drain needs no job to leave first.
        client::EntityId idle;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (int row = 0; row < store.rackCount() && !idle.isValid(); ++row) {
                    for (client::EntityId node : store.children(store.rackAt(row))) {
                        if (store.kind(node) == v1::ENTITY_KIND_NODE &&
                            store.status(node).nodeState == v1::NODE_STATE_IDLE) {
                            idle = node;
                            break;
                        }
                    }
                }
                return idle.isValid();
            }(),
            30000);
        const QString node = store.name(idle);
        QVERIFY(window.navigate({ui::PageId::Rack, node}));
        auto* rack = qobject_cast<ui::RackPage*>(window.currentPage());
        int nodeRow = -1;
        for (int row = 0; row < rack->nodesTable()->proxy()->rowCount(); ++row)
            nodeRow = rack->nodesTable()->entityAtRow(row) == idle ? row : nodeRow;
        QVERIFY(nodeRow >= 0);
        QMenu menu;
        rack->nodesTable()->populateMenu(menu, rack->nodesTable()->proxy()->index(nodeRow, 0));
        QAction* drain = nullptr;
        for (QAction* action : menu.actions())
            drain = action->text() == QStringLiteral("Drain node %1…").arg(node) ? action : drain;
        QVERIFY2(drain, qPrintable(node));
        drain->trigger();

        auto* dialog = window.findChild<ui::ActionDialog*>();
        QVERIFY(dialog);
        QTRY_COMPARE_WITH_TIMEOUT(dialog->phase(), ui::ActionDialog::Phase::Ready, 10000);
        QCOMPARE(dialog->preview()->gpus_lost(), 4u);
        dialog->reasonEdit()->setText(QStringLiteral("e2e: fan noise"));
        dialog->confirmButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(dialog->phase(), ui::ActionDialog::Phase::Following, 15000);
        const QString operationId = dialog->operationId();

        client::OperationsModel* operations = window.operationsDock()->model();
        auto stateInDock = [&] {
            const int row = operations->rowOf(&control, operationId);
            return row >= 0 ? operations->operationAt(row).state() : v1::OPERATION_STATE_UNSPECIFIED;
        };
        QTRY_COMPARE_WITH_TIMEOUT(stateInDock(), v1::OPERATION_STATE_SUCCEEDED, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statusText().contains(QStringLiteral("Succeeded")), 5000);
        // The twin's view of the tray arrives over the telemetry stream.
        QTRY_COMPARE_WITH_TIMEOUT(store.status(idle).nodeState, v1::NODE_STATE_DRAINED, 30000);
        QTRY_VERIFY2_WITH_TIMEOUT(
            rack->actionBar()->buttonLabels().contains(QStringLiteral("Resume node %1…").arg(node)),
            qPrintable(QStringLiteral("action bar: [%1], selected: %2, can act: %3")
                           .arg(rack->actionBar()->buttonLabels().join(QStringLiteral(", ")),
                                store.name(rack->nodesTable()->entityAtRow(
                                    rack->nodesTable()->selectionModel()->currentIndex().row())))
                           .arg(control.canAct())),
            10000 * watchfloor::testing::kSanitizerSlowdown);

        QVERIFY(window.navigate({ui::PageId::Audit, {}}));
        auto* audit = qobject_cast<ui::AuditPage*>(window.currentPage());
        audit->setFilters(QStringLiteral("alice"), QStringLiteral("DRAIN_NODE"), QStringLiteral("allow"));
        QTRY_VERIFY_WITH_TIMEOUT(audit->visibleEntryCount() >= 1, 15000);
        dialog->close();
    }

    void aNoteToAnIncidentWaitsForTheNote() {
        QTemporaryDir dir;
        const QString tokens = testing::writePrivateFile(dir, "tokens",
                                                         "token operator-token-e2e-000000001 principal=alice "
                                                         "role=operator\n");
        const QString scenario = testing::writePrivateFile(dir, "fault.scn", "at 1m sensor-fault rack=r03 for=30m\n");
        testing::FleetdProcess fleetd;
        QVERIFY2(fleetd.start({QStringLiteral("--seed"), QStringLiteral("11"), QStringLiteral("--speed"),
                               QStringLiteral("60"), QStringLiteral("--scenario"), scenario, QStringLiteral("--tokens"),
                               tokens, QStringLiteral("--audit-log"), dir.filePath(QStringLiteral("audit.jsonl"))}),
                 qPrintable(fleetd.errorString()));
        testing::OperatorConsole console(QString::fromStdString(fleetd.address()),
                                         QStringLiteral("operator-token-e2e-000000001"));
        console.start();
        QTRY_VERIFY_WITH_TIMEOUT(console.ready(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!console.store.endpointFleet(0).incidents().empty(), 30000);
        const std::uint64_t incident = console.store.endpointFleet(0).incidents().begin()->first;

        v1::ActionRequest note;
        note.set_type(v1::ACTION_TYPE_NOTE_INCIDENT);
        note.set_incident_id(incident);
        ui::ActionDialog dialog(console.control, note);
        dialog.show();
        QCOMPARE(dialog.windowTitle(), QStringLiteral("Add note to incident %1 — Watchfloor").arg(incident));
        QCOMPARE(dialog.confirmButton()->text(), QStringLiteral("Add note to incident %1").arg(incident));
        QVERIFY(dialog.noteEdit());
        QCOMPARE(dialog.noteEdit()->placeholderText(),
                 QStringLiteral("The note for the incident's timeline (required)"));
        QTRY_COMPARE_WITH_TIMEOUT(dialog.phase(), ui::ActionDialog::Phase::Ready, 10000);
        dialog.reasonEdit()->setText(QStringLiteral("e2e: facilities called"));
        QVERIFY(!dialog.confirmButton()->isEnabled());
        QCOMPARE(dialog.confirmButton()->toolTip(), QStringLiteral("A note is required"));
        dialog.noteEdit()->setText(QStringLiteral("   "));
        QVERIFY(!dialog.confirmButton()->isEnabled());
        dialog.noteEdit()->setText(QStringLiteral("facilities on site at 06:00"));
        QVERIFY(dialog.confirmButton()->isEnabled());
        dialog.confirmButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QStringLiteral("Succeeded")), 15000);

        client::OperationsModel* operations = console.window.operationsDock()->model();
        QTRY_VERIFY_WITH_TIMEOUT(operations->rowOf(&console.control, dialog.operationId()) >= 0, 10000);
        const int row = operations->rowOf(&console.control, dialog.operationId());
        QCOMPARE(operations->index(row, client::OperationsModel::Action).data().toString(),
                 QStringLiteral("add note to incident"));
        QCOMPARE(operations->index(row, client::OperationsModel::Target).data().toString(),
                 QStringLiteral("incident %1").arg(incident));
        QVERIFY(operations->index(row, client::OperationsModel::Action)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("add note to incident %1 — ").arg(incident)));
    }
};

QTEST_MAIN(TestActionsFleetd)
#include "tst_actions_fleetd.moc"
