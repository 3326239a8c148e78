// --source scrape against exporters that misbehave, on loopback, in the same rounds as good ones
// (the digital twin's pages): exporters that trickle bytes, hang after their headers or before
// answering at all, redirect in a loop or to another host, send a gzip bomb or a body that never
// ends, answer with the wrong Content-Type, are not HTTP, or present a certificate from a CA the
// scraper does not trust; and thousands of targets on closed ports at once. For each: bounded
// time (no scrape outlasts the timeout by more than the loop's slack) and memory (the bomb and
// the endless body stop at --scrape-max-bytes), a clear error naming the target in its health,
// its tray silent with one event, and every good target of the same rounds read, never silent.

#include "BadExporter.h"
#include "SanitizerBuild.h"
#include "ScrapeCollected.h"
#include "ScrapeSource.h"
#include "TwinExporterHarness.h"

#include <QProcess>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

using namespace watchfloor;
using namespace watchfloor::server;
using testing::BadExporter;
using testing::wallMs;
namespace v1 = watchfloor::v1;

namespace {

constexpr auto kTimeout = std::chrono::seconds(2);
constexpr std::size_t kMaxBytes = std::size_t(2) << 20;
constexpr const char* kDcgm = "dcgm-exporter";
constexpr const char* kNode = "node_exporter";

std::size_t rssBytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    return 0;
}

std::string head(int status, const std::string& reason, const std::string& headers) {
    return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n" + headers + "\r\n";
}
const std::string kTextType = "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n";

// `expandedBytes` of exposition text, gzip-compressed: a few hundred kilobytes on the wire.
std::string gzipBomb(std::size_t expandedBytes) {
    std::string block;
    while (block.size() < (1u << 20)) block += "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"bomb\"} 50\n";
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
    std::string out;
    char buffer[1 << 16];
    for (std::size_t fed = 0; fed < expandedBytes; fed += block.size()) {
        z.next_in = reinterpret_cast<Bytef*>(block.data());
        z.avail_in = uInt(block.size());
        const int flush = fed + block.size() >= expandedBytes ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = reinterpret_cast<Bytef*>(buffer);
            z.avail_out = sizeof buffer;
            deflate(&z, flush);
            out.append(buffer, sizeof buffer - z.avail_out);
        } while (z.avail_out == 0);
    }
    deflateEnd(&z);
    return out;
}

// A development CA and its server certificate (localhost, 127.0.0.1), from scripts/dev-ca.
bool makeCa(const QString& dir, QString* error) {
    QProcess ca;
    ca.start("bash", {qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR") + "/scripts/dev-ca", dir});
    if (!ca.waitForFinished(60'000) || ca.exitCode() != 0) {
        *error = "scripts/dev-ca failed: " + QString::fromUtf8(ca.readAllStandardError());
        return false;
    }
    return true;
}

// An https server with `dir`'s certificate, answering every request with the twin's page at `path`.
class TlsExporter {
public:
    TlsExporter(const QString& dir, testing::TwinExporterHarness& twin, std::string path)
        : server_((dir + "/server.crt").toUtf8().constData(), (dir + "/server.key").toUtf8().constData()) {
        server_.Get(".*", [&twin, path](const httplib::Request&, httplib::Response& response) {
            const auto [status, body] = twin.get(path);
            response.status = status;
            response.set_content(body, "text/plain; version=0.0.4");
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        for (int i = 0; i < 500 && !server_.is_running(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ~TlsExporter() {
        server_.stop();
        thread_.join();
    }
    bool ok() const { return server_.is_valid() && port_ > 0; }
    std::string url() const { return "https://127.0.0.1:" + std::to_string(port_) + "/metrics"; }

private:
    httplib::SSLServer server_;
    int port_ = 0;
    std::thread thread_;
};

// Ports on 127.0.0.1 that refuse connections: bound, never listening, held for the test.
class ClosedPorts {
public:
    explicit ClosedPorts(std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) {
            const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in address{};
            address.sin_family = AF_INET;
            address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            socklen_t length = sizeof address;
            if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
                ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
                if (fd >= 0) ::close(fd);
                return;
            }
            fds_.push_back(fd);
            ports_.push_back(ntohs(address.sin_port));
        }
    }
    ~ClosedPorts() {
        for (const int fd : fds_) ::close(fd);
    }
    const std::vector<int>& ports() const { return ports_; }

private:
    std::vector<int> fds_, ports_;
};

sources::ScrapeSourceOptions optionsFor(testing::TwinExporterHarness& twin) {
    sources::ScrapeSourceOptions options;
    const std::string base = "http://" + twin.exporters().address();
    options.targets.dcgmUrl = base + "/dcgm/{host}/metrics";
    options.targets.nodeUrl = base + "/node/{host}/metrics";
    options.interval = std::chrono::seconds(1);
    options.http.timeout = kTimeout;
    options.http.connectTimeout = std::chrono::seconds(1);
    options.http.maxBytes = kMaxBytes;
    // The twin serves every host from one port whose listen backlog is short: a few connections
    // to it at once, many to everyone else.
    options.http.maxConcurrent = 64;
    options.http.maxHostConnections = 4;
    options.flushEvery = std::chrono::milliseconds(50);
    options.frozenAfter = std::chrono::minutes(10);  // the twin holds still; frozen is not this test's subject
    return options;
}

struct Case {
    std::string host;      // whose dcgm-exporter misbehaves
    std::string url;       // where it answers
    std::string expected;  // in its last error; empty: the target is UP (a redirect on its own host, trusted TLS)
};

}  // namespace

class TstScrapeBadTargets : public QObject {
    Q_OBJECT

private slots:
    void eachBadExporterFailsAloneWithItsOwnError() {
        testing::TwinExporterHarness twin;
        QVERIFY2(twin.start(1, {}), qPrintable(twin.error()));
        twin.tick(3);
        const std::string twinBase = "http://" + twin.exporters().address();

        using C = BadExporter::Connection;
        const std::string bomb = gzipBomb(std::size_t(256) << 20);
        std::vector<std::unique_ptr<BadExporter>> servers;
        std::vector<Case> cases;
        auto add = [&](const std::string& host, BadExporter::Behaviour behaviour, const std::string& expected,
                       const std::string& path = "/metrics") {
            servers.push_back(std::make_unique<BadExporter>(std::move(behaviour)));
            cases.push_back({host, servers.back()->url(path), expected});
        };
        // Slow: a byte every 100 ms of a page announced as 1 MB.
        add("r01-n02", BadExporter::everyRequest([](C& c) {
                if (!c.send(head(200, "OK", kTextType + "Content-Length: 1000000\r\n"))) return false;
                while (c.send("#") && c.pause(std::chrono::milliseconds(100))) {}
                return false;
            }),
            "timeout after 2 s waiting for ");
        // Headers, then nothing.
        add("r01-n03", BadExporter::everyRequest([](C& c) {
                if (c.send(head(200, "OK", kTextType + "Content-Length: 5000\r\n"))) c.hang();
                return false;
            }),
            "timeout after 2 s waiting for ");
        // Reads the request, never answers.
        add("r01-n04", BadExporter::everyRequest([](C& c) {
                c.hang();
                return false;
            }),
            "timeout after 2 s waiting for ");
        // Redirects to itself, forever.
        add("r01-n05", BadExporter::everyRequest([](C& c) {
                return c.send(head(302, "Found", "Location: /metrics\r\nContent-Length: 0\r\n"));
            }),
            "more than 3 redirects from ");
        // Redirects to another host (another tray's page, which must not be read as this one's).
        const std::string offHost =
            "http://localhost:" + std::to_string(twin.exporters().port()) + "/dcgm/r01-n01/metrics";
        add("r01-n06", BadExporter::everyRequest([offHost](C& c) {
                return c.send(head(301, "Moved Permanently", "Location: " + offHost + "\r\nContent-Length: 0\r\n"));
            }),
            "redirects to another host (" + offHost + "); refused");
        // Redirects on its own host (another port): followed, read as this tray's.
        const std::string sameHost = twinBase + "/dcgm/r01-n07/metrics";
        add("r01-n07", BadExporter::everyRequest([sameHost](C& c) {
                return c.send(head(307, "Temporary Redirect", "Location: " + sameHost + "\r\nContent-Length: 0\r\n"));
            }),
            "");
        // 256 MiB of metrics text in a few hundred KB of gzip.
        add("r01-n08", BadExporter::everyRequest([&bomb](C& c) {
                return c.send(head(200, "OK",
                                   kTextType + "Content-Encoding: gzip\r\nContent-Length: " +
                                       std::to_string(bomb.size()) + "\r\n") +
                              bomb);
            }),
            "exceeds 2097152 bytes once its gzip encoding is undone (the page size cap, --scrape-max-bytes); refused");
        // A body that never ends (until the reader hangs up).
        add("r01-n09", BadExporter::everyRequest([](C& c) {
                std::string block;
                while (block.size() < 65536) block += "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"} 51\n";
                if (!c.send(head(200, "OK", kTextType + "Connection: close\r\n"))) return false;
                while (c.send(block)) {}
                return false;
            }),
            "exceeds 2097152 bytes (the page size cap, --scrape-max-bytes); refused");
        // Not a metrics page: a login form, and protobuf (which the scraper does not ask for).
        add("r01-n10", BadExporter::everyRequest([](C& c) {
                const std::string body = "<html><body>Please log in</body></html>";
                return c.send(
                    head(200, "OK",
                         "Content-Type: text/html\r\nContent-Length: " + std::to_string(body.size()) + "\r\n") +
                    body);
            }),
            "not a metrics page: Content-Type \"text/html\" from ");
        add("r01-n11", BadExporter::everyRequest([](C& c) {
                return c.send(head(200, "OK",
                                   "Content-Type: application/vnd.google.protobuf; "
                                   "proto=io.prometheus.client.MetricFamily; encoding=delimited\r\n"
                                   "Content-Length: 4\r\n") +
                              std::string("\x0a\x02\x08\x01", 4));
            }),
            "not a metrics page: Content-Type \"application/vnd.google.protobuf; ");
        // Not HTTP at all.
        add(
            "r01-n14",
            [](C& c) {
                if (c.readRequest()) c.send("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n");
            },
            "");  // checked below: names the target, whatever libcurl calls it
        // Headers that never end.
        add("r01-n15", BadExporter::everyRequest([](C& c) {
                if (!c.send("HTTP/1.1 200 OK\r\n")) return false;
                for (int i = 0; c.send("X-Padding-" + std::to_string(i) + ": " + std::string(200, 'a') + "\r\n"); ++i) {
                }
                return false;
            }),
            "");
        // A 200 text page of garbage.
        add("r01-n16", BadExporter::everyRequest([](C& c) {
                const std::string body = "\x01\x02 not { a metric\n}}}\n=== 12\n";
                return c.send(head(200, "OK", kTextType + "Content-Length: " + std::to_string(body.size()) + "\r\n") +
                              body);
            }),
            "no metrics on the page: ");
        for (const auto& s : servers) QVERIFY(s->ok());

        // TLS: the scraper trusts one development CA; one exporter's certificate is from another.
        QTemporaryDir dir;
        QString error;
        QVERIFY2(makeCa(dir.filePath("trusted"), &error) && makeCa(dir.filePath("other"), &error), qPrintable(error));
        TlsExporter untrusted(dir.filePath("other"), twin, "/dcgm/r01-n12/metrics");
        TlsExporter trusted(dir.filePath("trusted"), twin, "/dcgm/r01-n13/metrics");
        QVERIFY(untrusted.ok() && trusted.ok());
        cases.push_back({"r01-n12", untrusted.url(), "TLS failure with " + untrusted.url() + ": "});
        cases.push_back({"r01-n13", trusted.url(), ""});

        QTemporaryDir targetsDir;
        const std::string targetsFile = targetsDir.filePath("targets").toStdString();
        {
            std::ofstream out(targetsFile);
            for (const auto& c : cases) out << "host " << c.host << " dcgm=" << c.url << "\n";
        }
        sources::ScrapeSourceOptions options = optionsFor(twin);
        options.targets.targetsFile = targetsFile;
        options.http.caFile = dir.filePath("trusted/ca.crt").toStdString();
        std::string createError;
        auto source = sources::ScrapeSource::create(twin.topology(), options, {}, &createError);
        QVERIFY2(source, createError.c_str());
        const std::size_t rssBefore = rssBytes();
        source->start();
        testing::ScrapeCollected got;

        std::set<std::string> badHosts, goodHosts;
        for (const auto& c : cases)
            if (!c.expected.empty() || c.host == "r01-n14" || c.host == "r01-n15") badHosts.insert(c.host);
        for (const auto& node : twin.topology().nodes())
            if (!badHosts.count(node.hostname())) goodHosts.insert(node.hostname());
        QCOMPARE(goodHosts.size(), std::size_t(18 - 13));

        // Every bad target DOWN (timeouts included, so at least one timeout's worth of rounds),
        // every good GPU read, and a few more rounds on top.
        auto settled = [&] {
            got.take(*source);
            for (const auto& host : badHosts) {
                const auto* t = got.target(twin.entity(host), kDcgm);
                if (!t || t->health() != v1::TARGET_HEALTH_DOWN) return false;
            }
            for (const auto& gpu : twin.topology().gpus())
                if (goodHosts.count(gpu.name().substr(0, 7)) && !got.value(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP))
                    return false;
            return got.status().targets_down() == badHosts.size();
        };
        QTRY_VERIFY2_WITH_TIMEOUT(settled(), qPrintable(got.describe()), 60'000);
        const std::uint64_t roundsSettled = source->rounds();
        QTRY_VERIFY_WITH_TIMEOUT((got.take(*source), source->rounds() >= roundsSettled + 4), 60'000);
        got.take(*source);

        // 1. Each case: its own error, naming its own URL; bounded time.
        for (const auto& c : cases) {
            const std::uint32_t tray = twin.entity(c.host);
            const auto* t = got.target(tray, kDcgm);
            QVERIFY2(t, c.host.c_str());
            const QString what = QString("%1 (%2): health %3, error '%4', %5 s")
                                     .arg(c.host.c_str(), c.url.c_str())
                                     .arg(t->health())
                                     .arg(t->last_error().c_str())
                                     .arg(t->scrape_duration_s());
            QCOMPARE(QString::fromStdString(t->url()), QString::fromStdString(c.url));
            // libcurl ends every transfer at its timeout; the slack is the scrape loop's turn on
            // a loaded machine, not the exporter's pace.
            QVERIFY2(t->scrape_duration_s() < std::chrono::duration<double>(kTimeout).count() + 5.0, qPrintable(what));
            if (!badHosts.count(c.host)) {
                QVERIFY2(t->health() == v1::TARGET_HEALTH_UP && t->last_error().empty(), qPrintable(what));
                continue;
            }
            QVERIFY2(t->health() == v1::TARGET_HEALTH_DOWN, qPrintable(what));
            QVERIFY2(t->last_error().find(c.expected) != std::string::npos, qPrintable(what));
            const bool namesUrl = t->last_error().find(c.url) != std::string::npos;
            QVERIFY2(namesUrl || c.host == "r01-n16", qPrintable(what));  // an empty page's error is about the page
            QVERIFY2(t->last_error().size() < 600 && t->last_error().find('\n') == std::string::npos, qPrintable(what));
            // The tray: silent, its reason the dcgm-exporter's, its node_exporter still read.
            const auto* state = got.state(tray);
            QVERIFY(state);
            QCOMPARE(state->telemetry().state(), v1::TELEMETRY_STATE_SILENT);
            QVERIFY2(state->telemetry().reason().rfind(std::string(kDcgm) + ": ", 0) == 0,
                     state->telemetry().reason().c_str());
            const auto* node = got.target(tray, kNode);
            QVERIFY2(node && node->health() == v1::TARGET_HEALTH_UP, c.host.c_str());
            qInfo("%s", qPrintable(what));
        }

        // 2. Nothing of a bad page was read: no GPU values for those trays (the bomb and the
        // endless body are real metrics lines, cut off at the cap and dropped whole); their node
        // pages were.
        for (const auto& gpu : twin.topology().gpus()) {
            const std::string host = gpu.name().substr(0, 7);
            const auto read = got.value(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP);
            if (badHosts.count(host)) {
                QVERIFY2(!read, gpu.name().c_str());
                continue;
            }
            // The good ones (a redirect on the host and trusted TLS included) match the twin.
            QVERIFY2(read, gpu.name().c_str());
            // dcgm-exporter prints temperatures as whole degrees.
            QVERIFY2(std::fabs(read->first - twin.latest(gpu.name(), v1::DCGM_FI_DEV_GPU_TEMP)) <= 1.0,
                     gpu.name().c_str());
        }
        for (const auto& host : badHosts)
            QVERIFY2(got.value(twin.entity(host + "-ib0"), v1::IB_LINK_DOWNED_COUNTER), host.c_str());

        // 3. One event per bad tray, none for a good one, and no good tray ever flapped.
        const auto silent = got.events("source_silent");
        std::set<std::string> silentHosts;
        for (const auto& e : silent)
            for (const auto& host : badHosts)
                if (e.entity_index() == twin.entity(host)) silentHosts.insert(host);
        QCOMPARE(silent.size(), badHosts.size());
        QVERIFY(silentHosts == badHosts);
        QVERIFY(got.events("source_live").empty());
        for (const auto& host : goodHosts) {
            const auto* state = got.state(twin.entity(host));
            QVERIFY2(state && state->telemetry().state() == v1::TELEMETRY_STATE_LIVE, host.c_str());
        }
        QCOMPARE(got.status().targets_up(), std::uint32_t(36 - badHosts.size()));
        QCOMPARE(got.status().health(), v1::SOURCE_HEALTH_DEGRADED);

        // 4. Memory: the bomb (256 MiB expanded, every round) and the endless body never held
        // more than the cap.
        const std::size_t grown = rssBytes() > rssBefore ? rssBytes() - rssBefore : 0;
        qInfo("RSS grew %.1f MiB over %llu rounds", double(grown) / (1 << 20),
              static_cast<unsigned long long>(source->rounds()));
        if (testing::kRssBoundsHold) QVERIFY2(grown < (std::size_t(96) << 20), qPrintable(QString::number(grown)));
        source->stop();
    }

    void thousandsOfClosedPortsBesideLiveTargets() {
        // 84 racks' trays (3,024 targets): the first rack's exporters are the twin's, every other
        // target a port on 127.0.0.1 that refuses connections.
        testing::TwinExporterHarness twin;
        QVERIFY2(twin.start(1, {}), qPrintable(twin.error()));
        twin.tick(3);
        sim::SimConfig config;
        config.seed = 7;
        config.racks = 84;
        config.regions = 1;
        ConfigError configError;
        const auto big = sim::DigitalTwin::create(config, &configError);
        QVERIFY2(big, configError.toString().c_str());
        const v1::Topology topology = big->topology();

        std::size_t deadTrays = 0;
        for (const auto& node : topology.nodes()) deadTrays += node.hostname().rfind("r01-", 0) != 0;
        ClosedPorts closed(2 * deadTrays);
        QCOMPARE(closed.ports().size(), 2 * deadTrays);
        QTemporaryDir dir;
        const std::string targetsFile = dir.filePath("targets").toStdString();
        std::map<std::string, std::pair<std::string, std::string>> deadUrls;
        {
            std::ofstream out(targetsFile);
            std::size_t p = 0;
            for (const auto& node : topology.nodes()) {
                if (node.hostname().rfind("r01-", 0) == 0) continue;
                auto& urls = deadUrls[node.hostname()];
                urls.first = "http://127.0.0.1:" + std::to_string(closed.ports()[p++]) + "/metrics";
                urls.second = "http://127.0.0.1:" + std::to_string(closed.ports()[p++]) + "/metrics";
                out << "host " << node.hostname() << " dcgm=" << urls.first << " node=" << urls.second << "\n";
            }
        }
        QVERIFY(deadUrls.size() >= 1400);
        sources::ScrapeSourceOptions options = optionsFor(twin);
        options.targets.targetsFile = targetsFile;
        options.http.maxConcurrent = 256;  // the default
        std::string createError;
        auto source = sources::ScrapeSource::create(topology, options, {}, &createError);
        QVERIFY2(source, createError.c_str());
        QCOMPARE(source->targetCount(), 2 * topology.nodes_size());
        const std::size_t rssBefore = rssBytes();
        source->start();
        testing::ScrapeCollected got;

        auto findEntity = [&](const std::string& name) {
            for (const auto& node : topology.nodes())
                if (node.name() == name) return node.index();
            return UINT32_MAX;
        };
        auto settled = [&] {
            got.take(*source);
            if (got.status().targets_down() != 2 * deadUrls.size() || got.status().targets_up() != 36) return false;
            for (const auto& gpu : topology.gpus())
                if (gpu.name().rfind("r01-", 0) == 0 && !got.value(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP)) return false;
            return true;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(settled(), qPrintable(got.describe()), 90'000);
        const std::uint64_t roundsSettled = source->rounds();
        QTRY_VERIFY_WITH_TIMEOUT((got.take(*source), source->rounds() >= roundsSettled + 3), 60'000);
        got.take(*source);
        qInfo("%s; last round %.2f s", qPrintable(got.describe()), got.status().last_poll_duration_s());

        // Every dead target: refused, naming its own port.
        for (const auto& [host, urls] : deadUrls) {
            const std::uint32_t tray = findEntity(host);
            for (const auto& [exporter, url] : {std::pair{kDcgm, urls.first}, std::pair{kNode, urls.second}}) {
                const auto* t = got.target(tray, exporter);
                QVERIFY2(t, host.c_str());
                QVERIFY2(t->health() == v1::TARGET_HEALTH_DOWN && t->last_error() == "connection refused by " + url,
                         qPrintable(QString("%1 %2: %3").arg(host.c_str(), exporter, t->last_error().c_str())));
            }
        }
        // One event per dead tray, not per target; the live rack never silent, its values read.
        QCOMPARE(got.events("source_silent").size(), deadUrls.size());
        QCOMPARE(got.status().hosts_silent(), std::uint32_t(deadUrls.size()));
        QVERIFY(got.events("source_live").empty());
        for (const auto& gpu : topology.gpus()) {
            if (gpu.name().rfind("r01-", 0) != 0) continue;
            const auto read = got.value(gpu.index(), v1::DCGM_FI_DEV_GPU_TEMP);
            QVERIFY2(read, gpu.name().c_str());
            QVERIFY2(std::fabs(read->first - twin.latest(gpu.name(), v1::DCGM_FI_DEV_GPU_TEMP)) <= 1.0,
                     gpu.name().c_str());
        }
        QCOMPARE(got.status().health(), v1::SOURCE_HEALTH_DEGRADED);

        const std::size_t grown = rssBytes() > rssBefore ? rssBytes() - rssBefore : 0;
        qInfo("RSS grew %.1f MiB with %zu targets", double(grown) / (1 << 20), source->targetCount());
        if (testing::kRssBoundsHold) QVERIFY2(grown < (std::size_t(128) << 20), qPrintable(QString::number(grown)));
        source->stop();
    }
};

QTEST_GUILESS_MAIN(TstScrapeBadTargets)
#include "tst_scrape_bad_targets.moc"
