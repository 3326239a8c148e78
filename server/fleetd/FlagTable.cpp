#include "FlagTable.h"

#include "AlertmanagerHttp.h"
#include "DurationParse.h"
#include "Fail.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>

namespace watchfloor::server::fleetd {

namespace {

using std::chrono::milliseconds;

constexpr std::uint64_t kMaxRacks = 10'000;
constexpr double kMaxSpeed = 1e6;
constexpr milliseconds kDefaultWarmStart = std::chrono::hours(6);
constexpr milliseconds kLongest = milliseconds::max();

// --- Values -------------------------------------------------------------------------------------

bool parseUnsigned(const std::string& text, std::uint64_t low, std::uint64_t high, std::uint64_t* out) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < low || value > high)
        return false;
    *out = value;
    return true;
}

// A whole number in [low, high]; `expected` names it in the message.
template <class Number>
bool whole(const GivenFlag& g, std::uint64_t low, std::uint64_t high, std::string_view expected, Number& out) {
    std::uint64_t n = 0;
    if (!parseUnsigned(g.value, low, high, &n)) return g.expected(expected);
    out = static_cast<Number>(n);
    return true;
}

// A real source's counts: "a number from 1 to 4".
bool count(const GivenFlag& g, std::size_t low, std::size_t high, std::size_t& out) {
    return whole(g, low, high, "a number from " + std::to_string(low) + " to " + std::to_string(high), out);
}

// A duration in [low, high]; `expected` names it in the message.
bool duration(const GivenFlag& g, milliseconds low, milliseconds high, std::string_view expected, milliseconds& out) {
    const auto parsed = parseDuration(g.value);
    if (!parsed || *parsed < low || *parsed > high) return g.expected(expected);
    out = *parsed;
    return true;
}

// The same, kept in whole seconds.
bool seconds(const GivenFlag& g, milliseconds low, milliseconds high, std::string_view expected,
             std::chrono::seconds& out) {
    milliseconds parsed{};
    if (!duration(g, low, high, expected, parsed)) return false;
    out = std::chrono::duration_cast<std::chrono::seconds>(parsed);
    return true;
}

// A real source's durations state their bounds in seconds ("from 1.00 s to 3600 s").
bool sourceDuration(const GivenFlag& g, milliseconds low, milliseconds high, milliseconds& out) {
    return duration(g, low, high,
                    "a duration from " + std::to_string(low.count() / 1000.0).substr(0, 4) + " s to " +
                        std::to_string(high.count() / 1000) + " s such as 15s",
                    out);
}

bool sourceDuration(const GivenFlag& g, milliseconds low, milliseconds high, std::optional<milliseconds>& out) {
    milliseconds parsed{};
    if (!sourceDuration(g, low, high, parsed)) return false;
    out = parsed;
    return true;
}

// A name that must not be empty: a file, a directory, a tenant.
bool named(const GivenFlag& g, std::string& out, std::string_view expected = "a file name") {
    out = g.value;
    return !g.value.empty() || g.expectedWithoutValue(expected);
}

bool validListenAddress(const std::string& address) {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0) return false;
    std::uint64_t port = 0;
    return parseUnsigned(address.substr(colon + 1), 0, 65535, &port);
}

bool listenAddress(const GivenFlag& g, std::string& out) {
    out = g.value;
    return validListenAddress(g.value) || g.expected("HOST:PORT");
}

bool userAndPasswordFile(const GivenFlag& g, std::string& user, std::string& passwordFile) {
    const auto colon = g.value.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == g.value.size())
        return g.expected("USER:PASSWORD-FILE");
    user = g.value.substr(0, colon);
    passwordFile = g.value.substr(colon + 1);
    return true;
}

bool targetUrl(const GivenFlag& g, std::string& out) {
    std::string why;
    if (!sources::validTargetUrl(g.value, &why)) return fail(g.error, std::string(g.flag) + " " + g.value + ": " + why);
    out = g.value;
    return true;
}

// http(s)://host[:port][/prefix], nothing after the path (the API paths are appended).
bool validStoreUrl(const std::string& url) {
    const bool http = url.rfind("http://", 0) == 0, https = url.rfind("https://", 0) == 0;
    if (!http && !https) return false;
    const std::string rest = url.substr(https ? 8 : 7);
    return !rest.empty() && rest[0] != '/' && rest.find_first_of("?# ") == std::string::npos;
}

bool addStore(std::string url, SourceFlags& f, std::string* error) {
    while (url.size() > 1 && url.back() == '/') url.pop_back();
    if (!validStoreUrl(url))
        return fail(error,
                    "--source prometheus=URL: expected http(s)://HOST[:PORT][/PATH-PREFIX], got \"" + url + "\"");
    if (std::find(f.prometheusUrls.begin(), f.prometheusUrls.end(), url) != f.prometheusUrls.end())
        return fail(error, "--source prometheus=" + url + " given twice");
    f.prometheusUrls.push_back(url);
    return true;
}

// http(s)://HOST[:PORT], optionally with the service root's path (/redfish/v1), which is dropped:
// every path fleetd asks for comes from the service's own @odata.id links.
bool addRedfishService(std::string url, SourceFlags& f, std::string* error) {
    while (url.size() > 1 && url.back() == '/') url.pop_back();
    for (const char* root : {"/redfish/v1", "/redfish"})
        if (url.size() > std::strlen(root) && url.ends_with(root)) url.resize(url.size() - std::strlen(root));
    const bool https = url.rfind("https://", 0) == 0;
    const std::string rest = url.substr(https ? 8 : url.rfind("http://", 0) == 0 ? 7 : 0);
    if ((!https && url.rfind("http://", 0) != 0) || rest.empty() || rest.find_first_of("/?#@ ") != std::string::npos)
        return fail(error,
                    "--source redfish=URL: expected http(s)://HOST[:PORT] of the CDU or aggregator's Redfish "
                    "service, got \"" +
                        url + "\"");
    if (std::find(f.redfishUrls.begin(), f.redfishUrls.end(), url) != f.redfishUrls.end())
        return fail(error, "--source redfish=" + url + " given twice");
    f.redfishUrls.push_back(url);
    return true;
}

// --source twin|scrape|prometheus=URL|redfish=URL, repeatable.
bool source(const GivenFlag& g) {
    SourceFlags& f = g.cl.sources;
    const std::string& v = g.value;
    if (v == "twin" || v == "simulate") return true;
    if (v == "scrape") {
        if (f.scrape) return fail(g.error, "--source scrape given twice");
        f.scrape = true;
        return true;
    }
    if (v.rfind("redfish=", 0) == 0) return addRedfishService(v.substr(8), f, g.error);
    if (v.rfind("prometheus=", 0) == 0) return addStore(v.substr(11), f, g.error);
    return g.expected("twin, scrape, prometheus=URL or redfish=URL");
}

// --warm-start[=D]: the value only inline, as "--warm-start 6h" would read "6h" as a stray argument.
bool warmStart(const GivenFlag& g) {
    const auto history = g.hasValue ? parseDuration(g.value) : std::optional<milliseconds>(kDefaultWarmStart);
    if (!history || *history < std::chrono::hours(1))
        return fail(g.error, "--warm-start=D: expected a duration of at least 1h such as 6h, got \"" + g.value + "\"");
    g.cl.warmStart = std::chrono::duration_cast<std::chrono::seconds>(*history);
    return true;
}

bool speed(const GivenFlag& g) {
    const std::string& v = g.value;
    double x = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || !std::isfinite(x) || x <= 0 || x > kMaxSpeed)
        return g.expected("a number above 0 and at most 1000000");
    g.cl.speed = x;
    return true;
}

bool failSlowConfirm(const GivenFlag& g) {
    auto& failSlow = g.cl.control.failSlow;
    if (!whole(g, 1, 100, "a whole number of windows from 1 to 100", failSlow.confirmWindows)) return false;
    failSlow.forgetWindows = std::max<std::uint32_t>(failSlow.forgetWindows, 2 * failSlow.confirmWindows);
    return true;
}

template <CommandLine::Mode mode>
bool setMode(const GivenFlag& g) {
    g.cl.mode = mode;
    return true;
}

bool nothing(const GivenFlag&) { return true; }

// --- What flags need of each other ----------------------------------------------------------------

bool twinCl(const CommandLine& cl) { return !cl.sources.realSource(); }
bool serving(const CommandLine& cl) { return cl.mode != CommandLine::Mode::DumpEvents; }

struct Rule {
    Need need;
    bool (*holds)(const CommandLine& cl);
    std::string_view message;  // "{}" stands for the flag
};

// Checked in this order (each over the flags in the order given); the first broken one is the
// message. Flags that only mean something together: a lone one is a typo or a forgotten flag, and
// silently ignoring it would leave an operator believing a safeguard is on.
constexpr Rule kRules[] = {
    {kHeadlessPair, [](const CommandLine& cl) { return cl.simDuration.has_value() == !cl.dumpEventsPath.empty(); },
     "--sim-duration and --dump-events go together (a headless run writes its events)"},
    {kTlsPair, [](const CommandLine& cl) { return cl.control.tls.certPath.empty() == cl.control.tls.keyPath.empty(); },
     "--tls-cert and --tls-key go together"},
    {kTls, [](const CommandLine& cl) { return !cl.control.tls.certPath.empty(); },
     "{} needs --tls-cert and --tls-key (mTLS is TLS that also checks the client)"},
    {kSlurmScheduler,
     [](const CommandLine& cl) { return cl.control.scheduler == control::ControlOptions::Scheduler::Slurm; },
     "{} needs --scheduler slurm"},
    {kAutoDrain, [](const CommandLine& cl) { return cl.control.autoDrain.has_value(); },
     "{} needs --auto-drain N/WINDOW: automation acts behind its circuit breaker"},
    {kTokens, [](const CommandLine& cl) { return cl.controlEnabled(); },
     "{} needs --tokens FILE: operator actions are off without it"},
    // A real source reads the site's fleet: its topology comes from the fleet file's inventory,
    // and the twin's knobs would silently do nothing.
    {kRealSource, [](const CommandLine& cl) { return cl.sources.realSource(); },
     "{} needs --source scrape, prometheus=URL or redfish=URL (the twin is not polled)"},
    {kFleetFile, [](const CommandLine& cl) { return twinCl(cl) || !cl.fleetFile.empty(); },
     "--source scrape, prometheus=URL or redfish=URL needs --fleet FILE: the site's racks and the host names of "
     "their trays (the inventory), their CDUs and leak detectors"},
    {kTwin, twinCl, "{} is for the digital twin; fleetd reads a real source (--source scrape or prometheus=URL)"},
    // The exporter pages publish the twin's state; the flags that shape them need the server.
    {kExporters, [](const CommandLine& cl) { return !cl.exportersListen.empty(); },
     "{} needs --serve-exporters HOST:PORT"},
    {kExportersConfig, [](const CommandLine& cl) { return !cl.exportersConfigDir.empty(); },
     "{} needs --exporters-config DIR"},
    {kNotHeadlessPager, serving, "{} pages from a running fleetd, not a headless --dump-events run"},
    {kNotHeadlessPages, serving, "{} needs a running fleetd, not a headless --dump-events run"},
    {kTwinRedfish, [](const CommandLine& cl) { return serving(cl) && twinCl(cl); },
     "{} publishes the running digital twin's cooling; not with --dump-events or a real source"},
    {kTwinPages, twinCl,
     "{} publishes the digital twin's values; fleetd reads a real source (--source scrape or prometheus=URL)"},
    {kScrape, [](const CommandLine& cl) { return cl.sources.scrape; }, "{} needs --source scrape"},
    {kRedfish, [](const CommandLine& cl) { return !cl.sources.redfishUrls.empty(); }, "{} needs --source redfish=URL"},
    {kStore,
     [](const CommandLine& cl) {
         const SourceFlags& s = cl.sources;
         return !s.prometheusUrls.empty() || s.redfishUrls.empty() || s.scrape;
     },
     "{} needs --source prometheus=URL (--source redfish=URL reads cooling only)"},
    // With the scraper live, a store is read for history only: nothing polls it.
    {kPolledStore, [](const CommandLine& cl) { return !cl.sources.scrape; },
     "{} is for polling a store; with --source scrape the store (--source prometheus=URL) only answers history"},
    {kRedfishTimeoutFits,
     [](const CommandLine& cl) {
         return !cl.sources.redfishTimeout || *cl.sources.redfishTimeout <= cl.sources.redfish.interval;
     },
     "{} must not exceed --redfish-interval (the tree is walked once per interval)"},
    {kScrapeTimeoutFits,
     [](const CommandLine& cl) {
         return !cl.sources.scrapeTimeout || *cl.sources.scrapeTimeout <= cl.sources.scraper.interval;
     },
     "{} must not exceed --scrape-interval (a target is scraped once per interval)"},
    {kSlurmOnRealFleet,
     [](const CommandLine& cl) {
         return twinCl(cl) || cl.control.scheduler == control::ControlOptions::Scheduler::Slurm;
     },
     "operator actions on a real fleet act through Slurm: add --scheduler slurm [--slurm-conf FILE] (or leave out "
     "--tokens)"},
    {kServedRedfish, [](const CommandLine& cl) { return !cl.redfishListen.empty(); },
     "{} needs --serve-redfish HOST:PORT"},
};
// One rule per Need bit, in the bits' order.
constexpr bool oneRulePerNeed() {
    for (std::size_t i = 0; i < std::size(kRules); ++i)
        if (kRules[i].need != 1u << i) return false;
    return std::size(kRules) == std::size_t(std::bit_width(std::uint32_t(kServedRedfish)));
}
static_assert(oneRulePerNeed());

// --- The flags ------------------------------------------------------------------------------------

using enum Section;
using G = const GivenFlag&;
using std::chrono::hours;

constexpr std::uint32_t kStoreFlag = kRealSource | kStore;

// clang-format off
const Flag kFlags[] = {
    {"--listen", "HOST:PORT", ServiceAndTwin, 0,
     [](G g) { return listenAddress(g, g.cl.listenAddress); },
     "address to serve on (default 127.0.0.1:50551; port 0 = any free port)"},
    {"--metrics-listen", "HOST:PORT", ServiceAndTwin, 0,
     [](G g) { return listenAddress(g, g.cl.metricsListen); },
     "also serve Prometheus text at http://HOST:PORT/metrics"},
    {"--alertmanager", "URL", ServiceAndTwin, kNotHeadlessPager,
     [](G g) {
         std::string why;
         g.cl.alertmanagerUrl = paging::normalisedAlertmanagerUrl(g.value, why);
         return !g.cl.alertmanagerUrl.empty() || fail(g.error, "--alertmanager: " + why);
     },
     "push open incidents to this Alertmanager as alerts (API v2, e.g.\n"
     "http://127.0.0.1:9093), resolve them there when they resolve, and\n"
     "turn maintenance windows into its silences; off by default. Alertmanager\n"
     "down: changes are queued (bounded) and retried with backoff; consoles\n"
     "show that paging is not delivered"},
    {"--simulate", "", ServiceAndTwin, kTwin, nothing,
     "use the digital twin as the fleet source (the default)"},
    {"--seed", "N", ServiceAndTwin, kTwin,
     [](G g) { return whole(g, 0, UINT64_MAX, "a whole number", g.cl.seed); },
     "twin random seed (default 1)"},
    {"--racks", "N", ServiceAndTwin, kTwin,
     [](G g) { return whole(g, 1, kMaxRacks, "a whole number from 1 to 10000", g.cl.racks.emplace()); },
     "NVL72 racks in the simulated fleet (1..10000, default 7)"},
    {"--regions", "N", ServiceAndTwin, kTwin,
     [](G g) { return whole(g, 1, kMaxRacks, "a whole number from 1 to 10000", g.cl.regions.emplace()); },
     "regions the racks are spread over (default 2, at most --racks)"},
    {"--fleet", "FILE", ServiceAndTwin, 0,
     [](G g) { return named(g, g.cl.fleetFile); },
     "fleet description file (overrides --racks/--regions)"},
    {"--scenario", "FILE", ServiceAndTwin, kTwin,
     [](G g) { return named(g, g.cl.scenarioFile); },
     "scripted faults to inject"},
    {"--speed", "X", ServiceAndTwin, kTwin, speed,
     "simulated seconds per wall second (default 1; large = flat out)"},
    {"--warm-start", "[=D]", ServiceAndTwin, kTwin, warmStart,
     "the twin's jobs have been training for up to D (default 6h, at least\n"
     "1h) when it starts: mid-run, with goodput history, not all starting"},
    {"--sim-duration", "D", ServiceAndTwin, kHeadlessPair | kTwin,
     [](G g) {
         return duration(g, milliseconds(1), kLongest, "a duration such as 90s, 6h or 54d",
                         g.cl.simDuration.emplace());
     },
     "with --dump-events: simulate D (e.g. 6h, 54d) headless, then exit"},
    {"--dump-events", "FILE", ServiceAndTwin, kHeadlessPair | kTwin,
     [](G g) { return named(g, g.cl.dumpEventsPath, "a file name or -"); },
     "write every event and periodic goodput as JSON Lines (- = stdout)"},
    {"--replay-log-mb", "N", ServiceAndTwin, 0,
     [](G g) { return whole(g, 1, 65536, "a whole number from 1 to 65536", g.cl.replayLogMiB.emplace()); },
     "memory for recent deltas that reconnecting consoles resume from\n"
     "(default 384; a console further behind gets a fresh snapshot)"},
    {"--log-stats", "D", ServiceAndTwin, 0,
     [](G g) { return duration(g, milliseconds(1), kLongest, "an interval such as 10s", g.cl.statsInterval); },
     "log rates, subscribers and replay-log size every D (e.g. 10s)"},
    {"--incident-hold", "D", ServiceAndTwin, 0,
     [](G g) {
         return duration(g, milliseconds(1), hours(24), "a duration from 1s to 24h such as 10m", g.cl.incidentHold);
     },
     "an incident resolves once its members stayed clear for D (default 10m)"},
    {"--serve-exporters", "HOST:PORT", ServiceAndTwin, kNotHeadlessPages | kTwinPages,
     [](G g) { return listenAddress(g, g.cl.exportersListen); },
     "serve every tray's exporter pages from the twin, as a real site's\n"
     "dcgm-exporter and node_exporter would: GET /dcgm/<host>/metrics and\n"
     "/node/<host>/metrics (port 0 = any free port)"},
    {"--exporters-config", "DIR", ServiceAndTwin, kExporters,
     [](G g) { return named(g, g.cl.exportersConfigDir, "a directory"); },
     "write DIR/prometheus.yml and file_sd targets scraping those pages"},
    {"--exporters-scrape-interval", "D", ServiceAndTwin, kExporters | kExportersConfig,
     [](G g) {
         return duration(g, milliseconds(100), hours(1), "a duration from 100ms to 1h such as 15s",
                         g.cl.exportersScrapeInterval);
     },
     "scrape interval written there (default 15s)"},
    {"--exporters-blanks", "omit|sentinel", ServiceAndTwin, kExporters,
     [](G g) {
         if (g.value != "omit" && g.value != "sentinel") return g.expected("omit or sentinel");
         g.cl.exportersBlankSentinels = g.value == "sentinel";
         return true;
     },
     "drop blank DCGM values as dcgm-exporter does (default), or\n"
     "write DCGM's blank sentinels"},
    {"--serve-redfish", "HOST:PORT", ServiceAndTwin, kTwinRedfish,
     [](G g) { return listenAddress(g, g.cl.redfishListen); },
     "serve the twin's cooling as its CDUs' Redfish service would:\n"
     "GET /redfish/v1/ThermalEquipment/CDUs/... (port 0 = any free port),\n"
     "and every compute tray's BMC (Systems/<tray>, ComputerSystem.Reset,\n"
     "TaskService): a reset runs the twin's reboot or power cycle"},
    {"--serve-redfish-credentials", "FILE", ServiceAndTwin, kTwinRedfish | kServedRedfish,
     [](G g) { return named(g, g.cl.redfishCredentialsFile, "a file holding USER:PASSWORD"); },
     "the trays' BMCs ask for HTTP Basic authentication with USER:PASSWORD\n"
     "from FILE (mode 0600); without it they answer anyone"},

    {"--tokens", "FILE", OperatorActions, kSlurmOnRealFleet,
     [](G g) { return named(g, g.cl.control.tokensFile); },
     "bearer tokens: 'token <secret> principal=<name> role=viewer|operator|admin'\n"
     "per line, file mode 0600; each secret at least 16 characters, no\n"
     "secret twice (else exit 2). Callers send the gRPC metadata\n"
     "'authorization: Bearer <secret>' (scheme name in any case).\n"
     "Without it every control call is refused\n"
     "(UNIMPLEMENTED, naming this flag); telemetry is unaffected"},
    {"--audit-log", "FILE", OperatorActions, kTokens,
     [](G g) {
         g.cl.auditLogGiven = true;
         return named(g, g.cl.control.auditLogFile);
     },
     "append-only JSON Lines audit trail, fsync'ed before each action takes\n"
     "effect (default $STATE_DIRECTORY/audit.jsonl under systemd, else\n"
     "$XDG_STATE_HOME or ~/.local/state + /watchfloor/fleetd-audit.jsonl)"},
    {"--tls-cert", "FILE", OperatorActions, kTlsPair,
     [](G g) { return named(g, g.cl.control.tls.certPath, "a PEM file name"); },
     ""},
    {"--tls-key", "FILE", OperatorActions, kTlsPair,
     [](G g) { return named(g, g.cl.control.tls.keyPath, "a PEM file name"); },
     "serve TLS on the listening port (telemetry too)"},
    {"--tls-client-ca", "FILE", OperatorActions, kTls,
     [](G g) { return named(g, g.cl.control.tls.clientCaPath, "a PEM file name"); },
     "with TLS: require client certificates signed by this CA (mTLS)\n"
     "Without TLS, tokens are accepted from loopback peers only."},
    {"--require-approval", "isolate-rack", OperatorActions, kTokens,
     [](G g) { return control::parseRequireApproval(g.value, &g.cl.control, g.error); },
     "rack isolation needs a second operator's approval"},
    {"--approval-ttl", "D", OperatorActions, kTokens,
     [](G g) {
         return seconds(g, std::chrono::seconds(1), hours(24), "a duration from 1s to 24h such as 15m",
                        g.cl.control.approvalTtl);
     },
     "how long a request waits for approval (default 15m, 1s..24h)"},
    {"--scheduler", "sim|slurm", OperatorActions, kTokens,
     [](G g) { return control::parseScheduler(g.value, &g.cl.control, g.error); },
     "where drain/resume/requeue take effect (default sim: the twin)"},
    {"--slurm-conf", "FILE", OperatorActions, kSlurmScheduler | kTokens,
     [](G g) { return named(g, g.cl.control.slurmConf); },
     "with --scheduler slurm: SLURM_CONF for scontrol/sinfo/squeue"},
    {"--repair-output-dir", "DIR", OperatorActions, kSlurmScheduler | kTokens,
     [](G g) { return named(g, g.cl.control.repairOutputDir); },
     "with --scheduler slurm: the folder, shared with the trays, where GPU-reset and\n"
     "diagnostic jobs write their output (default: repair-jobs beside the audit log)"},
    {"--repair-backend", "slurm|redfish|slurm+redfish", OperatorActions, kTokens,
     [](G g) { return control::parseRepairBackend(g.value, &g.cl.control, g.error); },
     "where break/fix steps run (default: the twin under --scheduler sim, Slurm\n"
     "under --scheduler slurm); redfish: reboot and power cycle through each tray's\n"
     "BMC (ComputerSystem.Reset), GPU reset and diagnostics refused;\n"
     "slurm+redfish: those two through Slurm"},
    {"--bmc-url", "TEMPLATE", OperatorActions, kTokens,
     [](G g) { return named(g, g.cl.control.bmcs.urlTemplate, "a URL template such as https://{host}-bmc"); },
     "each tray's BMC, with {node} (the tray), {host} (its hosts= name), {bmc} (its\n"
     "fleet file bmcs= entry), {rack}: e.g. https://{bmc} (without /redfish/v1)"},
    {"--bmc-credentials", "FILE", OperatorActions, kTokens,
     [](G g) { return named(g, g.cl.control.bmcs.credentialsFile); },
     "the BMCs' Basic-auth account: one line USER:PASSWORD, mode 0600"},
    {"--bmc-system", "ID", OperatorActions, kTokens,
     [](G g) { return named(g, g.cl.control.bmcs.systemTemplate, "a system id such as System_0"); },
     "the tray's ComputerSystem id (a template like --bmc-url; default: the only\n"
     "member of /redfish/v1/Systems)"},
    {"--bmc-ca", "FILE", OperatorActions, kTokens,
     [](G g) { return named(g, g.cl.control.bmcs.caFile, "a PEM file name"); },
     "the CA the BMCs' https certificates are checked against (default: the system's)"},
    {"--bmc-task-timeout", "D", OperatorActions, kTokens,
     [](G g) {
         return seconds(g, std::chrono::seconds(1), hours(24), "a duration from 1s to 24h such as 15m",
                        g.cl.control.bmcs.taskTimeout);
     },
     "how long a BMC's reset Task may run before the step fails (default 15m)"},
    {"--auto-drain", "N/WINDOW[,max=P%]", OperatorActions, kTokens,
     [](G g) { return (g.cl.control.autoDrain = control::parseAutoDrain(g.value, g.error)).has_value(); },
     "drain on the Xids fleet policy drains on, as principal 'auto';\n"
     "the circuit breaker trips past N distinct nodes per WINDOW (e.g. 5/10m),\n"
     "or past P % of the fleet's trays (at least 1) when that is fewer\n"
     "(e.g. 5/10m,max=0.5%), and holds until an admin resets it"},
    {"--fail-slow-window", "D", OperatorActions, kTokens,
     [](G g) {
         return seconds(g, std::chrono::seconds(10), hours(24), "a duration from 10s to 24h such as 10m",
                        g.cl.control.failSlow.window);
     },
     "the fail-slow ladder's window (default 10m): a tray reported as a job's\n"
     "straggler (S >= 1.05) in --fail-slow-confirm N distinct windows (default\n"
     "3) is confirmed and proposed for eviction, with its expected gain in\n"
     "GPU-hours/day against the cost of a restart (the job's fail_slow field)"},
    {"--fail-slow-confirm", "N", OperatorActions, kTokens, failSlowConfirm,
     "how many distinct windows confirm a fail-slow tray (default 3, 1..100)"},
    {"--auto-evict-slow", "", OperatorActions, kAutoDrain | kTokens,
     [](G g) { return g.cl.control.autoEvictSlow = true; },
     "drain a confirmed fail-slow tray as 'auto' (audited, behind the\n"
     "--auto-drain breaker, which it needs); the job restarts from its last\n"
     "checkpoint on a spare, without the tray. Off: operators drain it"},
    {"--lemon", "K/WINDOW", OperatorActions, kTokens,
     [](G g) {
         const auto lemon = control::parseLemon(g.value, g.error);
         if (lemon) g.cl.control.lemon = *lemon;
         return lemon.has_value();
     },
     "a tray whose health turns FAILED K times within WINDOW is a lemon and\n"
     "TRIAGE is proposed for it (default 3/7d); the counts survive restarts\n"
     "in AUDIT_LOG.lemon-failures beside the audit log"},
    {"--auto-lifecycle", "", OperatorActions, kAutoDrain | kTokens,
     [](G g) { return g.cl.control.autoLifecycle = true; },
     "automation sets TRIAGE itself (as 'auto', behind the --auto-drain\n"
     "breaker) on a lemon or a tray failing burn-in; off: it only proposes"},
    {"--auto-remediate", "act|dry-run", OperatorActions, kAutoDrain | kTokens,
     [](G g) {
         using Mode = control::ControlOptions::AutoRemediate;
         if (g.value == "act") return (g.cl.control.autoRemediate = Mode::Act), true;
         if (g.value == "dry-run") return (g.cl.control.autoRemediate = Mode::DryRun), true;
         return g.expected("act or dry-run");
     },
     "repair cases of a GPU-reset or restart Xid: automation drains the tray,\n"
     "waits for its jobs, takes the ladder's step (reset, reboot or power\n"
     "cycle), runs diagnostics and resumes it, as 'auto' behind the\n"
     "--auto-drain breaker; never a tray a person holds or has worked on.\n"
     "dry-run: records in the case what it would have done, does nothing"},
    {"--auto-isolate-links", "act|dry-run", OperatorActions, kAutoDrain | kTokens,
     [](G g) {
         using Mode = control::ControlOptions::AutoIsolateLinks;
         if (g.value == "act") return (g.cl.control.autoIsolateLinks = Mode::Act), true;
         if (g.value == "dry-run") return (g.cl.control.autoIsolateLinks = Mode::DryRun), true;
         return g.expected("act or dry-run");
     },
     "a rail link at risk (fleetd's link forecast): automation isolates it,\n"
     "draining its tray at the jobs' next checkpoint (now once errors prove\n"
     "it over the Error line), as 'auto' behind the --auto-drain breaker and\n"
     "within the isolation budget; never a link a person has stepped on.\n"
     "dry-run: marks the links it would isolate as proposed, does nothing"},
    {"--repair-burn-in", "D", OperatorActions, kTokens,
     [](G g) {
         return seconds(g, std::chrono::seconds(60), hours(24 * 7), "a duration from 1m to 7d such as 30m",
                        g.cl.control.repairBurnIn);
     },
     "how long a repaired tray serves without a fault, after its diagnostics\n"
     "passed, before its case closes and it is back in PRODUCTION (default 30m;\n"
     "the fleet's clock: simulated under the twin)"},

    {"--source", "scrape", RealTelemetry, kFleetFile, source,
     "scrape every tray's dcgm-exporter and node_exporter directly (live values\n"
     "one interval old); with --source prometheus=URL too, the store answers history"},
    {"--scrape-interval", "D", RealTelemetry, kRealSource | kScrape,
     [](G g) { return sourceDuration(g, milliseconds(1000), hours(1), g.cl.sources.scraper.interval); },
     "how often each target is scraped (default 5s, 1s..1h)"},
    {"--scrape-timeout", "D", RealTelemetry, kRealSource | kScrape | kScrapeTimeoutFits,
     [](G g) { return sourceDuration(g, milliseconds(100), std::chrono::minutes(10), g.cl.sources.scrapeTimeout); },
     "per scrape (default the interval, at most 10s)"},
    {"--scrape-dcgm", "URL", RealTelemetry, kRealSource | kScrape,
     [](G g) { return targetUrl(g, g.cl.sources.scraper.targets.dcgmUrl); },
     "dcgm-exporter of each tray (default http://{address}:9400/metrics;\n"
     "{address} (addresses= of the fleet file, else the host name), {host},\n"
     "{rack}, {node} are replaced; none = not scraped)"},
    {"--scrape-node", "URL", RealTelemetry, kRealSource | kScrape,
     [](G g) { return targetUrl(g, g.cl.sources.scraper.targets.nodeUrl); },
     "node_exporter of each tray (default http://{address}:9100/metrics)"},
    {"--scrape-targets", "FILE", RealTelemetry, kRealSource | kScrape,
     [](G g) { return named(g, g.cl.sources.scraper.targets.targetsFile); },
     "exceptions per rack or host: lines 'rack|host NAME dcgm=URL node=URL'"},
    {"--scrape-concurrency", "N", RealTelemetry, kRealSource | kScrape,
     [](G g) { return count(g, 1, 65'536, g.cl.sources.scraper.http.maxConcurrent); },
     "scrapes in flight at once (default 256)"},
    {"--scrape-frozen-after", "D", RealTelemetry, kRealSource | kScrape,
     [](G g) { return sourceDuration(g, milliseconds(1000), hours(24), g.cl.sources.scraper.frozenAfter); },
     "a target whose values (or one GPU's) do not change for D is silent\n"
     "(frozen; default 60s: above dcgm-exporter's default 30 s collect interval)"},
    {"--scrape-max-bytes", "N", RealTelemetry, kRealSource | kScrape,
     [](G g) { return count(g, 4096, std::size_t(1) << 31, g.cl.sources.scraper.http.maxBytes); },
     "largest page read (default 16 MiB, counted after gzip)"},
    {"--scrape-ca-file", "FILE", RealTelemetry, kRealSource | kScrape,
     [](G g) { return named(g, g.cl.sources.scraper.http.caFile); },
     "CA bundle for https targets"},
    {"--scrape-client-cert", "FILE", RealTelemetry, kRealSource | kScrape,
     [](G g) { return named(g, g.cl.sources.scraper.http.clientCertFile); },
     ""},
    {"--scrape-client-key", "FILE", RealTelemetry, kRealSource | kScrape,
     [](G g) { return named(g, g.cl.sources.scraper.http.clientKeyFile); },
     "TLS client certificate for https targets"},
    {"--source", "prometheus=URL", RealTelemetry, kFleetFile, source,
     "read dcgm-exporter and node_exporter series through a Prometheus-\n"
     "compatible store (Prometheus, VictoriaMetrics, Thanos, Mimir; URL may\n"
     "carry a path prefix). Repeat for shards. --source twin = the default"},
    {"--poll", "D", RealTelemetry, kStoreFlag | kPolledStore,
     [](G g) { return sourceDuration(g, milliseconds(1000), hours(1), g.cl.sources.poll); },
     "how often to query the store (default 15s, 1s..1h)"},
    {"--store-scrape-interval", "D", RealTelemetry, kStoreFlag,
     [](G g) { return sourceDuration(g, milliseconds(1000), hours(1), g.cl.sources.storeScrapeInterval); },
     "how often the store scrapes the exporters (default 15s): a value\n"
     "is stale once older than 3 x (poll + scrape interval) plus the\n"
     "store's delivery lag, learned from its sample times"},
    {"--store-lookback", "D", RealTelemetry, kStoreFlag | kPolledStore,
     [](G g) { return sourceDuration(g, milliseconds(1000), hours(24), g.cl.sources.lookback); },
     "the store's instant-query lookback (default 5m)"},
    {"--prom-timeout", "D", RealTelemetry, kStoreFlag,
     [](G g) { return sourceDuration(g, milliseconds(100), std::chrono::minutes(10), g.cl.sources.store.timeout); },
     "per request (default 10s)"},
    {"--prom-tenant", "ID", RealTelemetry, kStoreFlag,
     [](G g) { return named(g, g.cl.sources.store.tenant, "a tenant id (X-Scope-OrgID)"); },
     "X-Scope-OrgID header (Grafana Mimir, Cortex)"},
    {"--prom-bearer-token-file", "FILE", RealTelemetry, kStoreFlag,
     [](G g) { return named(g, g.cl.sources.store.bearerTokenFile); },
     "Authorization: Bearer <file contents>, re-read when it changes"},
    {"--prom-basic-auth", "USER:PASSWORD-FILE", RealTelemetry, kStoreFlag,
     [](G g) {
         return userAndPasswordFile(g, g.cl.sources.store.basicAuthUser, g.cl.sources.store.basicAuthPasswordFile);
     },
     "HTTP basic authentication"},
    {"--prom-ca-file", "FILE", RealTelemetry, kStoreFlag,
     [](G g) { return named(g, g.cl.sources.store.caFile); },
     "CA bundle for an https store"},
    {"--prom-client-cert", "FILE", RealTelemetry, kStoreFlag,
     [](G g) { return named(g, g.cl.sources.store.clientCertFile); },
     ""},
    {"--prom-client-key", "FILE", RealTelemetry, kStoreFlag,
     [](G g) { return named(g, g.cl.sources.store.clientKeyFile); },
     "TLS client certificate"},
    {"--prom-post-above", "N", RealTelemetry, kStoreFlag,
     [](G g) {
         return whole(g, 0, 1'000'000, "a URL length in bytes (0 = always POST)", g.cl.sources.store.postAbove);
     },
     "send queries as POST when the URL would exceed N bytes (default 1024)"},
    {"--source", "redfish=URL", RealTelemetry, kFleetFile, source,
     "liquid cooling from the Redfish service of the CDUs or the building-\n"
     "management aggregator (http(s)://HOST[:PORT]; never tray BMCs):\n"
     "flow, supply/return temperature, dP, valve, pumps, leak detectors per\n"
     "rack loop, mapped by the fleet file's cdu=/connector=/leak_detectors=.\n"
     "Beside --source scrape or prometheus=URL, or alone. Repeatable"},
    {"--redfish-interval", "D", RealTelemetry, kRealSource | kRedfish,
     [](G g) { return sourceDuration(g, milliseconds(1000), hours(1), g.cl.sources.redfish.interval); },
     "how often the cooling tree is walked (default 5s, 1s..1h)"},
    {"--redfish-timeout", "D", RealTelemetry, kRealSource | kRedfish | kRedfishTimeoutFits,
     [](G g) { return sourceDuration(g, milliseconds(100), std::chrono::minutes(10), g.cl.sources.redfishTimeout); },
     "per request (default the interval, at most 5s)"},
    {"--redfish-connections", "N", RealTelemetry, kRealSource | kRedfish,
     [](G g) { return count(g, 1, redfish::kMostRedfishConnections, g.cl.sources.redfish.maxConnections); },
     "connections to one Redfish service at once (1..4, default 4)"},
    {"--redfish-max-bytes", "N", RealTelemetry, kRealSource | kRedfish,
     [](G g) { return count(g, 4096, std::size_t(1) << 30, g.cl.sources.redfish.maxBytes); },
     "largest answer read (default 4 MiB)"},
    {"--redfish-basic-auth", "USER:PASSWORD-FILE", RealTelemetry, kRealSource | kRedfish,
     [](G g) {
         return userAndPasswordFile(g, g.cl.sources.redfish.basicAuthUser, g.cl.sources.redfish.basicAuthPasswordFile);
     },
     "HTTP basic authentication"},
    {"--redfish-ca-file", "FILE", RealTelemetry, kRealSource | kRedfish,
     [](G g) { return named(g, g.cl.sources.redfish.caFile); },
     "CA bundle for an https service"},
    {"--jobs", "slurm[=SLURM_CONF]", RealTelemetry, kRealSource,
     [](G g) {
         if (g.value != "slurm" && g.value.rfind("slurm=", 0) != 0) return g.expected("slurm or slurm=SLURM_CONF");
         g.cl.sources.slurmJobs = true;
         g.cl.sources.slurmConf = g.value.size() > 6 ? g.value.substr(6) : std::string();
         return true;
     },
     "running jobs and their trays from Slurm's squeue, read each poll;\n"
     "goodput for jobs that publish training_step/checkpoint_step gauges"},

    {"--version", "", Other, 0, setMode<CommandLine::Mode::Version>,
     "print the version and exit"},
    {"--help", "", Other, 0, setMode<CommandLine::Mode::Help>,
     "print this help and exit", "-h"},
};
// clang-format on

}  // namespace

std::string_view sectionTitle(Section section) {
    switch (section) {
    case ServiceAndTwin: return "Service and digital twin";
    case OperatorActions: return "Operator actions";
    case RealTelemetry: return "Real telemetry";
    case Other: break;
    }
    return "Other";
}

std::string_view sectionHeading(Section section) {
    switch (section) {
    case OperatorActions: return "Operator actions (watchfloor.v1.ControlService; off unless --tokens is given):";
    case RealTelemetry: return "Real telemetry (instead of the twin; needs --fleet FILE with the site's inventory):";
    case ServiceAndTwin:
    case Other: break;
    }
    return {};
}

bool GivenFlag::expected(std::string_view what) const {
    return fail(error, std::string(flag) + ": expected " + std::string(what) + ", got \"" + value + "\"");
}

bool GivenFlag::expectedWithoutValue(std::string_view what) const {
    return fail(error, std::string(flag) + ": expected " + std::string(what));
}

std::string Flag::synopsis() const {
    if (value.empty()) return std::string(name);
    return std::string(name) + (takesValue() ? " " : "") + std::string(value);
}

std::span<const Flag> flagTable() { return kFlags; }

bool checkNeeds(std::span<const Flag* const> given, const CommandLine& cl, std::string* error) {
    for (const Rule& rule : kRules)
        for (const Flag* flag : given) {
            if (!(flag->needs & rule.need) || rule.holds(cl)) continue;
            std::string message(rule.message);
            if (const auto at = message.find("{}"); at != std::string::npos) message.replace(at, 2, flag->name);
            return fail(error, std::move(message));
        }
    return true;
}

}  // namespace watchfloor::server::fleetd
