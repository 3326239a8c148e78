// Break/fix through the trays' BMCs end to end: the operations engine drains a tray of a ticking
// twin, then the Redfish back end resets it through the twin's own BMCs (server/exporters TrayBmcs
// served over HTTP by the RedfishServer of --serve-redfish), whose Reset runs the twin's modelled
// power cycle; the operation ends with the BMC's Task Completed and PowerState On, backend
// "redfish"; --bmc-url's {bmc} takes each tray's BMC from the fleet file's bmcs=. Wrong credentials end FAILED with the
// BMC's words, nothing POSTed; the twin's BMC tree has the layout a client reads; and bad --repair-backend / --bmc-*
// settings are start-up errors.

#include "ControlPlane.h"
#include "ControlTestFleet.h"
#include "RedfishRepairBackend.h"
#include "RedfishServer.h"
#include "TickingTwin.h"

#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <memory>

using namespace twintest;
namespace control = watchfloor::server::control;
namespace exporters = watchfloor::server::exporters;
namespace repair = watchfloor::server::repair;
namespace v1 = watchfloor::v1;

namespace {

const control::Caller kOperator{"alice", v1::ROLE_OPERATOR, false, "ipv4:127.0.0.1:1"};
const repair::BmcCredentials kBmcAccount{"root", "0penBmc"};

// The twin, its engine, and its trays' BMCs on a free loopback port. As in fleetd, the engine
// ticks on its own thread (ControlLoop), never the twin's: a BMC's reset waits for the twin's tick.
struct TwinWithBmcs : TickingTwin {
    watchfloor::server::service::FleetStateStore store;
    std::unique_ptr<exporters::RedfishServer> redfish;
    std::atomic<bool> running{false};
    std::thread twinThread, controlThread;

    TwinWithBmcs() : TickingTwin(SimConfig{}), store(twin->topology()) {
        std::string error;
        redfish = exporters::RedfishServer::start(
            store, watchfloor::server::redfish::CoolingMap(twin->topology(), nullptr), "127.0.0.1:0", &error,
            {adapter.get(), kBmcAccount.user, kBmcAccount.password});
        if (!redfish) qFatal("redfish: %s", error.c_str());
    }
    ~TwinWithBmcs() {
        running = false;
        if (twinThread.joinable()) twinThread.join();
        if (controlThread.joinable()) controlThread.join();
    }

    void start() {
        running = true;
        twinThread = std::thread([this] {
            FleetChanges changes;
            while (running) {
                changes.clear();
                twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
        controlThread = std::thread([this] {
            while (running) {
                engine->tick();
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        });
    }

    control::BmcDirectory bmcs(repair::BmcCredentials credentials = kBmcAccount) const {
        control::BmcDirectory directory;
        directory.urlTemplate = redfish->url();  // one service for every tray: the system id tells them apart
        directory.systemTemplate = "{node}";
        directory.credentials = std::move(credentials);
        directory.timeout = std::chrono::seconds(5);
        return directory;
    }

    // Executes the step (waiting for the drain) and returns the finished operation.
    v1::Operation runStep(v1::ActionType type, const std::string& tray, const std::string& requestId) {
        v1::ActionRequest request;
        request.set_request_id(requestId);
        request.set_type(type);
        request.set_node_name(tray);
        request.set_reason("Xid 79 on GPU 2");
        request.set_wait_for_drain(true);
        const auto executed = engine->execute(kOperator, request);
        if (!executed.status.ok()) qFatal("execute: %s", executed.status.error_message().c_str());
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        v1::Operation op;
        do {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            op = engine->get(executed.operation.id(), {}).operation;
        } while ((op.state() == v1::OPERATION_STATE_PENDING || op.state() == v1::OPERATION_STATE_RUNNING) &&
                 std::chrono::steady_clock::now() < deadline);
        return op;
    }
};

std::string writeSecret(const QTemporaryDir& dir, const char* name, const std::string& text, mode_t mode) {
    const std::string path = dir.filePath(name).toStdString();
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
}

}  // namespace

class TestControlRedfishRepairs : public QObject {
    Q_OBJECT

private slots:
    void aPowerCycleGoesThroughTheTraysBmcAndEndsWithPowerOn() {
        TwinWithBmcs h;
        control::RedfishRepairBackend backend(h.bmcs(), repair::RedfishResetSettings{});
        h.engine->setRepairBackend(&backend);
        h.start();
        const v1::Operation op = h.runStep(v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n04", "pc-1");
        QVERIFY2(op.state() == v1::OPERATION_STATE_SUCCEEDED, op.DebugString().c_str());
        QCOMPARE(op.repair().backend(), std::string("redfish"));
        QCOMPARE(op.repair().power_state(), std::string("On"));
        QVERIFY(op.repair().succeeded());
        QVERIFY2(op.repair().handle().starts_with("PowerCycle posted@"), op.repair().handle().c_str());
        QVERIFY2(op.repair().handle().find(" task /redfish/v1/TaskService/Tasks/") != std::string::npos,
                 op.repair().handle().c_str());

        // The BMC's own record: one Task, Completed, for this tray.
        repair::BmcSession session({h.redfish->url(), kBmcAccount, {}, std::chrono::seconds(5)});
        const repair::BmcAnswer tasks = session.get("/redfish/v1/TaskService/Tasks");
        QCOMPARE(repair::readMembers(tasks.body).size(), std::size_t(1));
        const repair::BmcAnswer task = session.get(repair::readMembers(tasks.body).front());
        const repair::TaskReading reading = repair::readTask(task.body);
        QCOMPARE(reading.state, std::string("Completed"));
        QVERIFY2(task.body.find("r01-n04") != std::string::npos, task.body.c_str());
    }

    void theFleetFilesBmcNamesAreWhereTheResetGoes() {
        // --bmc-url http://{bmc}:PORT with each tray's bmcs= entry: the loopback address the twin's
        // BMCs answer on for r01-n05, a name that resolves nowhere for every other tray.
        TwinWithBmcs h;
        control::BmcDirectory directory = h.bmcs();
        const std::string url = h.redfish->url();
        const std::string port = url.substr(url.rfind(':'));
        directory.urlTemplate = "http://{bmc}" + port;
        directory.bmcOf = [](const std::string& node) {
            return node == "r01-n05" ? std::string("127.0.0.1") : node + "-bmc.invalid";
        };
        QCOMPARE(directory.url("r01-n05"), "http://127.0.0.1" + port);
        QCOMPARE(directory.url("r02-n01"), "http://r02-n01-bmc.invalid" + port);
        control::RedfishRepairBackend backend(directory, repair::RedfishResetSettings{});
        h.engine->setRepairBackend(&backend);
        h.start();
        const v1::Operation done = h.runStep(v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n05", "pc-bmc-1");
        QVERIFY2(done.state() == v1::OPERATION_STATE_SUCCEEDED, done.DebugString().c_str());
        QCOMPARE(done.repair().power_state(), std::string("On"));
        const v1::Operation unreachable = h.runStep(v1::ACTION_TYPE_POWER_CYCLE_NODE, "r01-n06", "pc-bmc-2");
        QVERIFY2(unreachable.state() == v1::OPERATION_STATE_FAILED, unreachable.DebugString().c_str());
        QVERIFY2(unreachable.DebugString().find("r01-n06-bmc.invalid") != std::string::npos,
                 unreachable.DebugString().c_str());
    }

    void wrongCredentialsEndFailedInTheBmcsWords() {
        TwinWithBmcs h;
        control::RedfishRepairBackend backend(h.bmcs({"root", "wrong"}), repair::RedfishResetSettings{});
        h.engine->setRepairBackend(&backend);
        h.start();
        const v1::Operation op = h.runStep(v1::ACTION_TYPE_REBOOT_NODE, "r01-n05", "rb-1");
        QVERIFY2(op.state() == v1::OPERATION_STATE_FAILED, op.DebugString().c_str());
        QCOMPARE(op.repair().backend(), std::string("redfish"));
        QVERIFY2(op.error().find("refused the credentials of user 'root' (HTTP 401: There is no valid session") !=
                     std::string::npos,
                 op.error().c_str());
        repair::BmcSession session({h.redfish->url(), kBmcAccount, {}, std::chrono::seconds(5)});
        QVERIFY(repair::readMembers(session.get("/redfish/v1/TaskService/Tasks").body).empty());
    }

    void theTwinsBmcsHaveTheLayoutAClientReads() {
        TwinWithBmcs h;
        h.start();
        repair::BmcSession session({h.redfish->url(), kBmcAccount, {}, std::chrono::seconds(5)});
        const auto systems = repair::readMembers(session.get("/redfish/v1/Systems").body);
        QCOMPARE(systems.size(), std::size_t(h.twin->topology().nodes_size()));
        const repair::BmcAnswer system = session.get("/redfish/v1/Systems/r01-n01");
        const repair::ResetAction reset = repair::readResetAction(system.body);
        QVERIFY2(reset.error.empty(), reset.error.c_str());
        QCOMPARE(reset.powerState, std::string("On"));
        QCOMPARE(reset.target, std::string("/redfish/v1/Systems/r01-n01/Actions/ComputerSystem.Reset"));
        std::string error;
        QCOMPARE(repair::readActionInfo(session.get(reset.actionInfo).body, &error),
                 (std::vector<std::string>{"GracefulRestart", "ForceRestart", "PowerCycle"}));
        QCOMPARE(session.get("/redfish/v1/Chassis/r01-n01").status, 200);
        QVERIFY(session.get("/redfish/v1/Chassis").body.find("/redfish/v1/Chassis/r01-n01") != std::string::npos);
        QCOMPARE(session.get("/redfish/v1/TaskService").status, 200);
        QVERIFY(session.get("/redfish/v1").body.find("\"Systems\"") != std::string::npos);

        // A type the twin does not run: the Base registry's answer, no task.
        const repair::BmcAnswer off = session.post(reset.target, "{\"ResetType\":\"ForceOff\"}");
        QCOMPARE(off.status, 400);
        QVERIFY(off.body.find("ActionParameterValueNotInList") != std::string::npos);
        // No credentials: 401, except the service root (DSP0266 serves it to anyone).
        repair::BmcSession stranger({h.redfish->url(), {}, {}, std::chrono::seconds(5)});
        QCOMPARE(stranger.get("/redfish/v1/Systems/r01-n01").status, 401);
        QCOMPARE(stranger.post(reset.target, "{\"ResetType\":\"PowerCycle\"}").status, 401);
        QCOMPARE(stranger.get("/redfish/v1").status, 200);
    }

    void badBmcSettingsAreStartUpErrors() {
        QTemporaryDir dir;
        control_test::TestFleet fleet;
        const std::string audit = dir.filePath("audit.jsonl").toStdString();
        control_test::RecordingActuator actuator(audit);
        control::ControlOptions options;
        options.tokensFile = writeSecret(dir, "tokens", control_test::kTestTokens, 0600);
        options.auditLogFile = audit;
        const auto create = [&](const control::ControlOptions& o) {
            return control::ControlPlane::create(o, {fleet, &actuator, nullptr, {}, nullptr}).error;
        };
        std::string problem;
        QVERIFY(!control::parseRepairBackend("ipmi", &options, &problem));
        QVERIFY2(problem.find("expected slurm, redfish or slurm+redfish") != std::string::npos, problem.c_str());

        QVERIFY(control::parseRepairBackend("redfish", &options, &problem));
        QVERIFY2(create(options).find("needs --bmc-url TEMPLATE") != std::string::npos, create(options).c_str());
        options.bmcs.urlTemplate = "https://{tray}-bmc";
        QVERIFY2(create(options).find("unknown placeholder") != std::string::npos, create(options).c_str());
        options.bmcs.urlTemplate = "https://{host}-bmc.example";
        QVERIFY2(create(options).find("needs --bmc-credentials FILE") != std::string::npos, create(options).c_str());
        options.bmcs.credentialsFile = writeSecret(dir, "bmc", "root:0penBmc\n", 0644);
        QVERIFY2(create(options).find("(mode 0644); run: chmod 600") != std::string::npos, create(options).c_str());
        options.bmcs.credentialsFile = dir.filePath("missing").toStdString();
        QVERIFY2(create(options).find("cannot read BMC credentials file") != std::string::npos,
                 create(options).c_str());
        options.bmcs.credentialsFile = writeSecret(dir, "bmc-ok", "root:0penBmc\n", 0600);
        QCOMPARE(create(options), std::string());
        // {bmc} needs every tray's bmcs= from the fleet file; the racks without one are named.
        options.bmcs.urlTemplate = "https://{bmc}";
        auto names = std::make_shared<std::map<std::string, std::string>>();
        for (const char* tray : {"r01-n01", "r01-n02", "r02-n01", "r03-n01"}) (*names)[tray] = "";
        (*names)["r01-n01"] = "10.9.1.11";
        (*names)["r01-n02"] = "10.9.1.12";
        options.bmcs.names = names;
        QVERIFY2(create(options).find("--bmc-url uses {bmc}, but the fleet file gives no bmcs= for racks r02, r03") !=
                     std::string::npos,
                 create(options).c_str());
        (*names)["r02-n01"] = "10.9.2.11";
        (*names)["r03-n01"] = "10.9.3.11";
        QCOMPARE(create(options), std::string());
        options.bmcs.urlTemplate = "https://{host}-bmc.example";

        QVERIFY(control::parseRepairBackend("slurm+redfish", &options, &problem));
        QVERIFY2(create(options).find("needs --scheduler slurm") != std::string::npos, create(options).c_str());
        options.repairs = control::ControlOptions::Repairs::Default;
        QVERIFY2(create(options).find("are for --repair-backend redfish") != std::string::npos,
                 create(options).c_str());
    }
};

QTEST_GUILESS_MAIN(TestControlRedfishRepairs)
#include "tst_control_redfish_repairs.moc"
