// reconnect_bench: how soon a war-room console is live again after fleetd comes back (issue 14,
// item 7).
//
// Runs the console in this process, offscreen: EndpointConnection → FleetStore → MainWindow as
// a war-room wall (read-only, rotating pages, 1920×1080), against a real fleetd that it kills,
// terminates and starts again on the same loopback port. For every return it measures, from the
// moment fleetd printed its "listening on" line:
//   live   the connection is Live again (the new stream's first message accepted);
//   clean  the wall shows no banner again, no other window or dialog is open, and the page sits
//          where it sat before the outage (no chrome pushed it down);
// and counts the Subscribe calls sent while fleetd was away (the console must only probe).
//
// Scenarios, in this order:
//   --restarts N        N kills (SIGKILL), each followed by --outage (default 2s) of silence
//   --outages LIST      one kill per outage, e.g. 2s,1m,10m,1h
//   --soak-hours H      H simulated hours of war room at fleetd's --speed: fleetd restarted
//                       (SIGTERM) every simulated hour and killed once, half-way, for --soak-kill
//                       (wall clock, default 10m); RSS every hour; --screenshots DIR keeps the
//                       wall at the start and at the end for comparison
//
//   reconnect_bench [--restarts 20] [--outage 2s] [--outages 2s,1m] [--soak-hours 0] [--speed 60]
//                   [--soak-kill 10m] [--probe-interval 1000] [--screenshots DIR] [--fleetd PATH]
//                   [-- FLEETD ARGS...]
//
// Target: live again ≤ 2 s p99 after fleetd listens, for outages from 2 s to 1 h; no Subscribe
// while fleetd is away; no chrome left; RSS flat.

#include "BenchMeasures.h"
#include "reconnect_bench_fleetd.h"

#include "ConnectionBanner.h"
#include "MainWindow.h"
#include "Page.h"
#include "PageId.h"

#include "EndpointConnection.h"
#include "FleetStore.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>

namespace {

using namespace watchfloor;
namespace v1 = watchfloor::v1;
using bench::SteadyClock;
using namespace std::chrono_literals;

constexpr double kLiveTargetMs = 2000.0;  // issue 14: live again within 2 s p99 after fleetd listens
constexpr auto kStartTimeout = std::chrono::seconds(120);
constexpr auto kLiveTimeout = std::chrono::seconds(120);

struct Options {
    int restarts = 20;
    std::chrono::milliseconds outage = 2s;
    std::vector<std::chrono::milliseconds> outages{2s, 60s};
    int soakHours = 0;
    double speed = 60;
    std::chrono::milliseconds soakKill = std::chrono::minutes(10);
    std::chrono::milliseconds probeInterval{1000};
    QString screenshots;
    QString fleetd;
    QStringList fleetdArgs;
};

[[noreturn]] void usage(const QString& problem) {
    std::fprintf(stderr,
                 "reconnect_bench: %s\n"
                 "usage: reconnect_bench [--restarts N] [--outage D] [--outages D,D,...] [--soak-hours H] [--speed X]\n"
                 "                       [--soak-kill D] [--probe-interval MS] [--screenshots DIR] [--fleetd PATH]\n"
                 "                       [-- FLEETD ARGS...]\n"
                 "  durations: 500ms, 2s, 1m, 10m, 1h; --restarts 0 or --outages none skip that scenario\n",
                 qPrintable(problem));
    std::exit(2);
}

std::optional<std::chrono::milliseconds> parseDuration(const QString& text) {
    static const QRegularExpression pattern(QStringLiteral("^(\\d+(?:\\.\\d+)?)(ms|s|m|h)$"));
    const auto match = pattern.match(text.trimmed());
    if (!match.hasMatch()) return std::nullopt;
    const double value = match.captured(1).toDouble();
    const QString unit = match.captured(2);
    const double ms = unit == QLatin1String("ms")  ? value
                      : unit == QLatin1String("s") ? value * 1e3
                      : unit == QLatin1String("m") ? value * 60e3
                                                   : value * 3600e3;
    return std::chrono::milliseconds(std::llround(ms));
}

Options parseOptions(const QStringList& args) {
    Options o;
    o.fleetd = qEnvironmentVariable("FLEETD_BIN", QStringLiteral(FLEETD_DEFAULT_PATH));
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString flag = args[i];
        if (flag == QLatin1String("--")) {
            o.fleetdArgs = args.mid(i + 1);
            break;
        }
        if (flag == QLatin1String("--help") || flag == QLatin1String("-h"))
            usage(QStringLiteral("measures how soon a war-room console is live again after fleetd returns"));
        if (i + 1 >= args.size()) usage(flag + QStringLiteral(": missing value"));
        const QString value = args[++i];
        bool ok = true;
        auto duration = [&](std::chrono::milliseconds& out) {
            const auto d = parseDuration(value);
            ok = d.has_value();
            if (ok) out = *d;
        };
        if (flag == QLatin1String("--restarts"))
            o.restarts = value.toInt(&ok);
        else if (flag == QLatin1String("--outage"))
            duration(o.outage);
        else if (flag == QLatin1String("--outages")) {
            o.outages.clear();
            if (value != QLatin1String("none")) {
                for (const QString& part : value.split(QLatin1Char(','))) {
                    std::chrono::milliseconds d{};
                    const auto parsed = parseDuration(part);
                    ok = ok && parsed.has_value();
                    if (parsed) d = *parsed;
                    o.outages.push_back(d);
                }
            }
        } else if (flag == QLatin1String("--soak-hours"))
            o.soakHours = value.toInt(&ok);
        else if (flag == QLatin1String("--speed"))
            o.speed = value.toDouble(&ok);
        else if (flag == QLatin1String("--soak-kill"))
            duration(o.soakKill);
        else if (flag == QLatin1String("--probe-interval"))
            o.probeInterval = std::chrono::milliseconds(value.toInt(&ok));
        else if (flag == QLatin1String("--screenshots"))
            o.screenshots = value;
        else if (flag == QLatin1String("--fleetd"))
            o.fleetd = value;
        else
            usage(QStringLiteral("unknown option ") + flag);
        if (!ok) usage(QStringLiteral("%1: bad value \"%2\"").arg(flag, value));
    }
    if (o.restarts < 0 || o.soakHours < 0 || o.speed <= 0 || o.probeInterval < 100ms)
        usage(QStringLiteral("counts must not be negative, --speed positive, --probe-interval at least 100"));
    return o;
}

using bench::loadAverage;
using bench::millis;
using bench::percentile;
using bench::residentMiB;

QString describe(std::chrono::milliseconds d) {
    if (d >= 1h && d % 1h == 0ms) return QStringLiteral("%1 h").arg(d / 1h);
    if (d >= 1min && d % 1min == 0ms) return QStringLiteral("%1 min").arg(d / 1min);
    return QStringLiteral("%1 s").arg(double(d.count()) / 1000.0, 0, 'f', d % 1s == 0ms ? 0 : 1);
}

// One return of fleetd, measured.
struct Return {
    double liveMs = std::numeric_limits<double>::quiet_NaN();
    double cleanMs = std::numeric_limits<double>::quiet_NaN();
    quint64 subscribesWhileAway = 0;
    QString chromeProblem;  // empty: nothing left on screen
    double rssMiB = 0;
};

// The console under test and the fleetd it watches.
class Rig {
public:
    explicit Rig(const Options& options)
        : m_fleetd(options.fleetd,
                   QStringList{QStringLiteral("--speed"), QString::number(options.speed), QStringLiteral("--seed"),
                               QStringLiteral("7")} +
                       options.fleetdArgs,
                   bench::freePort()) {
        client::EndpointConfig config;
        config.target = m_fleetd.target();
        config.detail = v1::DETAIL_LEVEL_STANDARD;  // what a wall display subscribes to
        config.probeInterval = options.probeInterval;
        m_connection = std::make_unique<client::EndpointConnection>(config);
        m_store.attach(m_connection.get());
        QObject::connect(m_connection.get(), &client::EndpointConnection::stateChanged, m_connection.get(),
                         [this](client::ConnectionState state) {
                             if (state == client::ConnectionState::Live) m_liveAt = SteadyClock::now();
                         });
        ui::PageContext context;
        context.store = &m_store;
        context.connections = {m_connection.get()};
        ui::MainWindowOptions wall;
        wall.wallDisplay = true;
        wall.rotateInterval = 10s;
        m_window = std::make_unique<ui::MainWindow>(context, wall);
        m_window->setAttribute(Qt::WA_DontShowOnScreen);
        m_window->resize(1920, 1080);
        m_window->show();
    }

    // Starts fleetd and the console; the first live picture is the reference for "no chrome".
    QString begin() {
        m_fleetd.start();
        if (!waitUntil([this] { return m_fleetd.listenedAt().has_value(); }, kStartTimeout))
            return QStringLiteral("fleetd did not listen within %1 s: %2")
                .arg(kStartTimeout.count())
                .arg(m_fleetd.lastOutput());
        m_connection->start();
        if (!waitUntil([this] { return clean(); }, kLiveTimeout))
            return QStringLiteral("the console did not go live: %1").arg(m_connection->statusText());
        pause(3s);  // first snapshot applied, pages laid out
        m_pageTop = pageTop();
        return {};
    }

    // fleetd away for `outage` (killed, or terminated as for a restart), then back.
    std::optional<Return> cycle(bool kill, std::chrono::milliseconds outage, QString* error) {
        if (!waitUntil([this] { return clean(); }, kLiveTimeout)) {
            *error = QStringLiteral("not live before the outage: %1").arg(m_connection->statusText());
            return std::nullopt;
        }
        const quint64 streamsBefore = m_connection->stats().streamsOpened;
        if (kill)
            m_fleetd.kill();
        else
            m_fleetd.terminate();
        pause(outage);
        Return r;
        r.subscribesWhileAway = m_connection->stats().streamsOpened - streamsBefore;
        m_liveAt.reset();
        m_fleetd.start();
        if (!waitUntil([this] { return m_fleetd.listenedAt().has_value(); }, kStartTimeout)) {
            *error = QStringLiteral("fleetd did not listen again: %1").arg(m_fleetd.lastOutput());
            return std::nullopt;
        }
        const SteadyClock::time_point listened = *m_fleetd.listenedAt();
        if (!waitUntil([this] { return m_liveAt.has_value(); }, kLiveTimeout)) {
            *error = QStringLiteral("not live %1 s after fleetd listened: %2")
                         .arg(kLiveTimeout.count())
                         .arg(m_connection->statusText());
            return std::nullopt;
        }
        r.liveMs = millis(*m_liveAt - listened);
        if (waitUntil([this] { return clean(); }, 30s)) r.cleanMs = millis(SteadyClock::now() - listened);
        r.chromeProblem = chromeProblem();
        r.rssMiB = residentMiB();
        return r;
    }

    void pause(std::chrono::milliseconds d) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < d.count())
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents,
                                            int(std::min<qint64>(50, d.count() - t.elapsed())));
    }

    bool saveScreenshot(const QString& path) { return m_window->grab().save(path, "PNG"); }
    const client::EndpointConnection& connection() const { return *m_connection; }

private:
    bool waitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
        QElapsedTimer t;
        t.start();
        while (!done()) {
            if (t.elapsed() > timeout.count()) return false;
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
        }
        return true;
    }

    bool clean() const {
        return m_store.endpointState(0) == client::ConnectionState::Live &&
               !m_window->connectionBanner()->isVisible() && chromeProblem().isEmpty();
    }

    int pageTop() const {
        const ui::Page* page = m_window->currentPage();
        return page ? page->mapTo(m_window.get(), QPoint(0, 0)).y() : -1;
    }

    // What an operator would see that should not be there once fleetd is back.
    QString chromeProblem() const {
        for (QWidget* w : QApplication::topLevelWidgets()) {
            if (w != m_window.get() && w->isVisible() && !w->inherits("QToolTip") && w->windowType() != Qt::ToolTip)
                return QStringLiteral("a %1 '%2' is open")
                    .arg(QString::fromLatin1(w->metaObject()->className()), w->windowTitle());
        }
        if (QApplication::activeModalWidget()) return QStringLiteral("a modal dialog is open");
        if (m_window->connectionBanner()->isVisible())
            return QStringLiteral("the banner still shows: %1").arg(m_window->connectionBanner()->text());
        if (m_pageTop >= 0 && pageTop() != m_pageTop)
            return QStringLiteral("the page starts at y=%1, not %2 as before").arg(pageTop()).arg(m_pageTop);
        return {};
    }

    bench::RestartableFleetd m_fleetd;
    client::FleetStore m_store;
    std::unique_ptr<client::EndpointConnection> m_connection;
    std::unique_ptr<ui::MainWindow> m_window;
    std::optional<SteadyClock::time_point> m_liveAt;
    int m_pageTop = -1;
};

void printHeader(const QString& title) { std::printf("\n%s\n", qPrintable(title)); }

void printRow(const QString& measure, const QString& value, const QString& target, bool pass) {
    std::printf("  %-52s %-34s %-12s %s\n", qPrintable(measure), qPrintable(value), qPrintable(target),
                pass ? "PASS" : "SHORT");
}

QString ms(double v) {
    return std::isfinite(v) ? QString::number(v, 'f', 0) + QStringLiteral(" ms") : QStringLiteral("never");
}

// p50 / p99 / max of live and clean over a set of returns, and what was sent while away.
bool summarize(const QString& what, const std::vector<Return>& returns) {
    std::vector<double> live, clean;
    quint64 subscribes = 0;
    QStringList chrome;
    for (const Return& r : returns) {
        live.push_back(r.liveMs);
        clean.push_back(std::isfinite(r.cleanMs) ? r.cleanMs : std::numeric_limits<double>::infinity());
        subscribes += r.subscribesWhileAway;
        if (!r.chromeProblem.isEmpty()) chrome << r.chromeProblem;
    }
    const double liveP99 = percentile(live, 99);
    const double cleanP99 = percentile(clean, 99);
    bool pass = liveP99 <= kLiveTargetMs;
    printRow(QStringLiteral("%1: live again (p50 / p99 / max)").arg(what),
             QStringLiteral("%1 / %2 / %3").arg(ms(percentile(live, 50)), ms(liveP99), ms(percentile(live, 100))),
             QStringLiteral("p99 ≤ 2 s"), liveP99 <= kLiveTargetMs);
    printRow(QStringLiteral("%1: wall clean again (p50 / p99 / max)").arg(what),
             QStringLiteral("%1 / %2 / %3").arg(ms(percentile(clean, 50)), ms(cleanP99), ms(percentile(clean, 100))),
             QStringLiteral("p99 ≤ 2 s"), cleanP99 <= kLiveTargetMs);
    pass = pass && cleanP99 <= kLiveTargetMs;
    printRow(QStringLiteral("%1: Subscribe calls while fleetd was away").arg(what), QString::number(subscribes),
             QStringLiteral("0"), subscribes == 0);
    printRow(QStringLiteral("%1: chrome or dialog left after a return").arg(what),
             chrome.isEmpty() ? QStringLiteral("none") : chrome.first(), QStringLiteral("none"), chrome.isEmpty());
    std::fflush(stdout);
    return pass && subscribes == 0 && chrome.isEmpty();
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const Options options = parseOptions(app.arguments());
    if (!QFile::exists(options.fleetd))
        usage(QStringLiteral("no fleetd at %1 (build it, set FLEETD_BIN or pass --fleetd)").arg(options.fleetd));

    std::printf(
        "reconnect_bench: war-room console (offscreen 1920x1080, pages rotating every 10 s) against fleetd "
        "--speed %g, probe interval %lld ms; load average %s\n",
        options.speed, static_cast<long long>(options.probeInterval.count()), qPrintable(loadAverage()));
    Rig rig(options);
    if (const QString error = rig.begin(); !error.isEmpty()) {
        std::fprintf(stderr, "reconnect_bench: %s\n", qPrintable(error));
        return 1;
    }
    const double rssStart = residentMiB();
    bool pass = true;
    QString error;

    if (options.restarts > 0) {
        printHeader(QStringLiteral("%1 kills, %2 away each").arg(options.restarts).arg(describe(options.outage)));
        std::vector<Return> returns;
        for (int i = 0; i < options.restarts; ++i) {
            const auto r = rig.cycle(true, options.outage, &error);
            if (!r) {
                std::fprintf(stderr, "reconnect_bench: kill %d: %s\n", i + 1, qPrintable(error));
                return 1;
            }
            returns.push_back(*r);
        }
        pass = summarize(QStringLiteral("%1 returns").arg(options.restarts), returns) && pass;
    }

    if (!options.outages.empty()) {
        printHeader(QStringLiteral("One kill per outage"));
        for (const auto outage : options.outages) {
            const auto r = rig.cycle(true, outage, &error);
            if (!r) {
                std::fprintf(stderr, "reconnect_bench: outage %s: %s\n", qPrintable(describe(outage)),
                             qPrintable(error));
                return 1;
            }
            pass = summarize(QStringLiteral("after %1 away").arg(describe(outage)), {*r}) && pass;
        }
    }

    if (options.soakHours > 0) {
        const auto simulatedHour = std::chrono::milliseconds(std::llround(3600e3 / options.speed));
        printHeader(QStringLiteral("Soak: %1 simulated hours at ×%2 (an hour is %3), a restart every hour, one kill "
                                   "for %4 half-way")
                        .arg(options.soakHours)
                        .arg(options.speed)
                        .arg(describe(simulatedHour), describe(options.soakKill)));
        if (!options.screenshots.isEmpty()) {
            QDir().mkpath(options.screenshots);
            rig.saveScreenshot(QDir(options.screenshots).filePath(QStringLiteral("wall-start.png")));
        }
        std::vector<Return> returns;
        std::vector<double> rss{residentMiB()};
        for (int hour = 1; hour <= options.soakHours; ++hour) {
            rig.pause(simulatedHour);
            const bool killHour = hour == (options.soakHours + 1) / 2;
            const auto r = rig.cycle(killHour, killHour ? options.soakKill : 0ms, &error);
            if (!r) {
                std::fprintf(stderr, "reconnect_bench: soak hour %d: %s\n", hour, qPrintable(error));
                return 1;
            }
            returns.push_back(*r);
            rss.push_back(r->rssMiB);
            std::printf("  hour %2d: %s, live again %s, clean %s, RSS %.0f MiB\n", hour,
                        killHour ? qPrintable(QStringLiteral("killed for ") + describe(options.soakKill)) : "restarted",
                        qPrintable(ms(r->liveMs)), qPrintable(ms(r->cleanMs)), r->rssMiB);
            std::fflush(stdout);
        }
        pass = summarize(QStringLiteral("soak, %1 returns").arg(returns.size()), returns) && pass;
        // Flat: the second half grows by no more than 10 % over the first half's peak.
        const std::size_t half = rss.size() / 2;
        const double firstHalfPeak = *std::max_element(rss.begin(), rss.begin() + std::ptrdiff_t(half));
        const double secondHalfPeak = *std::max_element(rss.begin() + std::ptrdiff_t(half), rss.end());
        const bool flat = secondHalfPeak <= 1.10 * firstHalfPeak;
        printRow(QStringLiteral("soak: RSS start / peak 1st half / peak 2nd half"),
                 QStringLiteral("%1 / %2 / %3 MiB")
                     .arg(rss.front(), 0, 'f', 0)
                     .arg(firstHalfPeak, 0, 'f', 0)
                     .arg(secondHalfPeak, 0, 'f', 0),
                 QStringLiteral("flat (≤ +10 %)"), flat);
        pass = pass && flat;
        if (!options.screenshots.isEmpty()) {
            const QString end = QDir(options.screenshots).filePath(QStringLiteral("wall-end.png"));
            rig.saveScreenshot(end);
            std::printf("  screenshots: %s/wall-start.png and wall-end.png\n", qPrintable(options.screenshots));
        }
    }

    printHeader(QStringLiteral("Overall"));
    printRow(QStringLiteral("console RSS at start / now"),
             QStringLiteral("%1 / %2 MiB").arg(rssStart, 0, 'f', 0).arg(residentMiB(), 0, 'f', 0), QStringLiteral("—"),
             true);
    printRow(QStringLiteral("Subscribe streams opened in all (incl. the first)"),
             QString::number(rig.connection().stats().streamsOpened), QStringLiteral("—"), true);
    std::printf("reconnect_bench: %s; load average %s\n", pass ? "all targets met" : "a target was missed",
                qPrintable(loadAverage()));
    return 0;
}
