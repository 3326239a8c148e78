#include "CommandLine.h"

#include "AlertmanagerHttp.h"
#include "DurationParse.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace watchfloor::server::fleetd {

namespace {
constexpr std::uint32_t kMaxRacks = 10'000;
constexpr double kMaxSpeed = 1e6;
constexpr std::chrono::milliseconds kDefaultWarmStart = std::chrono::hours(6);

bool parseUnsigned(const std::string& text, std::uint64_t low, std::uint64_t high, std::uint64_t* out) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < low || value > high)
        return false;
    *out = value;
    return true;
}

// A fleet size: 1..kMaxRacks.
bool parseCount(const std::string& flag, const std::string& text, std::optional<std::uint32_t>* out,
                std::string* problem) {
    std::uint64_t n = 0;
    if (!parseUnsigned(text, 1, kMaxRacks, &n)) {
        *problem = flag + ": expected a whole number from 1 to " + std::to_string(kMaxRacks) + ", got \"" + text + "\"";
        return false;
    }
    *out = static_cast<std::uint32_t>(n);
    return true;
}

bool validListenAddress(const std::string& address) {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0) return false;
    std::uint64_t port = 0;
    return parseUnsigned(address.substr(colon + 1), 0, 65535, &port);
}
// Flags that only mean something together; a lone one is a typo or a forgotten flag, and
// silently ignoring it would leave an operator believing a safeguard is on.
// `controlOnlyFlag`: the first flag given that has no effect unless operator actions are on.
bool checkControlFlags(const std::string& controlOnlyFlag, const CommandLine& cl, std::string* problem) {
    const auto& c = cl.control;
    if (c.tls.certPath.empty() != c.tls.keyPath.empty())
        return *problem = "--tls-cert and --tls-key go together", false;
    if (!c.tls.clientCaPath.empty() && c.tls.certPath.empty())
        return *problem = "--tls-client-ca needs --tls-cert and --tls-key (mTLS is TLS that also checks the client)",
               false;
    if (!c.slurmConf.empty() && c.scheduler != control::ControlOptions::Scheduler::Slurm)
        return *problem = "--slurm-conf needs --scheduler slurm", false;
    if ((c.autoEvictSlow || c.autoLifecycle) && !c.autoDrain)
        return *problem = std::string(c.autoEvictSlow ? "--auto-evict-slow" : "--auto-lifecycle") +
                          " needs --auto-drain N/WINDOW: automation acts behind its circuit breaker",
               false;
    if (!cl.controlEnabled() && !controlOnlyFlag.empty())
        return *problem = controlOnlyFlag + " needs --tokens FILE: operator actions are off without it", false;
    return true;
}

// A real source reads the site's fleet: its topology comes from the fleet file's inventory, and
// the twin's knobs would silently do nothing.
bool checkSourceFlags(const std::vector<std::string>& args, const CommandLine& cl,
                      const std::vector<std::string>& sourceFlags, std::string* problem) {
    if (!cl.sources.realSource()) {
        for (const auto& flag : sourceFlags)
            if (flag != "--source")
                return *problem =
                           flag + " needs --source scrape, prometheus=URL or redfish=URL (the twin is not polled)",
                       false;
        return true;
    }
    if (cl.fleetFile.empty())
        return *problem =
                   "--source scrape, prometheus=URL or redfish=URL needs --fleet FILE: the site's racks and the host "
                   "names of their trays (the inventory), their CDUs and leak detectors",
               false;
    for (const auto& arg : args)
        for (const char* twinOnly : {"--scenario", "--speed", "--seed", "--racks", "--regions", "--sim-duration",
                                     "--dump-events", "--simulate", "--warm-start"})
            if (arg == twinOnly || arg.rfind(std::string(twinOnly) + "=", 0) == 0)
                return *problem = std::string(twinOnly) +
                                  " is for the digital twin; fleetd reads a real source "
                                  "(--source scrape or prometheus=URL)",
                       false;
    return true;
}

// The exporter pages publish the twin's state; the flags that shape them need the server.
bool checkExporterFlags(const std::vector<std::string>& args, const CommandLine& cl, std::string* problem) {
    if (cl.exportersListen.empty())
        for (const auto& arg : args)
            for (const char* flag : {"--exporters-config", "--exporters-scrape-interval", "--exporters-blanks"})
                if (arg == flag || arg.rfind(std::string(flag) + "=", 0) == 0)
                    return *problem = std::string(flag) + " needs --serve-exporters HOST:PORT", false;
    if (cl.exportersConfigDir.empty())
        for (const auto& arg : args)
            if (arg == "--exporters-scrape-interval" || arg.rfind("--exporters-scrape-interval=", 0) == 0)
                return *problem = "--exporters-scrape-interval needs --exporters-config DIR", false;
    if (!cl.alertmanagerUrl.empty() && cl.mode == CommandLine::Mode::DumpEvents)
        return *problem = "--alertmanager pages from a running fleetd, not a headless --dump-events run", false;
    if (!cl.exportersListen.empty() && cl.mode == CommandLine::Mode::DumpEvents)
        return *problem = "--serve-exporters needs a running fleetd, not a headless --dump-events run", false;
    if (!cl.redfishListen.empty() && (cl.mode == CommandLine::Mode::DumpEvents || cl.sources.realSource()))
        return *problem =
                   "--serve-redfish publishes the running digital twin's cooling; not with --dump-events "
                   "or a real source",
               false;
    if (!cl.exportersListen.empty() && cl.sources.realSource())
        return *problem =
                   "--serve-exporters publishes the digital twin's values; fleetd reads a real source "
                   "(--source scrape or prometheus=URL)",
               false;
    return true;
}

}  // namespace

std::string usageText() {
    return "usage: fleetd [options]\n"
           "Serves the watchfloor.v1 fleet API (gRPC) for a fleet source; the digital twin by default.\n"
           "\n"
           "  --listen HOST:PORT     address to serve on (default 127.0.0.1:50551; port 0 = any free port)\n"
           "  --metrics-listen HOST:PORT  also serve Prometheus text at http://HOST:PORT/metrics\n"
           "  --alertmanager URL     push open incidents to this Alertmanager as alerts (API v2, e.g.\n"
           "                         http://127.0.0.1:9093), resolve them there when they resolve, and\n"
           "                         turn maintenance windows into its silences; off by default. Alertmanager\n"
           "                         down: changes are queued (bounded) and retried with backoff; consoles\n"
           "                         show that paging is not delivered\n"
           "  --simulate             use the digital twin as the fleet source (the default)\n"
           "  --seed N               twin random seed (default 1)\n"
           "  --racks N              NVL72 racks in the simulated fleet (1..10000, default 7)\n"
           "  --regions N            regions the racks are spread over (default 2, at most --racks)\n"
           "  --fleet FILE           fleet description file (overrides --racks/--regions)\n"
           "  --scenario FILE        scripted faults to inject\n"
           "  --speed X              simulated seconds per wall second (default 1; large = flat out)\n"
           "  --warm-start[=D]       the twin's jobs have been training for up to D (default 6h, at least\n"
           "                         1h) when it starts: mid-run, with goodput history, not all starting\n"
           "  --sim-duration D       with --dump-events: simulate D (e.g. 6h, 54d) headless, then exit\n"
           "  --dump-events FILE     write every event and periodic goodput as JSON Lines (- = stdout)\n"
           "  --replay-log-mb N      memory for recent deltas that reconnecting consoles resume from\n"
           "                         (default 384; a console further behind gets a fresh snapshot)\n"
           "  --log-stats D          log rates, subscribers and replay-log size every D (e.g. 10s)\n"
           "  --incident-hold D      an incident resolves once its members stayed clear for D (default 10m)\n"
           "  --serve-exporters HOST:PORT  serve every tray's exporter pages from the twin, as a real site's\n"
           "                         dcgm-exporter and node_exporter would: GET /dcgm/<host>/metrics and\n"
           "                         /node/<host>/metrics (port 0 = any free port)\n"
           "  --exporters-config DIR write DIR/prometheus.yml and file_sd targets scraping those pages\n"
           "  --exporters-scrape-interval D  scrape interval written there (default 15s)\n"
           "  --exporters-blanks omit|sentinel  drop blank DCGM values as dcgm-exporter does (default), or\n"
           "                         write DCGM's blank sentinels\n"
           "  --serve-redfish HOST:PORT  serve the twin's cooling as its CDUs' Redfish service would:\n"
           "                         GET /redfish/v1/ThermalEquipment/CDUs/... (port 0 = any free port)\n"
           "\n"
           "Operator actions (watchfloor.v1.ControlService; off unless --tokens is given):\n"
           "  --tokens FILE          bearer tokens: 'token <secret> principal=<name> role=viewer|operator|admin'\n"
           "                         per line, file mode 0600; each secret at least 16 characters, no\n"
           "                         secret twice (else exit 2). Callers send the gRPC metadata\n"
           "                         'authorization: Bearer <secret>' (scheme name in any case).\n"
           "                         Without it every control call is refused\n"
           "                         (UNIMPLEMENTED, naming this flag); telemetry is unaffected\n"
           "  --audit-log FILE       append-only JSON Lines audit trail, fsync'ed before each action takes\n"
           "                         effect (default $STATE_DIRECTORY/audit.jsonl under systemd, else\n"
           "                         $XDG_STATE_HOME or ~/.local/state + /watchfloor/fleetd-audit.jsonl)\n"
           "  --tls-cert FILE --tls-key FILE  serve TLS on the listening port (telemetry too)\n"
           "  --tls-client-ca FILE   with TLS: require client certificates signed by this CA (mTLS)\n"
           "                         Without TLS, tokens are accepted from loopback peers only.\n"
           "  --require-approval isolate-rack  rack isolation needs a second operator's approval\n"
           "  --approval-ttl D       how long a request waits for approval (default 15m, 1s..24h)\n"
           "  --scheduler sim|slurm  where drain/resume/requeue take effect (default sim: the twin)\n"
           "  --slurm-conf FILE      with --scheduler slurm: SLURM_CONF for scontrol/sinfo/squeue\n"
           "  --auto-drain N/WINDOW[,max=P%]  drain on the Xids fleet policy drains on, as principal 'auto';\n"
           "                         the circuit breaker trips past N distinct nodes per WINDOW (e.g. 5/10m),\n"
           "                         or past P % of the fleet's trays (at least 1) when that is fewer\n"
           "                         (e.g. 5/10m,max=0.5%), and holds until an admin resets it\n"
           "  --fail-slow-window D   the fail-slow ladder's window (default 10m): a tray reported as a job's\n"
           "                         straggler (S >= 1.05) in --fail-slow-confirm N distinct windows (default\n"
           "                         3) is confirmed and proposed for eviction, with its expected gain in\n"
           "                         GPU-hours/day against the cost of a restart (the job's fail_slow field)\n"
           "  --fail-slow-confirm N  how many distinct windows confirm a fail-slow tray (default 3, 1..100)\n"
           "  --auto-evict-slow      drain a confirmed fail-slow tray as 'auto' (audited, behind the\n"
           "                         --auto-drain breaker, which it needs); the job restarts from its last\n"
           "                         checkpoint on a spare, without the tray. Off: operators drain it\n"
           "  --lemon K/WINDOW       a tray whose health turns FAILED K times within WINDOW is a lemon and\n"
           "                         TRIAGE is proposed for it (default 3/7d); the counts survive restarts\n"
           "                         in AUDIT_LOG.lemon-failures beside the audit log\n"
           "  --auto-lifecycle       automation sets TRIAGE itself (as 'auto', behind the --auto-drain\n"
           "                         breaker) on a lemon or a tray failing burn-in; off: it only proposes\n"
           "\n" +
           sourceUsageText() +
           "\n"
           "  --version              print the version and exit\n"
           "  --help, -h             print this help and exit\n"
           "\n"
           "fleetd logs to stderr, including its 'listening on HOST:PORT' line once it serves; stdout\n"
           "carries only --help, --version and --dump-events - output.\n"
           "\n"
           "Exit status: 0 ok (SIGTERM/SIGINT = graceful shutdown), 1 bad fleet/scenario file or\n"
           "cannot listen, 2 bad command line or an unusable tokens file, TLS file or audit log.\n";
}

namespace {

using Handler = std::function<bool(const std::string&)>;

// The flags that take a value (FLAG VALUE or FLAG=VALUE), each storing it into `cl`. The handlers
// refer to `cl` and `problem` (the caller's pointer), which must outlive them.
std::map<std::string, Handler> valueFlags(CommandLine& cl, std::string* const& problem) {
    return {
        {"--listen",
         [&](const std::string& v) {
             cl.listenAddress = v;
             return validListenAddress(v) || (*problem = "--listen: expected HOST:PORT, got \"" + v + "\"", false);
         }},
        {"--metrics-listen",
         [&](const std::string& v) {
             cl.metricsListen = v;
             return validListenAddress(v) ||
                    (*problem = "--metrics-listen: expected HOST:PORT, got \"" + v + "\"", false);
         }},
        {"--alertmanager",
         [&](const std::string& v) {
             std::string why;
             cl.alertmanagerUrl = paging::normalisedAlertmanagerUrl(v, why);
             return !cl.alertmanagerUrl.empty() || (*problem = "--alertmanager: " + why, false);
         }},
        {"--seed",
         [&](const std::string& v) {
             return parseUnsigned(v, 0, UINT64_MAX, &cl.seed) ||
                    (*problem = "--seed: expected a whole number, got \"" + v + "\"", false);
         }},
        {"--racks", [&](const std::string& v) { return parseCount("--racks", v, &cl.racks, problem); }},
        {"--regions", [&](const std::string& v) { return parseCount("--regions", v, &cl.regions, problem); }},
        {"--fleet",
         [&](const std::string& v) {
             cl.fleetFile = v;
             return !v.empty() || (*problem = "--fleet: expected a file name", false);
         }},
        {"--scenario",
         [&](const std::string& v) {
             cl.scenarioFile = v;
             return !v.empty() || (*problem = "--scenario: expected a file name", false);
         }},
        {"--speed",
         [&](const std::string& v) {
             double speed = 0;
             const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), speed);
             if (v.empty() || ec != std::errc() || end != v.data() + v.size() || !std::isfinite(speed) || speed <= 0 ||
                 speed > kMaxSpeed)
                 return *problem = "--speed: expected a number above 0 and at most 1000000, got \"" + v + "\"", false;
             cl.speed = speed;
             return true;
         }},
        {"--sim-duration",
         [&](const std::string& v) {
             cl.simDuration = parseDuration(v);
             return (cl.simDuration && cl.simDuration->count() > 0) ||
                    (*problem = "--sim-duration: expected a duration such as 90s, 6h or 54d, got \"" + v + "\"", false);
         }},
        {"--log-stats",
         [&](const std::string& v) {
             const auto interval = parseDuration(v);
             if (!interval || interval->count() <= 0)
                 return *problem = "--log-stats: expected an interval such as 10s, got \"" + v + "\"", false;
             cl.statsInterval = *interval;
             return true;
         }},
        {"--incident-hold",
         [&](const std::string& v) {
             const auto hold = parseDuration(v);
             if (!hold || hold->count() <= 0 || *hold > std::chrono::hours(24))
                 return *problem = "--incident-hold: expected a duration from 1s to 24h such as 10m, got \"" + v + "\"",
                        false;
             cl.incidentHold = *hold;
             return true;
         }},
        {"--replay-log-mb",
         [&](const std::string& v) {
             std::uint64_t n = 0;
             if (!parseUnsigned(v, 1, 65536, &n))
                 return *problem = "--replay-log-mb: expected a whole number from 1 to 65536, got \"" + v + "\"", false;
             cl.replayLogMiB = static_cast<std::uint32_t>(n);
             return true;
         }},
        {"--tokens",
         [&](const std::string& v) {
             cl.control.tokensFile = v;
             return !v.empty() || (*problem = "--tokens: expected a file name", false);
         }},
        {"--audit-log",
         [&](const std::string& v) {
             cl.control.auditLogFile = v;
             cl.auditLogGiven = true;
             return !v.empty() || (*problem = "--audit-log: expected a file name", false);
         }},
        {"--tls-cert",
         [&](const std::string& v) {
             cl.control.tls.certPath = v;
             return !v.empty() || (*problem = "--tls-cert: expected a PEM file name", false);
         }},
        {"--tls-key",
         [&](const std::string& v) {
             cl.control.tls.keyPath = v;
             return !v.empty() || (*problem = "--tls-key: expected a PEM file name", false);
         }},
        {"--tls-client-ca",
         [&](const std::string& v) {
             cl.control.tls.clientCaPath = v;
             return !v.empty() || (*problem = "--tls-client-ca: expected a PEM file name", false);
         }},
        {"--require-approval",
         [&](const std::string& v) { return control::parseRequireApproval(v, &cl.control, problem); }},
        {"--approval-ttl",
         [&](const std::string& v) {
             const auto ttl = parseDuration(v);
             if (!ttl || *ttl < std::chrono::seconds(1) || *ttl > std::chrono::hours(24))
                 return *problem = "--approval-ttl: expected a duration from 1s to 24h such as 15m, got \"" + v + "\"",
                        false;
             cl.control.approvalTtl = std::chrono::duration_cast<std::chrono::seconds>(*ttl);
             return true;
         }},
        {"--scheduler", [&](const std::string& v) { return control::parseScheduler(v, &cl.control, problem); }},
        {"--slurm-conf",
         [&](const std::string& v) {
             cl.control.slurmConf = v;
             return !v.empty() || (*problem = "--slurm-conf: expected a file name", false);
         }},
        {"--auto-drain",
         [&](const std::string& v) {
             cl.control.autoDrain = control::parseAutoDrain(v, problem);
             return cl.control.autoDrain.has_value();
         }},
        {"--fail-slow-window",
         [&](const std::string& v) {
             const auto window = parseDuration(v);
             if (!window || *window < std::chrono::seconds(10) || *window > std::chrono::hours(24))
                 return *problem =
                            "--fail-slow-window: expected a duration from 10s to 24h such as 10m, got \"" + v + "\"",
                        false;
             cl.control.failSlow.window = std::chrono::duration_cast<std::chrono::seconds>(*window);
             return true;
         }},
        {"--fail-slow-confirm",
         [&](const std::string& v) {
             std::uint64_t windows = 0;
             if (!parseUnsigned(v, 1, 100, &windows))
                 return *problem =
                            "--fail-slow-confirm: expected a whole number of windows from 1 to 100, got \"" + v + "\"",
                        false;
             cl.control.failSlow.confirmWindows = static_cast<std::uint32_t>(windows);
             cl.control.failSlow.forgetWindows =
                 std::max<std::uint32_t>(cl.control.failSlow.forgetWindows, 2 * cl.control.failSlow.confirmWindows);
             return true;
         }},
        {"--lemon",
         [&](const std::string& v) {
             const auto lemon = control::parseLemon(v, problem);
             if (lemon) cl.control.lemon = *lemon;
             return lemon.has_value();
         }},
        {"--dump-events",
         [&](const std::string& v) {
             cl.dumpEventsPath = v;
             return !v.empty() || (*problem = "--dump-events: expected a file name or -", false);
         }},
        {"--serve-exporters",
         [&](const std::string& v) {
             cl.exportersListen = v;
             return validListenAddress(v) ||
                    (*problem = "--serve-exporters: expected HOST:PORT, got \"" + v + "\"", false);
         }},
        {"--serve-redfish",
         [&](const std::string& v) {
             cl.redfishListen = v;
             return validListenAddress(v) ||
                    (*problem = "--serve-redfish: expected HOST:PORT, got \"" + v + "\"", false);
         }},
        {"--exporters-config",
         [&](const std::string& v) {
             cl.exportersConfigDir = v;
             return !v.empty() || (*problem = "--exporters-config: expected a directory", false);
         }},
        {"--exporters-scrape-interval",
         [&](const std::string& v) {
             const auto interval = parseDuration(v);
             if (!interval || *interval < std::chrono::milliseconds(100) || *interval > std::chrono::hours(1))
                 return *problem =
                            "--exporters-scrape-interval: expected a duration from 100ms to 1h such as 15s, "
                            "got \"" +
                            v + "\"",
                        false;
             cl.exportersScrapeInterval = *interval;
             return true;
         }},
        {"--exporters-blanks",
         [&](const std::string& v) {
             if (v != "omit" && v != "sentinel")
                 return *problem = "--exporters-blanks: expected omit or sentinel, got \"" + v + "\"", false;
             cl.exportersBlankSentinels = v == "sentinel";
             return true;
         }},
    };
}

// The flags that take no value, or only an inline one (--warm-start=D): called with the inline
// value, if any.
using BareHandler = std::function<bool(const std::optional<std::string>&)>;

std::map<std::string, BareHandler> bareFlags(CommandLine& cl, std::string* const& problem,
                                             std::string& controlOnlyFlag) {
    const auto mode = [&cl](CommandLine::Mode m) {
        return [&cl, m](const std::optional<std::string>&) {
            cl.mode = m;
            return true;
        };
    };
    const auto automation = [&cl, &problem, &controlOnlyFlag](const std::string& flag,
                                                              bool control::ControlOptions::*field) {
        return [&cl, &problem, &controlOnlyFlag, flag, field](const std::optional<std::string>& inline_) {
            if (inline_) return *problem = flag + " takes no value", false;
            cl.control.*field = true;
            if (controlOnlyFlag.empty()) controlOnlyFlag = flag;
            return true;
        };
    };
    return {
        {"--help", mode(CommandLine::Mode::Help)},
        {"-h", mode(CommandLine::Mode::Help)},
        {"--version", mode(CommandLine::Mode::Version)},
        {"--auto-evict-slow", automation("--auto-evict-slow", &control::ControlOptions::autoEvictSlow)},
        {"--auto-lifecycle", automation("--auto-lifecycle", &control::ControlOptions::autoLifecycle)},
        {"--simulate",
         [&problem](const std::optional<std::string>& inline_) {
             return !inline_ || (*problem = "--simulate takes no value", false);
         }},
        {"--warm-start",
         [&cl, &problem](const std::optional<std::string>& inline_) {
             // The value only inline: "--warm-start 6h" would read "6h" as a stray argument.
             const std::optional<std::chrono::milliseconds> history =
                 inline_ ? parseDuration(*inline_) : std::optional<std::chrono::milliseconds>(kDefaultWarmStart);
             if (!history || *history < std::chrono::hours(1))
                 return *problem = "--warm-start=D: expected a duration of at least 1h such as 6h, got \"" +
                                   inline_.value_or("") + "\"",
                        false;
             cl.warmStart = std::chrono::duration_cast<std::chrono::seconds>(*history);
             return true;
         }},
    };
}

}  // namespace

std::vector<std::string> acceptedFlags() {
    CommandLine cl;
    std::string text, controlOnlyFlag;
    std::string* const problem = &text;
    std::vector<std::string> flags = sourceFlagNames();
    for (const auto& [flag, handler] : valueFlags(cl, problem)) flags.push_back(flag);
    for (const auto& [flag, handler] : bareFlags(cl, problem, controlOnlyFlag)) flags.push_back(flag);
    std::sort(flags.begin(), flags.end());
    return flags;
}

bool parseCommandLine(const std::vector<std::string>& args, CommandLine* out, std::string* problem) {
    CommandLine cl;
    std::string controlOnlyFlag;
    const auto withValue = valueFlags(cl, problem);
    const auto withoutValue = bareFlags(cl, problem, controlOnlyFlag);
    std::vector<std::string> twinOrSourceFlags;  // in the order given, to name a misplaced one
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i], value;
        bool hasInlineValue = false;
        if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            hasInlineValue = true;
        }
        if (auto bare = withoutValue.find(flag); bare != withoutValue.end()) {
            if (!bare->second(hasInlineValue ? std::optional<std::string>(value) : std::nullopt)) return false;
        } else if (auto handler = withValue.find(flag); handler != withValue.end()) {
            if (!hasInlineValue) {
                if (i + 1 >= args.size()) return *problem = flag + ": missing value", false;
                value = args[++i];
            }
            if (!handler->second(value)) return false;
            static const std::set<std::string> controlOnly = {
                "--audit-log",  "--require-approval", "--approval-ttl",      "--scheduler", "--slurm-conf",
                "--auto-drain", "--fail-slow-window", "--fail-slow-confirm", "--lemon"};
            if (controlOnlyFlag.empty() && controlOnly.count(flag)) controlOnlyFlag = flag;
        } else if (isSourceFlag(flag)) {
            if (!hasInlineValue) {
                if (i + 1 >= args.size()) return *problem = flag + ": missing value", false;
                value = args[++i];
            }
            if (!applySourceFlag(flag, value, cl.sources, problem)) return false;
            twinOrSourceFlags.push_back(flag);
        } else {
            *problem = "unknown option \"" + args[i] + "\"";
            return false;
        }
    }
    if (cl.mode == CommandLine::Mode::Help || cl.mode == CommandLine::Mode::Version) {
        *out = cl;
        return true;
    }
    if (cl.simDuration.has_value() != !cl.dumpEventsPath.empty()) {
        *problem = "--sim-duration and --dump-events go together (a headless run writes its events)";
        return false;
    }
    if (cl.simDuration) cl.mode = CommandLine::Mode::DumpEvents;
    if (!checkControlFlags(controlOnlyFlag, cl, problem)) return false;
    if (!checkSourceFlags(args, cl, twinOrSourceFlags, problem)) return false;
    if (!checkExporterFlags(args, cl, problem)) return false;
    if (cl.racks && cl.regions && *cl.regions > *cl.racks) {
        *problem =
            "--regions (" + std::to_string(*cl.regions) + ") cannot exceed --racks (" + std::to_string(*cl.racks) + ")";
        return false;
    }
    *out = cl;
    return true;
}

}  // namespace watchfloor::server::fleetd
