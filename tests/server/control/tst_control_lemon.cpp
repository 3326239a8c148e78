// Lemon trays and the lifecycle record: LemonDetector counts a tray's failures in a sliding window
// (k-th failure within it flags the tray, once; failures age out; a person's PRODUCTION starts it
// again), --lemon K/WINDOW and its refusals, TrayLifecycleBook's idempotent set with its
// change notifications, and LemonFailureFile: the counts saved and read back (the newest k per
// tray), a damaged or foreign file refused or its bad lines skipped, ages carried across a restart.
#include "CountPerWindow.h"
#include "LemonDetector.h"
#include "LemonFailureFile.h"
#include "TrayLifecycle.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

namespace {
constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kDayMs = 24 * kHourMs;
}  // namespace

class TestLemon : public QObject {
    Q_OBJECT
private slots:
    void kthFailureInTheWindowFlagsOnce() {
        LemonDetector lemons({3, std::chrono::hours(24 * 7)});
        QVERIFY(!lemons.failure("r01-n03", 0));
        QVERIFY(!lemons.failure("r01-n03", 2 * kDayMs));
        QCOMPARE(lemons.recentFailures("r01-n03", 2 * kDayMs), 2u);
        QVERIFY(!lemons.lemon("r01-n03", 2 * kDayMs));
        QVERIFY(lemons.failure("r01-n03", 6 * kDayMs));  // the third within 7 days
        QVERIFY(lemons.lemon("r01-n03", 6 * kDayMs));
        QVERIFY(!lemons.failure("r01-n03", 6 * kDayMs + kHourMs));  // a lemon already: not flagged again
        QCOMPARE(lemons.recentFailures("r01-n03", 6 * kDayMs + kHourMs), 4u);
        QCOMPARE(lemons.lemons(6 * kDayMs + kHourMs), std::size_t(1));
        QCOMPARE(lemons.recentFailures("r01-n04", 6 * kDayMs), 0u);  // other trays are their own
    }

    void failuresSpreadWiderThanTheWindowAreNoLemon() {
        LemonDetector lemons({3, std::chrono::hours(24)});
        QVERIFY(!lemons.failure("r02-n01", 0));
        QVERIFY(!lemons.failure("r02-n01", 20 * kHourMs));
        // The first is 25 h old by the third: two in the window.
        QVERIFY(!lemons.failure("r02-n01", 25 * kHourMs));
        QCOMPARE(lemons.recentFailures("r02-n01", 25 * kHourMs), 2u);
        QVERIFY(!lemons.lemon("r02-n01", 25 * kHourMs));
    }

    void lemonsAgeOutAndAPersonVouches() {
        LemonDetector lemons({2, std::chrono::hours(10)});
        lemons.failure("a", 0);
        QVERIFY(lemons.failure("a", kHourMs));
        lemons.failure("b", 0);
        QVERIFY(lemons.failure("b", 2 * kHourMs));
        QVERIFY(lemons.expire(9 * kHourMs).empty());
        // At 10 h + 1 ms the failure at 0 is out of both windows; "b" keeps one of two.
        QCOMPARE(lemons.expire(10 * kHourMs + 1), (std::vector<std::string>{"a", "b"}));
        QVERIFY(!lemons.lemon("a", 10 * kHourMs + 1));
        QCOMPARE(lemons.recentFailures("b", 10 * kHourMs + 1), 1u);
        QVERIFY(lemons.failure("b", 11 * kHourMs));
        lemons.vouch("b");  // set back to PRODUCTION by a person
        QCOMPARE(lemons.recentFailures("b", 11 * kHourMs), 0u);
        QVERIFY(!lemons.failure("b", 12 * kHourMs));
    }

    void lemonFlagParsesAndRefuses() {
        std::string problem;
        const auto parsed = parseLemon("4/12h", &problem);
        QVERIFY(parsed);
        QCOMPARE(parsed->failures, 4u);
        QCOMPARE(parsed->window, std::chrono::seconds(12 * 3600));
        const LemonConfig defaults;
        QCOMPARE(defaults.failures, 3u);
        QCOMPARE(defaults.window, std::chrono::seconds(7 * 86400));
        for (const char* bad : {"", "3", "0/7d", "3/", "3/0s", "x/7d", "3/7 days", "-1/7d"}) {
            problem.clear();
            QVERIFY2(!parseLemon(bad, &problem), bad);
            QVERIFY2(problem.find("--lemon: expected K/WINDOW") != std::string::npos, problem.c_str());
        }
        QCOMPARE(windowText(std::chrono::hours(24 * 7)), "7d");
        QCOMPARE(windowText(std::chrono::hours(12)), "12h");
        QCOMPARE(windowText(std::chrono::minutes(10)), "10m");
        QCOMPARE(windowText(std::chrono::seconds(90)), "90s");
    }

    void lifecycleBookSetsIdempotentlyAndNotifies() {
        std::int64_t now = 1000;
        TrayLifecycleBook book([&] { return now; });
        QCOMPARE(book.get("r01-n03").state, v1::TRAY_LIFECYCLE_UNSPECIFIED);
        QCOMPARE(lifecycleName(book.get("r01-n03").state), "PRODUCTION");
        ActionOutcome set = book.set("r01-n03", v1::TRAY_LIFECYCLE_TRIAGE, "alice", "alice: 3 Xid 79 this week");
        QVERIFY(set.succeeded);
        QCOMPARE(set.message, "r01-n03: PRODUCTION (never set) -> TRIAGE");
        QCOMPARE(book.takeChanged(), (std::vector<std::string>{"r01-n03"}));
        QVERIFY(book.takeChanged().empty());
        now = 5000;
        set = book.set("r01-n03", v1::TRAY_LIFECYCLE_TRIAGE, "bob", "bob: again");
        QVERIFY(set.succeeded);
        QCOMPARE(set.message, "r01-n03 is already TRIAGE; nothing changed");
        QVERIFY(book.takeChanged().empty());
        const LifecycleEntry entry = book.get("r01-n03");
        QCOMPARE(entry.setBy, "alice");  // the no-op changed nothing, not even who or since when
        QCOMPARE(entry.sinceUnixMs, 1000);
        QVERIFY(setByPerson(entry));
        QCOMPARE(book.outOfProduction(), std::size_t(1));
        // PRODUCTION on a tray never set is a change: a person vouched for it.
        QCOMPARE(book.set("r01-n04", v1::TRAY_LIFECYCLE_PRODUCTION, "alice", "alice: x").message,
                 "r01-n04: PRODUCTION (never set) -> PRODUCTION");
        QCOMPARE(book.takeChanged(), (std::vector<std::string>{"r01-n04"}));
        QCOMPARE(book.set("r01-n04", v1::TRAY_LIFECYCLE_PRODUCTION, "bob", "bob: x").message,
                 "r01-n04 is already PRODUCTION; nothing changed");
        book.set("r01-n05", v1::TRAY_LIFECYCLE_RMA, "auto", "auto: lemon");
        QVERIFY(!setByPerson(book.get("r01-n05")));
        QCOMPARE(book.outOfProduction(), std::size_t(2));
        book.restore("r09-n01", v1::TRAY_LIFECYCLE_BURN_IN, "carol", "carol: new board", 42);
        QCOMPARE(book.takeChanged(), (std::vector<std::string>{"r01-n05", "r09-n01"}));
        QCOMPARE(lifecycleTransitionFrom(v1::TRAY_LIFECYCLE_UNSPECIFIED), "PRODUCTION (never set)");
        QCOMPARE(book.get("r09-n01").sinceUnixMs, 42);
    }

    void failureFileKeepsTheNewestKPerTray() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("audit.jsonl.lemon-failures").toStdString();
        const LemonFailureFile file(path, 3);
        auto isTray = [](const std::string& name) { return name.rfind("r0", 0) == 0; };
        QVERIFY(!file.load(isTray).found);  // a first start
        LemonDetector lemons({3, std::chrono::hours(24)});
        for (std::int64_t t : {1, 2, 3, 4}) lemons.failure("r01-n03", t * kHourMs);
        lemons.failure("r02-n01", 5 * kHourMs);
        LemonFailureSnapshot saved{6 * kHourMs, 1'800'000'000'000, lemons.failures()};
        QCOMPARE(file.save(saved), std::string());
        const LemonFailureLoad loaded = file.load(isTray);
        QVERIFY(loaded.found);
        QCOMPARE(loaded.error, std::string());
        QCOMPARE(loaded.skippedLines, std::size_t(0));
        QCOMPARE(loaded.snapshot.savedClockMs, 6 * kHourMs);
        QCOMPARE(loaded.snapshot.savedWallMs, 1'800'000'000'000);
        // Four failures in the window; three decide the lemon: the newest three are kept.
        QCOMPARE(loaded.snapshot.failures.at("r01-n03"),
                 (std::deque<std::int64_t>{2 * kHourMs, 3 * kHourMs, 4 * kHourMs}));
        QCOMPARE(loaded.snapshot.failures.at("r02-n01"), (std::deque<std::int64_t>{5 * kHourMs}));
        QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp")));
        // Saving again with a tray vouched for drops it from the file.
        lemons.vouch("r02-n01");
        saved.failures = lemons.failures();
        QCOMPARE(file.save(saved), std::string());
        QCOMPARE(file.load(isTray).snapshot.failures.count("r02-n01"), std::size_t(0));
    }

    void failureFileSkipsBadLinesAndRefusesForeignFiles() {
        QTemporaryDir dir;
        const QString path = dir.filePath("lemons");
        auto write = [&](const QByteArray& text) {
            QFile f(path);
            return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
        };
        const LemonFailureFile file(path.toStdString(), 2);
        auto isTray = [](const std::string& name) { return name == "r01-n03" || name == "r01-n04"; };
        QVERIFY(
            write("watchfloor-lemon-failures 1\nsaved 5000 9000\n"
                  "r01-n03 1000\n"
                  "r01-n03 x\n"          // not a number
                  "r77-n01 1000\n"       // no such tray (the fleet changed)
                  "r01-n04 6000\n"       // after the save: not a failure this file saw
                  "r01-n04 1000 2000\n"  // too many fields
                  "r01-n03 2000\n"
                  "r01-n03 3000\n"  // a third for k = 2
                  "\n" +
                  QByteArray("r01-n04 ") + QByteArray(600, '1') + "\n"));  // longer than any record
        LemonFailureLoad loaded = file.load(isTray);
        QCOMPARE(loaded.error, std::string());
        QCOMPARE(loaded.snapshot.failures.at("r01-n03"), (std::deque<std::int64_t>{1000, 2000}));
        QCOMPARE(loaded.snapshot.failures.count("r01-n04"), std::size_t(0));
        QCOMPARE(loaded.skippedLines, std::size_t(7));

        for (const QByteArray& foreign :
             {QByteArray("{\"seq\": 1}\n"), QByteArray("watchfloor-lemon-failures 2\nsaved 1 1\n"),
              QByteArray("watchfloor-lemon-failures 1\nr01-n03 1000\n"), QByteArray()}) {
            QVERIFY(write(foreign));
            loaded = file.load(isTray);
            QVERIFY(loaded.found);
            QVERIFY2(loaded.error.find("not read") != std::string::npos, loaded.error.c_str());
            QVERIFY(loaded.snapshot.failures.empty());
        }
        QVERIFY(write(QByteArray("watchfloor-lemon-failures 1\nsaved 1 1\n") +
                      QByteArray(int(LemonFailureFile::kMaxBytes), 'x')));
        loaded = file.load(isTray);
        QVERIFY2(loaded.error.find("more than fleetd ever writes") != std::string::npos, loaded.error.c_str());
        QVERIFY(loaded.snapshot.failures.empty());
    }

    void carriedOverFailuresAgeByTheDowntime() {
        // Saved at clock 10 h (wall W) with a failure at 7 h: 3 h old then.
        const LemonFailureSnapshot saved{10 * kHourMs, 1'800'000'000'000, {}};
        // The twin starts its clock again at 0; fleetd was down 1 h: the failure is 4 h old.
        QCOMPARE(LemonFailureFile::carriedOver(7 * kHourMs, saved, 0, saved.savedWallMs + kHourMs), -4 * kHourMs);
        // A real source's clock is wall time: the failure keeps its time.
        QCOMPARE(LemonFailureFile::carriedOver(7 * kHourMs, saved, 11 * kHourMs, saved.savedWallMs + kHourMs),
                 7 * kHourMs);
        // A wall clock set back does not make a failure younger than when saved.
        QCOMPARE(LemonFailureFile::carriedOver(7 * kHourMs, saved, 0, saved.savedWallMs - kDayMs), -3 * kHourMs);
        // Restored into the detector: counted, flagging nothing; aged out like any other.
        LemonDetector lemons({2, std::chrono::hours(5)});
        lemons.restore("a", -4 * kHourMs);
        QCOMPARE(lemons.recentFailures("a", 0), 1u);
        QVERIFY(!lemons.lemon("a", 0));
        QVERIFY(lemons.failure("a", 0));  // the second within 5 h: a lemon now
        lemons.restore("b", -6 * kHourMs);
        QCOMPARE(lemons.recentFailures("b", 0), 0u);
        lemons.expire(0);
        QCOMPARE(lemons.failures().count("b"), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestLemon)
#include "tst_control_lemon.moc"
