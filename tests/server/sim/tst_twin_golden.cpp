// The twin's output for fixed seeds and scenarios, pinned by SHA-256 digests in twin-golden.txt.
// It guards refactors of server/sim: same seed, same scenario, same advanceTo() calls and the
// same operator actions must give the same bytes (events, states, samples, jobs, fleet goodput,
// the read view and the statistics), before and after.
//
// The digests are produced by this program. After a deliberate change of the twin's behaviour
// (and only then), regenerate them and commit the file with the change that explains them:
//     WATCHFLOOR_TWIN_GOLDEN_UPDATE=1 build/tests/server/sim/tst_twin_golden
// (writes tests/server/sim/twin-golden.txt in the source tree). The digests assume IEEE double
// arithmetic without FMA contraction (the default x86-64 build); the failure message prints the
// new digest so a platform difference is easy to tell from a behaviour change.

#include "TwinTestSupport.h"

#include "EventDump.h"

#include <QCryptographicHash>
#include <QFile>
#include <QtTest>

#include <cstring>
#include <map>
#include <set>

using namespace twintest;
using namespace watchfloor::v1;

namespace {

const char* const kGoldenFile = "tests/server/sim/twin-golden.txt";

// Every verb of the scenario grammar in 25 minutes on the default fleet (r01-r04: llm-405b-1,
// r05-r06: llm-70b-2, r07-n01..n16: llm-8b-3).
const char* const kAllVerbs = R"(at 30s xid 79 gpu=r01-n04-g2
at 1m link-flap link=r02-n01-g0-l03 count=5
at 90s straggler node=r05-n09 factor=1.3 for=10m
at 2m fail hbm_uncorrectable gpu=r06-n02-g1
at 150s fail software_bug job=llm-405b-1
at 3m facility-excursion region=us-east delta_c=6 for=15m
at 4m pump-fail rack=r01
at 5m leak rack=r03
at 5m link-drift nic=r02-n08-ib3 hours=0.2 down_after=3m
at 6m valve-close rack=r07 for=6m
at 7m filter-clog rack=r05 for=20m
at 8m ber nic=r06-n10-ib1 value=3e-10
at 9m sensor-fault rack=r04 for=10m
at 10m link-down nic=r02-n05-ib0 for=8m
at 11m xid 48 gpu=r02-n03-g1
at 12m drain node=r04-n02 reason="ops: fan noisy"
at 13m isolate rack=r06
at 15m link-down link=r04-n07-g3-l11 for=5m
at 16m resume node=r04-n02
at 17m requeue job=llm-70b-2 exclude=r05-n01
at 19m fail host_hardware node=r05-n12
at 20m restore rack=r06
at 22m xid 31 gpu=r05-n14-g0
)";

class Digest {
public:
    void add(const void* data, std::size_t size) {
        hash_.addData(QByteArrayView(static_cast<const char*>(data), static_cast<qsizetype>(size)));
    }
    template <class T>
    void value(const T& v) {
        add(&v, sizeof v);
    }
    void text(const std::string& s) {
        value(s.size());
        add(s.data(), s.size());
    }
    void message(const google::protobuf::Message& m) { text(m.SerializeAsString()); }
    void changes(const FleetChanges& c) {
        for (const auto& j : c.jobs) jobNames.insert(j.name());
        for (const auto& e : c.events) eventTypes.insert(e.type());
        value(c.time.time_since_epoch().count());
        value(c.samples.size());
        for (const Sample& s : c.samples) {  // field by field: the struct has padding
            value(s.entityIndex);
            value(static_cast<int>(s.metric));
            std::uint32_t bits;
            std::memcpy(&bits, &s.value, sizeof bits);
            value(bits);
        }
        for (const auto& s : c.states) message(s);
        for (const auto& e : c.events) message(e);
        for (const auto& j : c.jobs) message(j);
        value(c.hasFleet);
        if (c.hasFleet) message(c.fleet);
    }
    // The read view of every node, job and rack, as the operations engine sees it.
    void view(const DigitalTwin& twin, const std::set<std::string>& jobs) {
        for (const auto& node : twin.topology().nodes()) {
            const auto v = twin.nodeView(node.name());
            text(v->name), text(v->rack), value(v->gpus), value(static_cast<int>(v->state)), text(v->reason);
            for (const auto& job : v->jobs) text(job);
            value(v->drainRequested), text(v->drainReason), value(v->stateVersion);
        }
        for (const auto& job : jobs) {
            const auto v = twin.jobView(job);
            text(v->name), value(v->gpus), value(v->checkpointAgeS), value(v->unsavedProgressS), value(v->recovering);
            for (const auto& node : v->nodes) text(node);
            value(v->stateVersion);
        }
        for (const auto& rack : twin.topology().racks()) {
            const auto v = twin.rackView(rack.name());
            text(v->name), value(static_cast<int>(v->state)), value(v->leakActive), value(v->isolated),
                value(v->stateVersion);
            for (const auto& tray : v->trays) text(tray.name), value(static_cast<int>(tray.state));
        }
    }
    void statistics(const DigitalTwin::Statistics& s) {
        value(s.poweredGpuHours), value(s.hardwareFailures), value(s.softwareFailures), value(s.jobGpuHoursExposed);
        value(s.jobInterruptions), value(s.leaks), value(s.events);
        for (const auto n : s.failuresByCause) value(n);
        value(s.ledgerRecordsRejected), value(s.ledgerRecordsClipped), text(s.lastLedgerProblem);
    }
    QByteArray hex() { return hash_.result().toHex(); }
    std::set<std::string> jobNames;  // every job reported so far
    std::set<int> eventTypes;        // every event type seen so far

private:
    QCryptographicHash hash_{QCryptographicHash::Sha256};
};

std::map<QByteArray, QByteArray> readGolden() {
    std::map<QByteArray, QByteArray> golden;
    QFile file(QString::fromStdString(sourcePath(kGoldenFile)));
    if (!file.open(QIODevice::ReadOnly)) return golden;
    for (const QByteArray& line : file.readAll().split('\n')) {
        const QList<QByteArray> words = line.simplified().split(' ');
        if (words.size() == 2 && !line.startsWith('#')) golden[words[0]] = words[1];
    }
    return golden;
}

}  // namespace

class TwinGoldenTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void liveAllVerbsWithOperatorActions();
    void liveWarmStart();
    void headlessDump();
    void cleanupTestCase();

private:
    void check(const char* name, const QByteArray& digest);
    QTemporaryDir dir_;
    std::map<QByteArray, QByteArray> golden_;
    std::map<QByteArray, QByteArray> measured_;
};

void TwinGoldenTest::initTestCase() {
    golden_ = readGolden();
    if (!qEnvironmentVariableIsSet("WATCHFLOOR_TWIN_GOLDEN_UPDATE"))
        QVERIFY2(!golden_.empty(), "no digests in tests/server/sim/twin-golden.txt");
}

void TwinGoldenTest::check(const char* name, const QByteArray& digest) {
    measured_[name] = digest;
    qInfo("%s %s", name, digest.constData());
    if (qEnvironmentVariableIsSet("WATCHFLOOR_TWIN_GOLDEN_UPDATE")) return;
    const QByteArray expected = golden_.count(name) ? golden_[name] : QByteArray("(none)");
    QVERIFY2(digest == expected,
             qPrintable(QStringLiteral("%1: the twin's output changed: digest %2, golden %3 (see the "
                                       "comment at the top of this file)")
                            .arg(name, QString::fromLatin1(digest), QString::fromLatin1(expected))));
}

// Live mode (per-entity telemetry at 1 Hz) on the default fleet: every scenario verb, operator
// actions from the request queue (one withdrawn), the read view every minute.
void TwinGoldenTest::liveAllVerbsWithOperatorActions() {
    SimConfig config;
    config.seed = 11;
    config.hardwareRateScale = 40;
    config.scenarioFile = writeFile(dir_, "all-verbs.scn", kAllVerbs);
    auto twin = makeTwin(config);
    Digest digest;
    FleetChanges changes;
    std::vector<TwinActionTicket> tickets;
    for (int second = 1; second <= 40 * 60; ++second) {
        switch (second) {
        case 8 * 60:
            tickets.push_back(twin->requestAction(TwinAction::drainNode("r01-n10", "alice: flaky fan")));
            break;
        case 14 * 60:
            tickets.push_back(twin->requestAction(TwinAction::requeueJob("llm-8b-3", {"r07-n02"}, "bob: slow")));
            break;
        case 18 * 60: {
            tickets.push_back(twin->requestAction(TwinAction::isolateRack("r02", "carol: smoke")));
            auto withdrawn = twin->requestAction(TwinAction::resumeNode("r01-n10"));
            QVERIFY(twin->withdrawAction(withdrawn.id));
            break;
        }
        case 24 * 60: tickets.push_back(twin->requestAction(TwinAction::restoreRack("r02"))); break;
        case 26 * 60:
            tickets.push_back(twin->requestAction(TwinAction::resumeNode("r01-n10", "alice: fan replaced")));
            break;
        case 27 * 60: tickets.push_back(twin->requestAction(TwinAction::restoreRack("r03"))); break;
        default: break;
        }
        changes.clear();
        twin->advanceTo(twin->now() + std::chrono::seconds(1), changes);
        digest.changes(changes);
        if (second % 60 == 0) digest.view(*twin, digest.jobNames);
    }
    for (auto& ticket : tickets) {
        const TwinActionResult result = ticket.result.get();
        digest.value(result.succeeded);
        digest.text(result.message);
    }
    digest.statistics(twin->statistics());
    // The digest covers every part of the twin only if the run reached it.
    for (const auto type :
         {EVENT_TYPE_XID, EVENT_TYPE_LINK_FLAP, EVENT_TYPE_LINK_DOWN, EVENT_TYPE_LINK_UP, EVENT_TYPE_LINK_BER,
          EVENT_TYPE_STRAGGLER_DETECTED, EVENT_TYPE_JOB_INTERRUPTED, EVENT_TYPE_JOB_RECOVERING, EVENT_TYPE_JOB_RESUMED,
          EVENT_TYPE_LEAK, EVENT_TYPE_RACK_ISOLATED, EVENT_TYPE_RACK_RESTORED, EVENT_TYPE_CDU_ALARM,
          EVENT_TYPE_CLOCKS_EVENT, EVENT_TYPE_OPERATOR_ACTION, EVENT_TYPE_NODE_STATE, EVENT_TYPE_HARDWARE})
        QVERIFY2(digest.eventTypes.count(type), EventType_Name(type).c_str());
    QCOMPARE(digest.jobNames.size(), 3u);
    check("live-all-verbs", digest.hex());
}

// A warm start (ledgers with history) at raised hardware rates, 20 minutes live.
void TwinGoldenTest::liveWarmStart() {
    SimConfig config;
    config.seed = 5;
    config.racks = 12;
    config.hardwareRateScale = 60;
    config.warmStart = std::chrono::hours(6);
    auto twin = makeTwin(config);
    Digest digest;
    run(*twin, 20 * 60, [&](const FleetChanges& c) { digest.changes(c); });
    digest.view(*twin, digest.jobNames);
    digest.statistics(twin->statistics());
    check("live-warm-start", digest.hex());
}

// fleetd --dump-events: the fast path (no samples, cooling every 30 s), the demo scenario, 12 h
// of 40 racks with plenty of failures, recoveries and stragglers.
void TwinGoldenTest::headlessDump() {
    SimConfig config;
    config.seed = 7;
    config.racks = 40;
    config.hardwareRateScale = 20;
    config.scenarioFile = sourcePath("scenarios/demo.scn");
    auto twin = makeTwin(config);
    DumpOptions options;
    options.duration = std::chrono::hours(12);
    options.path = dir_.filePath("dump.jsonl").toStdString();
    std::string error;
    QVERIFY2(dumpEvents(*twin, options, &error), error.c_str());
    QFile file(QString::fromStdString(options.path));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.count('\n') > 100);
    Digest digest;
    digest.add(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    digest.view(*twin, digest.jobNames);
    digest.statistics(twin->statistics());
    check("headless-dump", digest.hex());
}

void TwinGoldenTest::cleanupTestCase() {
    if (!qEnvironmentVariableIsSet("WATCHFLOOR_TWIN_GOLDEN_UPDATE")) return;
    QFile file(QString::fromStdString(sourcePath(kGoldenFile)));
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(
        "# SHA-256 of the twin's output per tst_twin_golden case; regenerate only for a deliberate behaviour\n"
        "# change: WATCHFLOOR_TWIN_GOLDEN_UPDATE=1 build/tests/server/sim/tst_twin_golden\n");
    for (const auto& [name, digest] : measured_) file.write(name + ' ' + digest + '\n');
}

QTEST_GUILESS_MAIN(TwinGoldenTest)
#include "tst_twin_golden.moc"
