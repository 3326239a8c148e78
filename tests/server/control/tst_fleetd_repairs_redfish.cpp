// Break/fix through the trays' BMCs, fleetd to fleetd: one fleetd serves its twin's trays' BMCs
// (--serve-redfish, Basic auth from --serve-redfish-credentials), another runs operator actions with
// --repair-backend redfish pointed at them. A power cycle there drains the tray, POSTs
// ComputerSystem.Reset (PowerCycle) to the tray's BMC, follows its 202's Task to Completed and
// reads PowerState On back: SUCCEEDED, backend "redfish", power_state "On". With the wrong password
// the BMC's 401 ends the step FAILED in the BMC's own words and no reset is taken. Killed with
// SIGKILL while the BMC's Task runs, the acting fleetd follows the recorded Task after its restart
// to SUCCEEDED: one Task on the BMC, one POST.

#include "FleetdControlFixture.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <httplib.h>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;
using watchfloor::testing::kSanitizerSlowdown;

namespace {

QString writeSecret(const QTemporaryDir& dir, const char* name, const char* line) {
    const QString path = dir.filePath(name);
    QFile file(path);
    file.open(QIODevice::WriteOnly);
    file.write(line);
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return path;
}

}  // namespace

class TestFleetdRepairsRedfish : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    FleetdProcess bmcs_;  // the twin whose trays' BMCs answer
    QString bmcUrl_;

    // A fleetd acting through the BMCs with the account in `credentials`.
    bool startSite(FleetdProcess& site, const QString& credentials, const QString& audit) {
        return site.start({"--seed", "11", "--speed", "300", "--tokens", writeTokens(dir_), "--audit-log", audit,
                           "--repair-backend", "redfish", "--bmc-url", bmcUrl_, "--bmc-credentials", credentials,
                           "--bmc-system", "{node}", "--bmc-task-timeout", "30s"});
    }

    // The Tasks the twin's BMCs have taken (one per reset they ran); -1 when the service does not answer.
    int bmcTasks() {
        httplib::Client client(bmcUrl_.toStdString());
        client.set_basic_auth("root", "0penBmc-twin");
        const auto answer = client.Get("/redfish/v1/TaskService/Tasks");
        if (!answer || answer->status != 200) return -1;
        const auto count =
            QRegularExpression("\"Members@odata.count\"\\s*:\\s*(\\d+)").match(QString::fromStdString(answer->body));
        return count.hasMatch() ? count.captured(1).toInt() : -1;
    }

    static v1::ActionRequest powerCycle(const std::string& requestId) {
        auto request = action(v1::ACTION_TYPE_POWER_CYCLE_NODE, requestId, "tray hung after Xid 79");
        request.set_node_name("r01-n07");
        request.set_wait_for_drain(true);
        return request;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QString account = writeSecret(dir_, "bmc-account", "root:0penBmc-twin\n");
        QVERIFY2(bmcs_.start({"--seed", "11", "--speed", "300", "--serve-redfish", "127.0.0.1:0",
                              "--serve-redfish-credentials", account, "--tokens", writeTokens(dir_), "--audit-log",
                              dir_.filePath("bmcs.jsonl")}),
                 qPrintable(bmcs_.errorString()));
        // Two twins stand in for one site: the acting fleetd's for the scheduler, this one's for
        // the hardware. The hardware's trays are drained too, as a site's would be by then (the
        // twin's BMC refuses a reset under a running job, 409, rather than kill it silently).
        ControlConnection hardware(bmcs_.address());
        for (const char* tray : {"r01-n07", "r02-n03"}) {
            auto drain = drainNode(tray, std::string("hw-") + tray, "break/fix test bed");
            std::string why;
            const v1::Operation op = hardware.previewThenExecute(kAlice, drain, nullptr, &why);
            QVERIFY2(!op.id().empty(), why.c_str());
            QVERIFY(hardware.waitFor(
                kAlice, op.id(), [](const v1::Operation& o) { return o.state() == v1::OPERATION_STATE_SUCCEEDED; },
                30s * kSanitizerSlowdown));
        }
        // "redfish listening on 127.0.0.1:PORT | ...": the log line comes once the server accepts.
        QRegularExpressionMatch port;
        for (int i = 0; i < 100 && !port.hasMatch(); ++i) {
            port = QRegularExpression("redfish listening on ([0-9.]+:\\d+)").match(QString::fromUtf8(bmcs_.log()));
            if (!port.hasMatch()) QTest::qWait(50);
        }
        QVERIFY2(port.hasMatch(), bmcs_.log().constData());
        bmcUrl_ = "http://" + port.captured(1);
    }

    void aPowerCycleGoesThroughTheTraysBmc() {
        FleetdProcess site;
        QVERIFY2(startSite(site, dir_.filePath("bmc-account"), dir_.filePath("site.jsonl")),
                 qPrintable(site.errorString()));
        ControlConnection control(site.address());
        std::string why;
        const v1::Operation op = control.previewThenExecute(kAlice, powerCycle("pc-1"), nullptr, &why);
        QVERIFY2(!op.id().empty(), why.c_str());
        const auto done = control.waitFor(kAlice, op.id(), isFinished, 60s * kSanitizerSlowdown);
        QVERIFY(done);
        QVERIFY2(done->state() == v1::OPERATION_STATE_SUCCEEDED, done->DebugString().c_str());
        QCOMPARE(done->repair().backend(), std::string("redfish"));
        QCOMPARE(done->repair().power_state(), std::string("On"));
        QVERIFY(done->repair().succeeded());
        QVERIFY2(done->repair().handle().find("PowerCycle") != std::string::npos, done->repair().handle().c_str());
        QVERIFY2(done->repair().handle().find("task") != std::string::npos, done->repair().handle().c_str());
        QCOMPARE(site.terminate(), 0);
    }

    void wrongCredentialsEndTheStepInTheBmcsWords() {
        FleetdProcess site;
        const QString wrong = writeSecret(dir_, "wrong-account", "root:not-the-password\n");
        QVERIFY2(startSite(site, wrong, dir_.filePath("wrong.jsonl")), qPrintable(site.errorString()));
        ControlConnection control(site.address());
        std::string why;
        const v1::Operation op = control.previewThenExecute(kAlice, powerCycle("pc-2"), nullptr, &why);
        QVERIFY2(!op.id().empty(), why.c_str());
        const auto done = control.waitFor(kAlice, op.id(), isFinished, 60s * kSanitizerSlowdown);
        QVERIFY(done);
        QVERIFY2(done->state() == v1::OPERATION_STATE_FAILED, done->DebugString().c_str());
        QVERIFY2(done->error().find("401") != std::string::npos, done->error().c_str());
        QVERIFY(!done->repair().succeeded());
        QCOMPARE(site.terminate(), 0);
    }

    void aKillNineMidStepIsFollowedNotRepeated() {
        FleetdProcess site;
        QVERIFY2(startSite(site, dir_.filePath("bmc-account"), dir_.filePath("killed.jsonl")),
                 qPrintable(site.errorString()));
        const int tasksBefore = bmcTasks();
        QVERIFY(tasksBefore >= 0);
        auto request = powerCycle("pc-kill");
        request.set_node_name("r02-n03");
        std::string why;
        v1::Operation op = ControlConnection(site.address()).previewThenExecute(kAlice, request, nullptr, &why);
        QVERIFY2(!op.id().empty(), why.c_str());
        // Killed once the BMC took the reset (its Task in the handle) and before the Task ended.
        const auto posted = ControlConnection(site.address())
                                .waitFor(
                                    kAlice, op.id(),
                                    [](const v1::Operation& o) {
                                        return isFinished(o) || o.repair().handle().find("task") != std::string::npos;
                                    },
                                    60s * kSanitizerSlowdown);
        QVERIFY(posted);
        QVERIFY2(!isFinished(*posted), posted->DebugString().c_str());
        site.kill();
        QVERIFY2(site.restart(), qPrintable(site.errorString()));
        ControlConnection control(site.address());
        const auto done = control.waitFor(kAlice, op.id(), isFinished, 60s * kSanitizerSlowdown);
        QVERIFY(done);
        QVERIFY2(done->state() == v1::OPERATION_STATE_SUCCEEDED, done->DebugString().c_str());
        QCOMPARE(done->repair().power_state(), std::string("On"));
        QCOMPARE(bmcTasks(), tasksBefore + 1);  // one reset taken, never a second
        v1::Operation retried;
        request.set_expected_state_version(op.request().expected_state_version());  // the request as first sent
        const grpc::Status retry = control.execute(kAlice, request, &retried);
        QVERIFY2(retry.ok(), retry.error_message().c_str());
        QCOMPARE(retried.id(), op.id());  // the retry is the same operation
        QCOMPARE(bmcTasks(), tasksBefore + 1);
        QCOMPARE(site.terminate(), 0);
    }

    void cleanupTestCase() {
        if (bmcs_.running()) QCOMPARE(bmcs_.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFleetdRepairsRedfish)
#include "tst_fleetd_repairs_redfish.moc"
