// Lemon trays and the lifecycle record: LemonDetector counts a tray's failures in a sliding window
// (k-th failure within it flags the tray, once; failures age out; a person's PRODUCTION starts it
// again), --lemon K/WINDOW and its refusals, and TrayLifecycleBook's idempotent set with its
// change notifications.
#include "CountPerWindow.h"
#include "LemonDetector.h"
#include "TrayLifecycle.h"

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
        QVERIFY(lemons.failure("r01-n03", 6 * kDayMs));   // the third within 7 days
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
};

QTEST_GUILESS_MAIN(TestLemon)
#include "tst_control_lemon.moc"
