// PolledSource, the thread every real source polls on. The race it exists to fix: the first poll
// finishing just as start() begins to wait. When the count was bumped without the wait's mutex,
// the notification could fall between start()'s look at the count and its wait, and start() slept
// the whole first-poll wait (3 s in fleetd) with a finished poll in hand. The window is short, so
// this test opens it on purpose: it interposes the two pthread calls start() makes on the test's
// thread, delaying its lock until the poll is under way and holding it (mutex taken, count seen as
// 0) at its wait until the poll has finished. A source that counts under the mutex makes the poll
// wait for start() to really be waiting; one that does not is caught sleeping out the whole wait.

#include "CoolingMap.h"
#include "FakeStore.h"
#include "FleetModel.h"
#include "PolledSource.h"
#include "PrometheusSource.h"
#include "RedfishCoolingSource.h"
#include "ScrapeSource.h"

#include <QtTest>

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

#include <cerrno>

#include <atomic>
#include <thread>

using namespace watchfloor::server;
namespace v1 = watchfloor::v1;
using namespace std::chrono_literals;

#if defined(__SANITIZE_THREAD__)
#define WATCHFLOOR_RACE_SEAM 0  // ThreadSanitizer intercepts these calls itself
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WATCHFLOOR_RACE_SEAM 0
#endif
#endif
#ifndef WATCHFLOOR_RACE_SEAM
#define WATCHFLOOR_RACE_SEAM 1
#endif

// The seam: armed per thread, each delay fires once.
namespace race {
thread_local std::chrono::milliseconds delayNextLock{0}, holdNextWait{0};
std::atomic<int> locksDelayed{0}, waitsHeld{0};

void arm(std::chrono::milliseconds lockDelay, std::chrono::milliseconds waitHold) {
    delayNextLock = lockDelay;
    holdNextWait = waitHold;
}
}  // namespace race

#if WATCHFLOOR_RACE_SEAM
using MutexLock = int (*)(pthread_mutex_t*);
// Resolved before main(); a lock taken while resolving it falls back to spinning on trylock.
const MutexLock realMutexLock = reinterpret_cast<MutexLock>(dlsym(RTLD_NEXT, "pthread_mutex_lock"));

extern "C" int pthread_mutex_lock(pthread_mutex_t* mutex) {
    if (race::delayNextLock > 0ms) {
        const auto delay = std::exchange(race::delayNextLock, 0ms);
        ++race::locksDelayed;
        std::this_thread::sleep_for(delay);
    }
    if (realMutexLock) return realMutexLock(mutex);
    int result;
    while ((result = pthread_mutex_trylock(mutex)) == EBUSY) sched_yield();
    return result;
}

extern "C" int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                      const struct timespec* until) {
    using Fn = int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
    static const Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "pthread_cond_clockwait"));
    if (race::holdNextWait > 0ms) {
        const auto hold = std::exchange(race::holdNextWait, 0ms);
        ++race::waitsHeld;
        std::this_thread::sleep_for(hold);
    }
    return real(cond, mutex, clock, until);
}
#endif

namespace {

constexpr auto kFirstPollWait = 2000ms;  // what a lost wake-up costs; a woken start() takes ~0
constexpr auto kWoken = 500ms;           // far above a woken start() on a loaded 2-core machine

// A source whose poll finishes at once (or after `pollTime`), counting what it did.
class CountingSource final : public PolledSource {
public:
    explicit CountingSource(std::chrono::milliseconds period, std::chrono::milliseconds pollTime = 0ms)
        : PolledSource(kFirstPollWait), period_(period), pollTime_(pollTime) {}
    ~CountingSource() override { stop(); }

    const v1::Topology& topology() const override { return topology_; }
    std::atomic<int> steps{0}, beside{0};
    using PolledSource::pollBeside;

private:
    Clock::time_point pollStep() override {
        if (pollTime_ > 0ms) std::this_thread::sleep_for(pollTime_);
        FleetChanges changes;
        changes.events.emplace_back().set_message("poll " + std::to_string(++steps));
        pending().post(changes);
        notePolled();
        return nextPeriod(period_);
    }

    v1::Topology topology_;
    std::chrono::milliseconds period_, pollTime_;
};

template <typename Start>
std::chrono::milliseconds slowestStart(int rounds, Start&& startOne) {
    std::chrono::milliseconds slowest{0};
    for (int i = 0; i < rounds; ++i) {
        const auto began = std::chrono::steady_clock::now();
        startOne();
        slowest = std::max(
            slowest, std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began));
    }
    return slowest;
}

// What a store, a Redfish service and an exporter answer, each after `delay`: an empty vector to
// a query, an empty page to a scrape, a 404 to a Redfish walk (a poll that fails is still a poll).
void answerSlowly(FakeStore& server, std::chrono::milliseconds delay) {
    server.answer([delay](const httplib::Request& request, httplib::Response& response) {
        std::this_thread::sleep_for(delay);
        if (request.path.starts_with("/api/v1/"))
            response.set_content(R"({"status":"success","data":{"resultType":"vector","result":[]}})",
                                 "application/json");
        else if (request.path.starts_with("/redfish/"))
            response.status = 404;
        else
            response.set_content("", "text/plain; version=0.0.4");
    });
}

// start() with the race forced open: its lock comes 30 ms late (the poll already under way), and
// it then holds at its wait, count seen, for 800 ms while the poll (60 ms answers) finishes.
// Returns how long start() took; a lost wake-up takes the hold plus the whole first-poll wait.
template <typename Source>
std::chrono::milliseconds racedStart(Source& source) {
    const int locks = race::locksDelayed, waits = race::waitsHeld;
    race::arm(30ms, 800ms);
    const auto began = std::chrono::steady_clock::now();
    source.start();
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
    race::arm(0ms, 0ms);
    if (race::locksDelayed != locks + 1 || race::waitsHeld != waits + 1)
        qWarning("the race seam did not fire (locks %d, waits %d)", race::locksDelayed - locks,
                 race::waitsHeld - waits);
    return took;
}

v1::Topology oneRack() {
    FleetSpec spec = generatedFleetSpec(1, 1);
    return FleetModel(spec, 0).topology();
}

}  // namespace

class TestPolledSource : public QObject {
    Q_OBJECT

private slots:
    void firstPollWakesStartEveryTime() {
        std::uint64_t polled = 0;
        const auto slowest = slowestStart(400, [&] {
            CountingSource source(1h);
            source.start();
            polled += source.polls() > 0;
        });
        QCOMPARE(polled, std::uint64_t(400));
        QVERIFY2(slowest < kWoken, qPrintable(QString("slowest start() %1 ms").arg(slowest.count())));
    }

    // The real sources on the base: a metrics-store source with no store to ask (its poll is the
    // mapping and the fleet line alone) and a Redfish source whose service refuses at once.
    void realSourcesWakeStartEveryTime() {
        const v1::Topology topology = oneRack();
        std::uint64_t polled = 0;
        auto slowest = slowestStart(200, [&] {
            sources::PrometheusSourceOptions options;
            options.poll = 1h;
            options.firstPollWait = kFirstPollWait;
            sources::PrometheusSource source(topology, options, nullptr);
            source.start();
            polled += source.polls() > 0;
        });
        QCOMPARE(polled, std::uint64_t(200));
        QVERIFY2(slowest < kWoken, qPrintable(QString("metrics store: slowest start() %1 ms").arg(slowest.count())));

        polled = 0;
        slowest = slowestStart(200, [&] {
            redfish::RedfishSourceOptions options;
            options.http.url = "http://127.0.0.1:9";  // discard port: nothing listens, refused at once
            options.http.interval = 1h;
            options.firstPollWait = kFirstPollWait;
            redfish::RedfishCoolingSource source(topology, redfish::CoolingMap(topology, nullptr), options, nullptr);
            source.start();
            polled += source.polls() > 0;
        });
        QCOMPARE(polled, std::uint64_t(200));
        QVERIFY2(slowest < kWoken, qPrintable(QString("Redfish: slowest start() %1 ms").arg(slowest.count())));
    }

    // The race, forced open, on the base and on each of the three real sources.
    void firstPollFinishingAsStartWaitsWakesIt() {
        if (!WATCHFLOOR_RACE_SEAM) QSKIP("the seam would hide these calls from ThreadSanitizer");
        const v1::Topology topology = oneRack();
        FakeStore server(64);  // the scrape source keeps a connection to each of its 36 targets
        answerSlowly(server, 60ms);
        const auto check = [](const char* what, std::chrono::milliseconds took, std::uint64_t polls) {
            QVERIFY2(polls > 0, what);
            QVERIFY2(
                took < kFirstPollWait,
                qPrintable(QString("%1: start() took %2 ms with its first poll done").arg(what).arg(took.count())));
        };
        {
            CountingSource source(1h, 60ms);
            const auto took = racedStart(source);
            check("base", took, source.polls());
            QCOMPARE(race::waitsHeld.load(), 1);  // the seam really held start() at its wait
        }
        {
            sources::PrometheusSourceOptions options;
            options.stores.push_back({});
            options.stores.back().url = server.url();
            options.poll = 1h;
            options.firstPollWait = kFirstPollWait;
            sources::PrometheusSource source(topology, options, nullptr);
            const auto took = racedStart(source);
            check("metrics store", took, source.polls());
        }
        {
            redfish::RedfishSourceOptions options;
            options.http.url = server.url();
            options.http.interval = 1h;
            options.firstPollWait = kFirstPollWait;
            redfish::RedfishCoolingSource source(topology, redfish::CoolingMap(topology, nullptr), options, nullptr);
            const auto took = racedStart(source);
            check("Redfish", took, source.polls());
        }
        {
            sources::ScrapeSourceOptions options;
            options.targets.dcgmUrl = server.url() + "/dcgm/{host}/metrics";
            options.targets.nodeUrl = server.url() + "/node/{host}/metrics";
            options.interval = 1h;
            options.firstRoundWait = kFirstPollWait;
            std::string error;
            auto source = sources::ScrapeSource::create(topology, options, nullptr, &error);
            QVERIFY2(source, error.c_str());
            const auto took = racedStart(*source);
            check("scrape", took, source->polls());
        }
        QCOMPARE(race::waitsHeld.load(), 4);
    }

    void advanceToHandsOverWhatWasPosted() {
        CountingSource source(20ms);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(source.steps >= 3, 10000);
        FleetChanges out;
        source.advanceTo(source.now() + 1h, out);
        QVERIFY(out.events.size() >= 3);
        QCOMPARE(out.events.front().message(), std::string("poll 1"));
        QVERIFY(out.time <= source.now());  // never ahead of the wall clock
        source.stop();
        const int steps = source.steps;
        std::this_thread::sleep_for(100ms);
        QCOMPARE(source.steps.load(), steps);  // stopped means stopped
        source.stop();                         // and again is harmless
    }

    // A poll longer than the period starts the next one at once, never a catch-up burst: 10
    // polls of 60 ms every 20 ms take ~600 ms, not 10 polls in the first 200 ms.
    void overrunningPollsDoNotBurst() {
        CountingSource source(20ms, 60ms);
        const auto began = std::chrono::steady_clock::now();
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(source.steps >= 10, 20000);
        const auto took = std::chrono::steady_clock::now() - began;
        source.stop();
        QVERIFY2(
            took >= 540ms,
            qPrintable(
                QString("10 polls in %1 ms").arg(std::chrono::duration_cast<std::chrono::milliseconds>(took).count())));
    }

    void threadsBesideRunUntilStop() {
        CountingSource source(1h);
        source.pollBeside(10ms, [&] { ++source.beside; });
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(source.beside >= 3, 10000);
        source.stop();
        const int beside = source.beside;
        std::this_thread::sleep_for(100ms);
        QCOMPARE(source.beside.load(), beside);
    }
};

QTEST_GUILESS_MAIN(TestPolledSource)
#include "tst_polled_source.moc"
