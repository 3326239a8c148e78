// SlurmScheduler: argv handling, timeouts and parsing against fake Slurm programs, then the real
// thing on a loopback cluster (scripts/slurm-loopback) when the Slurm packages are installed.
#include "ControlTestFleet.h"
#include "OperationsEngine.h"
#include "SlurmFleetOverlay.h"
#include "SlurmScheduler.h"
#include "SlurmTestSupport.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <atomic>

using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

Q_DECLARE_METATYPE(v1::NodeState)

namespace {

// A SlurmConfig by its fields (aggregate initialisation would leave nodeNames to a warning).
SlurmConfig slurmConfig(std::string binDir, std::chrono::milliseconds timeout, std::string slurmConf = {}) {
    SlurmConfig config;
    config.slurmConf = std::move(slurmConf);
    config.binDir = std::move(binDir);
    config.commandTimeout = timeout;
    return config;
}

// Writes an executable shell script standing in for a Slurm program.
void writeFakeProgram(const QTemporaryDir& dir, const QString& name, const QByteArray& body) {
    QFile file(dir.filePath(name));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("#!/bin/sh\n" + body);
    file.close();
    ::chmod(dir.filePath(name).toLocal8Bit().constData(), 0755);
}

QStringList recordedArgs(const QTemporaryDir& dir) {
    QFile file(dir.filePath("argv"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    QStringList args;
    for (const QByteArray& arg : file.readAll().split('\0'))
        if (!arg.isEmpty()) args << QString::fromUtf8(arg);
    return args;
}

// Records each argument NUL-terminated, and SLURM_CONF, then behaves like a quiet success.
const QByteArray kRecordArgv =
    "for a in \"$@\"; do printf '%s\\0' \"$a\" >> \"$(dirname \"$0\")/argv\"; done\n"
    "printf '%s' \"$SLURM_CONF\" > \"$(dirname \"$0\")/slurm_conf\"\n";

QString trayName(int rack, int tray) { return QString::asprintf("r%02d-n%02d", rack, tray); }

// A fleet source with `racks` × 18 trays (default: just r01-n01..r01-n03, entities 11..13) that
// reports each tray once (ALLOCATED; r01-n02 degraded with a fault text) on its first advance
// and nothing afterwards, like the twin at rest.
class TraySource : public watchfloor::server::FleetSource {
public:
    explicit TraySource(int racks = 0) {
        topology_.set_fleet_index(0);
        for (int i = 0; i < (racks == 0 ? 3 : racks * 18); ++i) {
            auto* node = topology_.add_nodes();
            node->set_index(11 + static_cast<std::uint32_t>(i));
            node->set_name(trayName(1 + i / 18, 1 + i % 18).toStdString());
        }
    }
    const v1::Topology& topology() const override { return topology_; }
    watchfloor::server::UnixTime now() const override { return now_; }
    void advanceTo(watchfloor::server::UnixTime until, watchfloor::server::FleetChanges& out) override {
        now_ = until;
        out.time = until;
        if (reported_) return;
        reported_ = true;
        for (const auto& node : topology_.nodes()) {
            auto& state = out.states.emplace_back();
            state.set_entity_index(node.index());
            state.set_node_state(v1::NODE_STATE_ALLOCATED);
            state.set_health(node.name() == "r01-n02" ? v1::HEALTH_STATE_DEGRADED : v1::HEALTH_STATE_HEALTHY);
            state.set_reason(node.name() == "r01-n02" ? "health check: Xid 94" : "twin reason");
        }
    }

private:
    v1::Topology topology_;
    watchfloor::server::UnixTime now_{std::chrono::milliseconds(1'700'000'000'000)};
    bool reported_ = false;
};

// What the fake Slurm answers next; the test changes it between polls.
struct ScriptedSlurm {
    SlurmClusterReading next;
    SlurmClusterReading operator()() const { return next; }
};

SlurmNodeStatus slurmNode(std::string name, std::string sinfoState, std::string reason = {}) {
    SlurmNodeStatus node;
    node.name = std::move(name);
    node.state = SlurmScheduler::parseNodeState(sinfoState);
    node.responding = sinfoState.find('*') == std::string::npos;
    node.slurmState = std::move(sinfoState);
    node.reason = std::move(reason);
    return node;
}

// The twin above under Slurm's view: the scripted answer is read by advance().
struct OverlayRig {
    TraySource twin;
    ScriptedSlurm slurm;
    SlurmNodeStatePoller poller{[this] { return slurm(); }, std::chrono::hours(1)};
    SlurmFleetSource source{twin, poller};
    watchfloor::server::FleetChanges changes;

    // Polls the scripted Slurm, then one tick of the overlaid source into `changes`.
    void advance() {
        poller.pollOnce();
        changes.clear();
        source.advanceTo(twin.now() + std::chrono::seconds(1), changes);
    }
};

const v1::EntityState* stateOf(const watchfloor::server::FleetChanges& changes, std::uint32_t entity) {
    for (const auto& state : changes.states)
        if (state.entity_index() == entity) return &state;
    return nullptr;
}

}  // namespace

class TestSlurm : public QObject {
    Q_OBJECT
    QTemporaryDir clusterDir_;
    slurm_test::LoopbackCluster cluster_;
    QString skipReason_;

    SlurmConfig realConfig() const {
        return slurmConfig("", std::chrono::seconds(15), cluster_.slurmConf().toStdString());
    }

    std::optional<SlurmNodeStatus> readNode(const SlurmScheduler& slurm, const std::string& name) {
        const auto states = slurm.readNodeStates({name});
        if (!states.error.empty() || states.nodes.size() != 1) return std::nullopt;
        return states.nodes[0];
    }

private slots:
    void initTestCase() {
        if (!cluster_.start(clusterDir_.path(), {"--slurmd", "r01-n03"})) {
            skipReason_ = cluster_.skipReason();
            QVERIFY2(!skipReason_.isEmpty(), qPrintable(cluster_.error()));
            return;
        }
        QVERIFY(QFile::exists(cluster_.slurmConf()));
    }

    void cleanupTestCase() { cluster_.stop(); }

    void parsesSinfoStates_data() {
        QTest::addColumn<QString>("sinfo");
        QTest::addColumn<v1::NodeState>("state");
        QTest::newRow("idle") << "idle" << v1::NODE_STATE_IDLE;
        QTest::newRow("idle not responding") << "idle*" << v1::NODE_STATE_IDLE;
        QTest::newRow("allocated") << "allocated" << v1::NODE_STATE_ALLOCATED;
        QTest::newRow("mixed planned") << "mixed-" << v1::NODE_STATE_ALLOCATED;
        QTest::newRow("completing") << "completing" << v1::NODE_STATE_ALLOCATED;
        QTest::newRow("draining") << "draining" << v1::NODE_STATE_DRAINING;
        QTest::newRow("drained") << "drained" << v1::NODE_STATE_DRAINED;
        QTest::newRow("drained not responding") << "drained*" << v1::NODE_STATE_DRAINED;
        QTest::newRow("down") << "down*" << v1::NODE_STATE_DOWN;
        QTest::newRow("fail") << "fail" << v1::NODE_STATE_DOWN;
        QTest::newRow("failing") << "failing" << v1::NODE_STATE_DRAINING;
        QTest::newRow("powered down") << "powered_down~" << v1::NODE_STATE_DOWN;
        QTest::newRow("reboot issued") << "reboot^" << v1::NODE_STATE_DOWN;
        QTest::newRow("unknown") << "unknown" << v1::NODE_STATE_UNSPECIFIED;
        QTest::newRow("empty") << "" << v1::NODE_STATE_UNSPECIFIED;
    }
    void parsesSinfoStates() {
        QFETCH(QString, sinfo);
        QFETCH(v1::NodeState, state);
        QCOMPARE(SlurmScheduler::parseNodeState(sinfo.toStdString()), state);
    }

    void nodeNamesMustBeSingleNodes_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("plain");
        QTest::newRow("tray") << "r01-n03" << true;
        QTest::newRow("fqdn") << "node7.dc1_b" << true;
        QTest::newRow("hostlist") << "r01-n[01-18]" << false;
        QTest::newRow("comma list") << "r01-n01,r01-n02" << false;
        QTest::newRow("space") << "r01-n01 state=down" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("ALL") << "ALL" << true;  // a node may be called that; Slurm has no "ALL" keyword here
    }
    void nodeNamesMustBeSingleNodes() {
        QFETCH(QString, name);
        QFETCH(bool, plain);
        QCOMPARE(SlurmScheduler::isPlainNodeName(name.toStdString()), plain);
    }

    void reasonIsOneArgumentNeverAShell() {
        QTemporaryDir bin;
        const QString canary = bin.filePath("canary");
        QFile(canary).open(QIODevice::WriteOnly);
        writeFakeProgram(bin, "scontrol", kRecordArgv);
        SlurmScheduler slurm(slurmConfig(bin.path().toStdString(), std::chrono::seconds(5), "/etc/fleet/slurm.conf"));
        const std::string reason = "alice: q \"x\" 'y' $(touch " + canary.toStdString() + "-2); rm -rf " +
                                   canary.toStdString() + " state=down `id`";
        const auto outcome = slurm.drainNode("r01-n03", reason);
        QVERIFY2(outcome.succeeded, outcome.message.c_str());
        QCOMPARE(recordedArgs(bin), (QStringList{"update", "nodename=r01-n03", "state=drain",
                                                 "reason=" + QString::fromStdString(reason)}));
        QVERIFY(QFile::exists(canary));
        QVERIFY(!QFile::exists(canary + "-2"));
        QFile conf(bin.filePath("slurm_conf"));
        QVERIFY(conf.open(QIODevice::ReadOnly));
        QCOMPARE(conf.readAll(), QByteArray("/etc/fleet/slurm.conf"));
    }

    void hostlistTargetsAreRefusedBeforeSlurm() {
        QTemporaryDir bin;
        writeFakeProgram(bin, "scontrol", kRecordArgv);
        SlurmScheduler slurm(slurmConfig(bin.path().toStdString(), std::chrono::seconds(5)));
        QVERIFY(!slurm.drainNode("r01-n[01-18]", "alice: oops").succeeded);
        QVERIFY(!slurm.resumeNode("r01-n01,r01-n02").succeeded);
        QVERIFY(!slurm.drainNode("r01-n01", "").succeeded);
        QVERIFY(recordedArgs(bin).isEmpty());
    }

    void slurmErrorsAreReportedVerbatim() {
        QTemporaryDir bin;
        writeFakeProgram(
            bin, "scontrol",
            "echo 'slurm_update error: Unable to contact slurm controller (connect failure)' >&2\nexit 1\n");
        SlurmScheduler slurm(slurmConfig(bin.path().toStdString(), std::chrono::seconds(5)));
        const auto outcome = slurm.drainNode("r01-n03", "alice: test");
        QVERIFY(!outcome.succeeded);
        QCOMPARE(outcome.message, "slurm_update error: Unable to contact slurm controller (connect failure)");
    }

    void hungSlurmTimesOut() {
        QTemporaryDir bin;
        writeFakeProgram(bin, "scontrol", "exec sleep 30\n");
        SlurmScheduler slurm(slurmConfig(bin.path().toStdString(), std::chrono::milliseconds(300)));
        QElapsedTimer timer;
        timer.start();
        const auto outcome = slurm.resumeNode("r01-n03");
        // Against the fake's own 30 s, not a machine-dependent budget: it was stopped, not awaited.
        QVERIFY2(timer.elapsed() < 15000, std::to_string(timer.elapsed()).c_str());
        QVERIFY(!outcome.succeeded);
        QCOMPARE(outcome.message, "scontrol did not answer within 0.3 s and was stopped");
    }

    void missingProgramIsAClearError() {
        SlurmScheduler slurm(slurmConfig("/nonexistent/bin", std::chrono::seconds(1)));
        const auto states = slurm.readNodeStates();
        QVERIFY(states.nodes.empty());
        QVERIFY2(QString::fromStdString(states.error).contains("cannot run /nonexistent/bin/sinfo"),
                 states.error.c_str());
    }

    void parsesSinfoOutput() {
        QTemporaryDir bin;
        writeFakeProgram(bin, "sinfo",
                         "printf 'r01-n01|idle|none\\nr01-n02|drained*|alice: a|b reason\\n"
                         "r01-n01|idle|none\\nr01-n03|draining|auto: Xid 79\\ngarbage\\n'\n");
        SlurmScheduler slurm(slurmConfig(bin.path().toStdString(), std::chrono::seconds(5)));
        const auto states = slurm.readNodeStates();
        QVERIFY(states.error.empty());
        QCOMPARE(states.nodes.size(), 3u);
        QCOMPARE(states.nodes[0].name, "r01-n01");
        QCOMPARE(states.nodes[0].reason, "");
        QCOMPARE(states.nodes[1].state, v1::NODE_STATE_DRAINED);
        QVERIFY(!states.nodes[1].responding);
        QCOMPARE(states.nodes[1].reason, "alice: a|b reason");
        QCOMPARE(states.nodes[2].state, v1::NODE_STATE_DRAINING);
    }

    void expandsHostlists_data() {
        QTest::addColumn<QString>("hostlist");
        QTest::addColumn<QStringList>("names");  // empty: refused
        QTest::newRow("one") << "r01-n03" << QStringList{"r01-n03"};
        QTest::newRow("range keeps width") << "r01-n[08-10]" << QStringList{"r01-n08", "r01-n09", "r01-n10"};
        QTest::newRow("list in brackets") << "r01-n[01,03-04]" << QStringList{"r01-n01", "r01-n03", "r01-n04"};
        QTest::newRow("two groups") << "r[01-02]-n[17-18]" << QStringList{"r01-n17", "r01-n18", "r02-n17", "r02-n18"};
        QTest::newRow("comma items") << "r01-n01,r02-n[01-02]" << QStringList{"r01-n01", "r02-n01", "r02-n02"};
        QTest::newRow("unbalanced") << "r01-n[01-02" << QStringList{};
        QTest::newRow("nested") << "r[0[1-2]]" << QStringList{};
        QTest::newRow("backwards") << "r01-n[05-02]" << QStringList{};
        QTest::newRow("not a number") << "r01-n[a-b]" << QStringList{};
        QTest::newRow("huge") << "n[1-999999999]" << QStringList{};
        // Groups multiply: 10^9 names, refused before one is built (the slurm_text fuzz target's
        // timeout; its input is a seed of tests/fuzz/corpus/slurm_text).
        QTest::newRow("groups multiply") << "r[0-999]-n[0-999]-g[0-999]" << QStringList{};
        QTest::newRow("items add up") << "a[1-600000],b[1-600000]" << QStringList{};
        QTest::newRow("space") << "r01-n01 x" << QStringList{};
    }
    void expandsHostlists() {
        QFETCH(QString, hostlist);
        QFETCH(QStringList, names);
        const auto expanded = SlurmScheduler::expandHostlist(hostlist.toStdString());
        QCOMPARE(expanded.has_value(), !names.isEmpty());
        if (!expanded) return;
        QStringList got;
        for (const auto& name : *expanded) got << QString::fromStdString(name);
        QCOMPARE(got, names);
    }

    void readsJobPlacementsFromSqueue() {
        QTemporaryDir bin;
        writeFakeProgram(bin, "squeue", kRecordArgv + "printf 'r01-n[01-02]|llm-70b\\nr01-n03|a|b job\\n'\n");
        SlurmScheduler slurm(slurmConfig(bin.path().toStdString(), std::chrono::seconds(5)));
        const auto reading = slurm.readJobPlacements();
        QVERIFY2(reading.error.empty(), reading.error.c_str());
        QCOMPARE(reading.jobsByNode.size(), 3u);
        QCOMPARE(reading.jobsByNode.at("r01-n02"), std::vector<std::string>{"llm-70b"});
        QCOMPARE(reading.jobsByNode.at("r01-n03"), std::vector<std::string>{"a|b job"});
        QVERIFY(recordedArgs(bin).contains("RUNNING,COMPLETING,CONFIGURING,SUSPENDED"));
    }

    // A site's Slurm knows trays by host name (hosts= in the fleet file): commands name the hosts,
    // readings come back as entity names, names without a translation pass unchanged.
    void translatesEntityNamesToSlurmHostNames() {
        QTemporaryDir bin;
        writeFakeProgram(bin, "scontrol", kRecordArgv);
        writeFakeProgram(bin, "sinfo", "printf 'gb200-r01-n02|drained|alice: fan\\nother-host|idle|none\\n'\n");
        writeFakeProgram(bin, "squeue", "printf 'gb200-r01-n[01-02]|train\\n'\n");
        auto names = std::make_shared<SlurmNodeNames>();
        names->add("r01-n01", "gb200-r01-n01");
        names->add("r01-n02", "gb200-r01-n02");
        SlurmScheduler slurm({"", bin.path().toStdString(), std::chrono::seconds(5), names});
        const auto drained = slurm.drainNode("r01-n02", "alice: fan");
        QVERIFY2(drained.succeeded, drained.message.c_str());
        QCOMPARE(recordedArgs(bin),
                 (QStringList{"update", "nodename=gb200-r01-n02", "state=drain", "reason=alice: fan"}));
        const auto states = slurm.readNodeStates();
        QVERIFY(states.error.empty());
        QCOMPARE(states.nodes.size(), 2u);
        QCOMPARE(states.nodes[0].name, "r01-n02");
        QCOMPARE(states.nodes[0].state, v1::NODE_STATE_DRAINED);
        QCOMPARE(states.nodes[1].name, "other-host");
        const auto jobs = slurm.readJobPlacements();
        QCOMPARE(jobs.jobsByNode.count("r01-n01"), 1u);
        QCOMPARE(jobs.jobsByNode.count("gb200-r01-n01"), 0u);
    }

    void pollerKeepsTheLastKnownStatesWhenSlurmIsUnreachable() {
        ScriptedSlurm slurm;
        slurm.next.nodes = {slurmNode("r01-n01", "idle"), slurmNode("r01-n02", "drained", "alice: xid 79")};
        std::vector<std::string> log;
        SlurmNodeStatePoller poller([&] { return slurm(); }, std::chrono::hours(1),
                                    [&](const std::string& line) { log.push_back(line); });
        QVERIFY(!poller.view()->everRead);
        poller.pollOnce();
        auto view = poller.view();
        QVERIFY(view->everRead && view->reachable);
        QCOMPARE(view->node("r01-n02")->state, v1::NODE_STATE_DRAINED);
        const auto generation = view->generation;
        const auto version = view->node("r01-n01")->version;
        poller.pollOnce();  // same answer: nothing changed
        QCOMPARE(poller.view()->generation, generation);

        slurm.next = {};
        slurm.next.error = "slurm_load_partitions: Unable to contact slurm controller (connect failure)";
        poller.pollOnce();
        view = poller.view();
        QVERIFY(!view->reachable);
        QCOMPARE(view->error, slurm.next.error);
        QCOMPARE(view->generation, generation + 1);
        QCOMPARE(view->node("r01-n02")->state, v1::NODE_STATE_DRAINED);  // last known, not dropped
        QCOMPARE(view->node("r01-n01")->state, v1::NODE_STATE_IDLE);
        poller.pollOnce();  // still unreachable: not a new change, not a new log line
        QCOMPARE(poller.view()->generation, generation + 1);
        QCOMPARE(log.size(), 2u);
        QVERIFY2(QString::fromStdString(log[1]).contains("Unable to contact slurm controller"), log[1].c_str());

        slurm.next = {};
        slurm.next.nodes = {slurmNode("r01-n01", "drained", "by hand"),
                            slurmNode("r01-n02", "drained", "alice: xid 79")};
        poller.pollOnce();
        view = poller.view();
        QVERIFY(view->reachable);
        QCOMPARE(view->node("r01-n01")->version, version + 1);
        QCOMPARE(log.size(), 3u);
    }

    void pollerThreadRefreshesOnRequest() {
        std::atomic<int> reads{0};
        SlurmNodeStatePoller poller(
            [&] {
                ++reads;
                SlurmClusterReading reading;
                reading.nodes = {slurmNode("r01-n01", "idle")};
                return reading;
            },
            std::chrono::hours(1));
        poller.start();
        QCOMPARE(reads.load(), 1);  // the first reading is synchronous
        poller.requestRefresh();
        QTRY_COMPARE_WITH_TIMEOUT(reads.load(), 2, 2000);
        poller.stop();
    }

    void streamShowsSlurmsStateOverTheTwins() {
        OverlayRig rig;
        auto& [twin, slurm, poller, source, changes] = rig;
        slurm.next.nodes = {slurmNode("r01-n01", "idle"), slurmNode("r01-n02", "mixed")};
        rig.advance();
        QCOMPARE(changes.states.size(), 3u);
        QCOMPARE(stateOf(changes, 11)->node_state(), v1::NODE_STATE_IDLE);
        QCOMPARE(stateOf(changes, 11)->reason(), "");  // the twin's reason is not Slurm's
        QCOMPARE(stateOf(changes, 12)->node_state(), v1::NODE_STATE_ALLOCATED);
        QCOMPARE(stateOf(changes, 12)->health(), v1::HEALTH_STATE_DEGRADED);
        QCOMPARE(stateOf(changes, 12)->reason(), "health check: Xid 94");  // unhealthy: the fault text
        QCOMPARE(stateOf(changes, 13)->node_state(), v1::NODE_STATE_UNSPECIFIED);
        QCOMPARE(stateOf(changes, 13)->reason(), "not a node in Slurm's configuration");
        QVERIFY(changes.events.empty());

        // A drain typed into scontrol: only that tray is restated, with the twin's health kept.
        slurm.next.nodes[0] = slurmNode("r01-n01", "drained", "by hand from a shell");
        rig.advance();
        QCOMPARE(changes.states.size(), 1u);
        QCOMPARE(changes.states[0].entity_index(), 11u);
        QCOMPARE(changes.states[0].node_state(), v1::NODE_STATE_DRAINED);
        QCOMPARE(changes.states[0].reason(), "by hand from a shell");
        QCOMPARE(changes.states[0].health(), v1::HEALTH_STATE_HEALTHY);
        QCOMPARE(changes.states[0].since_unix_ms(), watchfloor::server::toUnixMs(twin.now()));
        QCOMPARE(changes.events.size(), 1u);
        QCOMPARE(changes.events[0].type(), v1::EVENT_TYPE_NODE_STATE);
        QCOMPARE(changes.events[0].message(), "Slurm: r01-n01 is DRAINED (was IDLE): by hand from a shell");

        rig.advance();  // nothing new from Slurm: nothing restated
        QVERIFY(changes.states.empty());

        // Slurm unreachable: states stay the last known ones and say so; nothing becomes drained.
        slurm.next = {};
        slurm.next.error = "Unable to contact slurm controller (connect failure)";
        rig.advance();
        QCOMPARE(changes.states.size(), 2u);  // the tray Slurm never knew keeps its reason
        QCOMPARE(stateOf(changes, 11)->node_state(), v1::NODE_STATE_DRAINED);
        QVERIFY(QString::fromStdString(stateOf(changes, 11)->reason())
                    .startsWith("by hand from a shell; last known state, Slurm unreachable since "));
        QCOMPARE(stateOf(changes, 12)->node_state(), v1::NODE_STATE_ALLOCATED);
        QCOMPARE(changes.events.size(), 1u);
        QCOMPARE(changes.events[0].entity_index(), 0u);
        QCOMPARE(changes.events[0].severity(), v1::SEVERITY_WARNING);
        QVERIFY2(QString::fromStdString(changes.events[0].message())
                     .startsWith("Slurm unreachable: Unable to contact slurm controller (connect failure); node states "
                                 "are the last known"),
                 changes.events[0].message().c_str());
    }

    void streamShowsNothingDrainedWhenSlurmWasNeverRead() {
        OverlayRig rig;
        rig.slurm.next.error = "sinfo did not answer within 15.0 s and was stopped";
        rig.advance();
        QCOMPARE(rig.changes.states.size(), 3u);
        for (const auto& state : rig.changes.states) {
            QCOMPARE(state.node_state(), v1::NODE_STATE_UNSPECIFIED);
            QVERIFY2(QString::fromStdString(state.reason()).contains("did not answer within"), state.reason().c_str());
        }
    }

    // At 1,800 racks every Slurm change makes the tick thread compare 32,400 trays; that must stay
    // a small part of a tick (a tick at this size takes ~1 s). No wall-clock limit (the machine and
    // a sanitizer build set the pace): restating one change compares every tray, so it may cost up
    // to what restating all does, never a multiple of it (a rescan per tray would).
    void overlayCostAtFleetScale() {
        TraySource twin(1800);
        ScriptedSlurm slurm;
        for (int i = 0; i < 1800 * 18; ++i)
            slurm.next.nodes.push_back(slurmNode(trayName(1 + i / 18, 1 + i % 18).toStdString(), "allocated"));
        SlurmNodeStatePoller poller([&] { return slurm(); }, std::chrono::hours(1));
        QElapsedTimer pollTimer;
        pollTimer.start();
        poller.pollOnce();
        const qint64 poll_ms = pollTimer.elapsed();
        SlurmFleetSource source(twin, poller);
        watchfloor::server::FleetChanges changes;
        QElapsedTimer allTimer;
        allTimer.start();
        source.advanceTo(twin.now() + std::chrono::seconds(1), changes);
        const qint64 all_ms = allTimer.elapsed();
        QCOMPARE(changes.states.size(), 32400u);

        slurm.next.nodes[12345] = slurmNode(slurm.next.nodes[12345].name, "drained", "alice: xid 79");
        poller.pollOnce();
        changes.clear();
        QElapsedTimer tickTimer;
        tickTimer.start();
        source.advanceTo(twin.now() + std::chrono::seconds(1), changes);
        const qint64 tick_ms = tickTimer.elapsed();
        QCOMPARE(changes.states.size(), 1u);
        QCOMPARE(changes.states[0].node_state(), v1::NODE_STATE_DRAINED);
        qInfo(
            "32,400 trays: merging a reading %lld ms (poll thread), restating all %lld ms, one change %lld ms "
            "(tick thread)",
            poll_ms, all_ms, tick_ms);
        QVERIFY2(tick_ms <= 2 * all_ms + 10,
                 qPrintable(QString("one change %1 ms, all %2 ms").arg(tick_ms).arg(all_ms)));
    }

    void fleetViewAnswersWithSlurmsStateAndJobs() {
        control_test::TestFleet twin(1);
        twin.placeJob("twin-job", {"r01-n01"}, 600);
        ScriptedSlurm slurm;
        for (int i = 1; i <= 18; ++i)
            slurm.next.nodes.push_back(slurmNode(trayName(1, i).toStdString(), "drained", "rack work"));
        slurm.next.nodes[0] = slurmNode("r01-n01", "draining", "alice: xid 79");
        slurm.next.jobsByNode["r01-n01"] = {"llm-70b"};
        SlurmNodeStatePoller poller([&] { return slurm(); }, std::chrono::hours(1));
        poller.pollOnce();
        SlurmFleetView view(twin, poller);
        auto node = view.node("r01-n01");
        QVERIFY(node);
        QCOMPARE(node->state, v1::NODE_STATE_DRAINING);
        QCOMPARE(node->jobs, std::vector<std::string>{"llm-70b"});
        QCOMPARE(node->gpus, 4u);
        QVERIFY(!view.node("r09-n01"));
        QVERIFY(view.rack("r01")->isolated);  // every tray out of service in Slurm

        // A job only Slurm runs can be previewed and restarted; its unknown checkpoint age is
        // said, not invented.
        QVERIFY(view.job("twin-job")->checkpointAgeKnown);
        const auto slurmOnly = view.job("llm-70b");
        QVERIFY(slurmOnly);
        QVERIFY(!slurmOnly->checkpointAgeKnown);
        QCOMPARE(slurmOnly->nodes, std::vector<std::string>{"r01-n01"});
        QCOMPARE(slurmOnly->gpus, 4u);
        QVERIFY(!view.job("nobody-runs-this"));
        v1::ActionRequest restart;
        restart.set_type(v1::ACTION_TYPE_RESTART_JOB);
        restart.set_job_name("llm-70b");
        const PreviewResult preview = computeBlastRadius(view, restart, BlastRadiusPolicy{});
        QVERIFY2(preview.status.ok(), preview.status.error_message().c_str());
        QVERIFY(preview.preview.allowed());
        QCOMPARE(preview.preview.checkpoint_age_s(), 0.0);
        QCOMPARE(preview.preview.expected_wasted_progress_s(), 0.0);
        QVERIFY(preview.preview.expected_goodput_cost_gpu_s() > 0);  // the restart itself is counted
        QCOMPARE(preview.preview.warnings_size(), 1);
        QVERIFY2(
            QString::fromStdString(preview.preview.warnings(0)).contains("checkpoint age of job llm-70b is unknown"),
            preview.preview.warnings(0).c_str());
        const auto nodeVersion = node->stateVersion;
        const auto rackVersion = view.rack("r01")->stateVersion;

        slurm.next.nodes[0] = slurmNode("r01-n01", "drained", "alice: xid 79");
        slurm.next.jobsByNode.clear();
        poller.pollOnce();
        node = view.node("r01-n01");
        QCOMPARE(node->state, v1::NODE_STATE_DRAINED);
        QVERIFY(node->jobs.empty());
        QVERIFY(node->stateVersion != nodeVersion);  // a preview made before is now stale
        QVERIFY(view.rack("r01")->stateVersion != rackVersion);

        slurm.next.nodes[5] = slurmNode("r01-n06", "idle");
        poller.pollOnce();
        QVERIFY(!view.rack("r01")->isolated);
    }

    // ---- real Slurm on loopback ----

    void drainAndResumeThroughSlurm() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        SlurmScheduler slurm(realConfig());
        const std::string reason = "alice: xid 79 \"fell off\" bus; rm -rf /tmp/not-this";
        const auto drained = slurm.drainNode("r01-n03", reason);
        QVERIFY2(drained.succeeded, drained.message.c_str());
        const QString sinfoR = cluster_.run("sinfo", {"-R", "-h", "-o", "%E|%N"});
        QVERIFY2(sinfoR.contains(QString::fromStdString(reason) + "|r01-n03"), qPrintable(sinfoR));
        const auto node = readNode(slurm, "r01-n03");
        QVERIFY(node);
        QCOMPARE(node->state, v1::NODE_STATE_DRAINED);
        QCOMPARE(node->reason, reason);

        const auto resumed = slurm.resumeNode("r01-n03");
        QVERIFY2(resumed.succeeded, resumed.message.c_str());
        const auto back = readNode(slurm, "r01-n03");
        QVERIFY(back);
        QCOMPARE(back->state, v1::NODE_STATE_IDLE);
        QVERIFY(back->reason.empty());
        // Slurm refuses to resume a node that is not drained, and says why.
        const auto again = slurm.resumeNode("r01-n03");
        QVERIFY(!again.succeeded);
        QVERIFY2(QString::fromStdString(again.message).contains("Invalid node state"), again.message.c_str());
    }

    void drainMadeWithScontrolShowsInTheReader() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        cluster_.run("scontrol", {"update", "nodename=r01-n05", "state=drain", "reason=by hand from a shell"});
        SlurmScheduler slurm(realConfig());
        const auto states = slurm.readNodeStates();
        QVERIFY2(states.error.empty(), states.error.c_str());
        QCOMPARE(states.nodes.size(), 18u);
        const auto it = std::find_if(states.nodes.begin(), states.nodes.end(),
                                     [](const SlurmNodeStatus& n) { return n.name == "r01-n05"; });
        QVERIFY(it != states.nodes.end());
        QCOMPARE(it->state, v1::NODE_STATE_DRAINED);
        QCOMPARE(it->reason, "by hand from a shell");
    }

    void requeueMovesAJobOffExcludedNodes() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        cluster_.run("sbatch",
                     {"-w", "r01-n03", "-J", "llm-70b", "--requeue", "-o", "/dev/null", "--wrap", "sleep 300"});
        QTRY_COMPARE_WITH_TIMEOUT(cluster_.run("squeue", {"-h", "-n", "llm-70b", "-o", "%T"}).trimmed(),
                                  QString("RUNNING"), 15000);
        SlurmScheduler slurm(realConfig());
        QCOMPARE(readNode(slurm, "r01-n03")->state, v1::NODE_STATE_ALLOCATED);
        const auto requeued = slurm.requeueJob("llm-70b", {"r01-n03"});
        QVERIFY2(requeued.succeeded, requeued.message.c_str());
        // The job completes on r01-n03 (killed), then waits in the queue again.
        QString job;
        QTRY_VERIFY2_WITH_TIMEOUT(
            (job = cluster_.run("squeue", {"-h", "-n", "llm-70b", "-o", "%T|%i"}).trimmed()).startsWith("PENDING|"),
            qPrintable(job), 15000);
        const QString details = cluster_.run("scontrol", {"show", "job", job.section('|', 1), "-o"});
        QVERIFY2(details.contains("ExcNodeList=r01-n03"), qPrintable(details));
        QVERIFY(!slurm.requeueJob("no-such-job", {}).succeeded);
        cluster_.run("scancel", {"-n", "llm-70b"});
    }

    void unreachableSlurmFailsTheOperation() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QVERIFY(cluster_.stopController());

        QTemporaryDir dir;
        control_test::TestFleet fleet(1);
        auto audit = AuditLog::open(dir.filePath("audit.jsonl").toStdString()).log;
        SlurmScheduler slurm(realConfig());
        OperationsEngine engine(fleet, slurm, *audit, {});
        v1::ActionRequest drain;
        drain.set_request_id("drain-while-down");
        drain.set_type(v1::ACTION_TYPE_DRAIN_NODE);
        drain.set_node_name("r01-n07");
        drain.set_reason("xid 48");
        const auto result = engine.execute({"alice", v1::ROLE_OPERATOR, false, "test"}, drain);
        QVERIFY(result.status.ok());
        QCOMPARE(result.operation.state(), v1::OPERATION_STATE_FAILED);
        QVERIFY2(QString::fromStdString(result.operation.error()).contains("Unable to contact slurm controller"),
                 result.operation.error().c_str());
        const auto unreadable = slurm.readNodeStates({"r01-n07"});
        QVERIFY(unreadable.nodes.empty());
        QVERIFY2(QString::fromStdString(unreadable.error).contains("Unable to contact slurm controller"),
                 unreadable.error.c_str());

        QVERIFY(cluster_.startController());
        const auto node = readNode(slurm, "r01-n07");
        QVERIFY(node);
        QVERIFY(node->state != v1::NODE_STATE_DRAINED && node->state != v1::NODE_STATE_DRAINING);
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "tst_control_slurm.moc"
