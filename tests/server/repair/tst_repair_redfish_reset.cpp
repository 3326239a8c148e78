// A tray reset through its BMC's Redfish ComputerSystem.Reset (server/repair RedfishReset) against
// a small BMC in the test, laid out as OpenBMC's bmcweb and the GB200 BMCs lay theirs out: the
// reset types inline or behind @Redfish.ActionInfo; 200, 204 and 202 + Task answers; refused
// credentials, a 500, a type the BMC does not offer, a closed port, a Task that never ends or ends
// in Exception; and a client started afresh mid-task that follows the handle without a second POST.

#include "FakeBmc.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>

using namespace watchfloor::server::repair;

using namespace redfish_reset_test;

class TestRedfishReset : public QObject {
    Q_OBJECT

private slots:
    void theResetTypeIsChosenFromWhatTheBmcAllows() {
        const std::vector<std::string> openbmc{"On",           "ForceOff",  "GracefulShutdown", "GracefulRestart",
                                               "ForceRestart", "PowerCycle"};
        QCOMPARE(chooseResetType(ResetKind::Reboot, openbmc, false).resetType, std::string("GracefulRestart"));
        QCOMPARE(chooseResetType(ResetKind::PowerCycle, openbmc, false).resetType, std::string("PowerCycle"));
        const std::vector<std::string> forceOnly{"On", "ForceOff", "ForceRestart"};
        QVERIFY(chooseResetType(ResetKind::Reboot, forceOnly, false).resetType.empty());
        QCOMPARE(chooseResetType(ResetKind::Reboot, forceOnly, true).resetType, std::string("ForceRestart"));
        const ResetChoice noCycle = chooseResetType(ResetKind::PowerCycle, forceOnly, true);
        QVERIFY(noCycle.resetType.empty());
        QVERIFY2(noCycle.refusal.find("On, ForceOff, ForceRestart") != std::string::npos, noCycle.refusal.c_str());
    }

    void decodersReadTheSchemasLayouts() {
        const ResetAction action = readResetAction(
            "{\"PowerState\":\"PoweringOn\",\"Actions\":{\"#ComputerSystem.Reset\":{\"target\":\"/"
            "t\",\"@Redfish.ActionInfo\":\"/i\"}}}");
        QVERIFY(action.error.empty());
        QCOMPARE(action.target, std::string("/t"));
        QCOMPARE(action.actionInfo, std::string("/i"));
        QCOMPARE(action.powerState, std::string("PoweringOn"));
        QVERIFY(!readResetAction("{\"PowerState\":\"On\",\"Actions\":{}}").error.empty());
        QVERIFY(!readResetAction("<html>").error.empty());
        std::string error;
        QCOMPARE(readActionInfo(
                     "{\"Parameters\":[{\"Name\":\"ResetType\",\"AllowableValues\":[\"On\",\"PowerCycle\"]}]}", &error)
                     .size(),
                 std::size_t(2));
        QVERIFY(readActionInfo("{\"Parameters\":[]}", &error).empty() && !error.empty());
        const TaskReading task = readTask(
            "{\"TaskState\":\"Exception\",\"TaskStatus\":\"Critical\",\"PercentComplete\":40,\"Messages\":[{"
            "\"Message\":\"a.\"},{\"Message\":\"b.\"}]}");
        QVERIFY(task.isTask);
        QCOMPARE(task.messages, std::string("a. b."));
        QCOMPARE(task.percent, 40);
        QVERIFY(!readTask("{\"error\":{}}").isTask);
    }

    void aRebootWithInlineValuesAnswered200EndsWhenPowerIsBack() {
        FakeBmc bmc;
        QVERIFY(bmc.start());
        RedfishReset reset(endpoint(bmc.url()), quick());
        const ResetProgress started = reset.start(ResetKind::Reboot, "r01-n04");
        QVERIFY2(!started.finished && !started.handle.empty(), started.message.c_str());
        QCOMPARE(started.resetType, std::string("GracefulRestart"));
        QCOMPARE(bmc.lastBody(), std::string("{\"ResetType\":\"GracefulRestart\"}"));
        const ResetProgress done = follow(reset, started.handle);
        QVERIFY2(done.finished && done.succeeded, done.message.c_str());
        QCOMPARE(done.powerState, std::string("On"));
        QVERIFY2(done.message.find("On again") != std::string::npos, done.message.c_str());
        QCOMPARE(bmc.posts(), 1);
    }

    void aPowerCycleThroughActionInfoAnswered204() {
        FakeBmc bmc;
        bmc.viaActionInfo = true;
        bmc.answer = FakeBmc::Answer::NoContent204;
        QVERIFY(bmc.start());
        RedfishResetSettings settings = quick();
        settings.systemId = "system";
        RedfishReset reset(endpoint(bmc.url()), settings);
        const ResetProgress started = reset.start(ResetKind::PowerCycle, "r01-n04");
        QVERIFY2(!started.finished, started.message.c_str());
        QCOMPARE(started.resetType, std::string("PowerCycle"));
        const ResetProgress done = follow(reset, started.handle);
        QVERIFY2(done.finished && done.succeeded, done.message.c_str());
    }

    void a202IsFollowedThroughItsTask() {
        FakeBmc bmc;
        bmc.answer = FakeBmc::Answer::Task202;
        bmc.offReads = 0;  // a fast cycle: the BMC already reads On when its task completes
        QVERIFY(bmc.start());
        RedfishReset reset(endpoint(bmc.url()), quick());
        const ResetProgress started = reset.start(ResetKind::PowerCycle, "r01-n04");
        QVERIFY2(!started.finished, started.message.c_str());
        QVERIFY2(started.handle.find("task /redfish/v1/TaskService/Tasks/0") != std::string::npos,
                 started.handle.c_str());
        const ResetProgress running = reset.poll(started.handle);
        QVERIFY(!running.finished);
        QVERIFY2(running.message.find("Running") != std::string::npos, running.message.c_str());
        const ResetProgress done = follow(reset, started.handle);
        QVERIFY2(done.finished && done.succeeded, done.message.c_str());
        QCOMPARE(done.powerState, std::string("On"));
        QCOMPARE(bmc.posts(), 1);
    }

    void refusedCredentialsAreNamedWithTheBmcsWords() {
        FakeBmc bmc;
        QVERIFY(bmc.start());
        RedfishReset reset(endpoint(bmc.url(), "wrong"), quick());
        const ResetProgress refused = reset.start(ResetKind::PowerCycle, "r01-n04");
        QVERIFY(refused.finished && !refused.succeeded);
        QVERIFY2(refused.message.find("refused the credentials of user 'root'") != std::string::npos,
                 refused.message.c_str());
        QVERIFY2(refused.message.find("HTTP 401") != std::string::npos, refused.message.c_str());
        QVERIFY2(refused.message.find("insufficient privileges") != std::string::npos, refused.message.c_str());
        QCOMPARE(bmc.posts(), 0);
    }

    void a500QuotesTheBmc() {
        FakeBmc bmc;
        bmc.answer = FakeBmc::Answer::Error500;
        QVERIFY(bmc.start());
        RedfishReset reset(endpoint(bmc.url()), quick());
        const ResetProgress failed = reset.start(ResetKind::Reboot, "r01-n04");
        QVERIFY(failed.finished && !failed.succeeded);
        QVERIFY2(
            failed.message.find("HTTP 500: The request failed due to an internal service error.") != std::string::npos,
            failed.message.c_str());
        QVERIFY(failed.handle.empty());
    }

    void aTypeTheBmcDoesNotOfferIsRefusedBeforeAnyPost() {
        FakeBmc bmc;
        bmc.allowed = {"On", "ForceOff", "GracefulShutdown", "GracefulRestart"};
        bmc.viaActionInfo = true;
        QVERIFY(bmc.start());
        RedfishReset reset(endpoint(bmc.url()), quick());
        const ResetProgress refused = reset.start(ResetKind::PowerCycle, "r01-n04");
        QVERIFY(refused.finished && !refused.succeeded);
        QVERIFY2(refused.message.find("does not offer PowerCycle (it allows On, ForceOff, GracefulShutdown, "
                                      "GracefulRestart)") != std::string::npos,
                 refused.message.c_str());
        QCOMPARE(bmc.posts(), 0);
    }

    void aClosedPortIsUnreachable() {
        std::string url;
        {
            FakeBmc gone;
            QVERIFY(gone.start());
            url = gone.url();
        }
        RedfishReset reset(endpoint(url), quick());
        const ResetProgress failed = reset.start(ResetKind::Reboot, "r01-n04");
        QVERIFY(failed.finished && !failed.succeeded);
        QVERIFY2(failed.message.find("unreachable: connection refused") != std::string::npos, failed.message.c_str());
    }

    void aTaskThatNeverEndsTimesOut() {
        FakeBmc bmc;
        bmc.answer = FakeBmc::Answer::Task202;
        bmc.taskEnd = FakeBmc::TaskEnd::Never;
        QVERIFY(bmc.start());
        RedfishResetSettings settings = quick();
        settings.taskTimeout = std::chrono::seconds(1);
        RedfishReset reset(endpoint(bmc.url()), settings);
        const ResetProgress started = reset.start(ResetKind::PowerCycle, "r01-n04");
        QVERIFY(!started.finished);
        ResetProgress done;
        QElapsedTimer clock;
        clock.start();
        while (!(done = reset.poll(started.handle)).finished && clock.elapsed() < 5000)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        QVERIFY2(done.finished && !done.succeeded, done.message.c_str());
        QVERIFY2(done.message.find("did not complete within 1 s (last TaskState Running)") != std::string::npos,
                 done.message.c_str());
        QCOMPARE(bmc.posts(), 1);
    }

    void aTaskExceptionFailsWithItsMessages() {
        FakeBmc bmc;
        bmc.answer = FakeBmc::Answer::Task202;
        bmc.taskEnd = FakeBmc::TaskEnd::Exception;
        QVERIFY(bmc.start());
        RedfishReset reset(endpoint(bmc.url()), quick());
        const ResetProgress started = reset.start(ResetKind::PowerCycle, "r01-n04");
        const ResetProgress done = follow(reset, started.handle);
        QVERIFY2(done.finished && !done.succeeded, done.message.c_str());
        QVERIFY2(done.message.find("ended Exception (Critical)") != std::string::npos, done.message.c_str());
        QVERIFY2(done.message.find("Host power sequencer fault.") != std::string::npos, done.message.c_str());
    }

    void aClientStartedAfreshFollowsTheHandleWithoutASecondPost() {
        FakeBmc bmc;
        bmc.answer = FakeBmc::Answer::Task202;
        bmc.taskPollsToEnd = 3;
        QVERIFY(bmc.start());
        std::string handle;
        {
            RedfishReset before(endpoint(bmc.url()), quick());
            const ResetProgress started = before.start(ResetKind::PowerCycle, "r01-n04");
            QVERIFY(!started.finished);
            QVERIFY(!before.poll(started.handle).finished);
            handle = started.handle;
        }  // fleetd stops here
        RedfishReset after(endpoint(bmc.url()), quick());
        const ResetProgress done = follow(after, handle);
        QVERIFY2(done.finished && done.succeeded, done.message.c_str());
        QCOMPARE(bmc.posts(), 1);
        QVERIFY(after.poll("reboot:r01-n04").finished);  // another back end's handle is not followed
    }

    void theCredentialsFileIsTheOwnersAlone() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("bmc.credentials").toStdString();
        std::ofstream(path) << "root:pa:ss\n";
        ::chmod(path.c_str(), 0640);
        std::string error;
        QVERIFY(!readBmcCredentials(path, &error));
        QVERIFY2(error.find("mode 0640") != std::string::npos && error.find("chmod 600") != std::string::npos,
                 error.c_str());
        ::chmod(path.c_str(), 0600);
        const auto read = readBmcCredentials(path, &error);
        QVERIFY(read);
        QCOMPARE(read->user, std::string("root"));
        QCOMPARE(read->password, std::string("pa:ss"));
        std::ofstream(path) << "no-colon\n";
        QVERIFY(!readBmcCredentials(path, &error));
        QVERIFY(!readBmcCredentials(dir.filePath("missing").toStdString(), &error));
        QVERIFY2(error.find("cannot read") != std::string::npos, error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRedfishReset)
#include "tst_repair_redfish_reset.moc"
