#include "SourceFlags.h"

#include "DurationParse.h"

#include <charconv>
#include <cstring>
#include <functional>
#include <map>

namespace watchfloor::server::fleetd {

namespace {

using std::chrono::milliseconds;

bool readDuration(const std::string& flag, const std::string& value, milliseconds low, milliseconds high,
                  milliseconds& out, std::string* problem) {
    const auto parsed = parseDuration(value);
    if (!parsed || *parsed < low || *parsed > high)
        return *problem = flag + ": expected a duration from " + std::to_string(low.count() / 1000.0).substr(0, 4) +
                          " s to " + std::to_string(high.count() / 1000) + " s such as 15s, got \"" + value + "\"",
               false;
    out = *parsed;
    return true;
}

bool readFile(const std::string& flag, const std::string& value, std::string& out, std::string* problem) {
    out = value;
    return !value.empty() || (*problem = flag + ": expected a file name", false);
}

bool readCount(const std::string& flag, const std::string& value, std::size_t low, std::size_t high, std::size_t& out,
               std::string* problem) {
    std::size_t n = 0;
    const auto r = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || r.ec != std::errc() || r.ptr != value.data() + value.size() || n < low || n > high)
        return *problem = flag + ": expected a number from " + std::to_string(low) + " to " + std::to_string(high) +
                          ", got \"" + value + "\"",
               false;
    out = n;
    return true;
}

bool readTargetUrl(const std::string& flag, const std::string& value, std::string& out, std::string* problem) {
    std::string why;
    if (!sources::validTargetUrl(value, &why)) return *problem = flag + " " + value + ": " + why, false;
    out = value;
    return true;
}

constexpr std::chrono::milliseconds kLongestDefaultScrapeTimeout{10'000};
constexpr std::chrono::milliseconds kLongestDefaultRedfishTimeout{5'000};

// http(s)://host[:port][/prefix], nothing after the path (the API paths are appended).
bool validStoreUrl(const std::string& url) {
    const bool http = url.rfind("http://", 0) == 0, https = url.rfind("https://", 0) == 0;
    if (!http && !https) return false;
    const std::string rest = url.substr(https ? 8 : 7);
    return !rest.empty() && rest[0] != '/' && rest.find_first_of("?# ") == std::string::npos;
}

// http(s)://HOST[:PORT], optionally with the service root's path (/redfish/v1), which is dropped:
// every path fleetd asks for comes from the service's own @odata.id links.
bool readRedfishUrl(std::string url, SourceFlags& f, std::string* problem) {
    while (url.size() > 1 && url.back() == '/') url.pop_back();
    for (const char* root : {"/redfish/v1", "/redfish"})
        if (url.size() > std::strlen(root) && url.ends_with(root)) url.resize(url.size() - std::strlen(root));
    const bool https = url.rfind("https://", 0) == 0;
    const std::string rest = url.substr(https ? 8 : url.rfind("http://", 0) == 0 ? 7 : 0);
    if ((!https && url.rfind("http://", 0) != 0) || rest.empty() || rest.find_first_of("/?#@ ") != std::string::npos)
        return *problem =
                   "--source redfish=URL: expected http(s)://HOST[:PORT] of the CDU or aggregator's Redfish "
                   "service, got \"" +
                   url + "\"",
               false;
    for (const auto& known : f.redfishUrls)
        if (known == url) return *problem = "--source redfish=" + url + " given twice", false;
    f.redfishUrls.push_back(url);
    return true;
}

using Handler = std::function<bool(const std::string& value, SourceFlags& flags, std::string* problem)>;

const std::map<std::string, Handler>& handlers() {
    static const std::map<std::string, Handler> table = {
        {"--source",
         [](const std::string& v, SourceFlags& f, std::string* problem) {
             if (v == "twin" || v == "simulate") return true;
             if (v == "scrape") {
                 if (f.scrape) return *problem = "--source scrape given twice", false;
                 f.scrape = true;
                 return true;
             }
             if (v.rfind("redfish=", 0) == 0) return readRedfishUrl(v.substr(8), f, problem);
             const std::string prefix = "prometheus=";
             if (v.rfind(prefix, 0) != 0)
                 return *problem = "--source: expected twin, scrape, prometheus=URL or redfish=URL, got \"" + v + "\"",
                        false;
             std::string url = v.substr(prefix.size());
             while (url.size() > 1 && url.back() == '/') url.pop_back();
             if (!validStoreUrl(url))
                 return *problem = "--source prometheus=URL: expected http(s)://HOST[:PORT][/PATH-PREFIX], got \"" +
                                   url + "\"",
                        false;
             for (const auto& known : f.prometheusUrls)
                 if (known == url) return *problem = "--source prometheus=" + url + " given twice", false;
             f.prometheusUrls.push_back(url);
             return true;
         }},
        {"--poll",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readDuration("--poll", v, milliseconds(1000), milliseconds(3'600'000), f.poll, p);
         }},
        {"--store-scrape-interval",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readDuration("--store-scrape-interval", v, milliseconds(1000), milliseconds(3'600'000),
                                 f.storeScrapeInterval, p);
         }},
        {"--store-lookback",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readDuration("--store-lookback", v, milliseconds(1000), milliseconds(86'400'000), f.lookback, p);
         }},
        {"--prom-timeout",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readDuration("--prom-timeout", v, milliseconds(100), milliseconds(600'000), f.store.timeout, p);
         }},
        {"--prom-tenant",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             f.store.tenant = v;
             return !v.empty() || (*p = "--prom-tenant: expected a tenant id (X-Scope-OrgID)", false);
         }},
        {"--prom-bearer-token-file",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readFile("--prom-bearer-token-file", v, f.store.bearerTokenFile, p);
         }},
        {"--prom-basic-auth",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             const auto colon = v.find(':');
             if (colon == std::string::npos || colon == 0 || colon + 1 == v.size())
                 return *p = "--prom-basic-auth: expected USER:PASSWORD-FILE, got \"" + v + "\"", false;
             f.store.basicAuthUser = v.substr(0, colon);
             f.store.basicAuthPasswordFile = v.substr(colon + 1);
             return true;
         }},
        {"--prom-ca-file",
         [](const std::string& v, SourceFlags& f, std::string* p) { return readFile("--prom-ca-file", v, f.store.caFile, p); }},
        {"--prom-client-cert",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readFile("--prom-client-cert", v, f.store.clientCertFile, p);
         }},
        {"--prom-client-key",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readFile("--prom-client-key", v, f.store.clientKeyFile, p);
         }},
        {"--jobs",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             if (v != "slurm" && v.rfind("slurm=", 0) != 0)
                 return *p = "--jobs: expected slurm or slurm=SLURM_CONF, got \"" + v + "\"", false;
             f.slurmJobs = true;
             f.slurmConf = v.size() > 6 ? v.substr(6) : std::string();
             return true;
         }},
        {"--scrape-interval",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readDuration("--scrape-interval", v, milliseconds(1000), milliseconds(3'600'000),
                                 f.scraper.interval, p);
         }},
        {"--scrape-timeout",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             milliseconds timeout{};
             if (!readDuration("--scrape-timeout", v, milliseconds(100), milliseconds(600'000), timeout, p)) return false;
             f.scrapeTimeout = timeout;
             return true;
         }},
        {"--scrape-concurrency",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readCount("--scrape-concurrency", v, 1, 65'536, f.scraper.http.maxConcurrent, p);
         }},
        {"--scrape-max-bytes",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readCount("--scrape-max-bytes", v, 4096, std::size_t(1) << 31, f.scraper.http.maxBytes, p);
         }},
        {"--scrape-frozen-after",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readDuration("--scrape-frozen-after", v, milliseconds(1000), milliseconds(86'400'000),
                                 f.scraper.frozenAfter, p);
         }},
        {"--scrape-dcgm",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readTargetUrl("--scrape-dcgm", v, f.scraper.targets.dcgmUrl, p);
         }},
        {"--scrape-node",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readTargetUrl("--scrape-node", v, f.scraper.targets.nodeUrl, p);
         }},
        {"--scrape-targets",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readFile("--scrape-targets", v, f.scraper.targets.targetsFile, p);
         }},
        {"--scrape-ca-file",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readFile("--scrape-ca-file", v, f.scraper.http.caFile, p);
         }},
        {"--scrape-client-cert",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readFile("--scrape-client-cert", v, f.scraper.http.clientCertFile, p);
         }},
        {"--scrape-client-key",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readFile("--scrape-client-key", v, f.scraper.http.clientKeyFile, p);
         }},
        {"--redfish-interval",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readDuration("--redfish-interval", v, milliseconds(1000), milliseconds(3'600'000),
                                 f.redfish.interval, p);
         }},
        {"--redfish-timeout",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             milliseconds timeout{};
             if (!readDuration("--redfish-timeout", v, milliseconds(100), milliseconds(600'000), timeout, p)) return false;
             f.redfishTimeout = timeout;
             return true;
         }},
        {"--redfish-connections",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readCount("--redfish-connections", v, 1, redfish::kMostRedfishConnections,
                              f.redfish.maxConnections, p);
         }},
        {"--redfish-max-bytes",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readCount("--redfish-max-bytes", v, 4096, std::size_t(1) << 30, f.redfish.maxBytes, p);
         }},
        {"--redfish-basic-auth",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             const auto colon = v.find(':');
             if (colon == std::string::npos || colon == 0 || colon + 1 == v.size())
                 return *p = "--redfish-basic-auth: expected USER:PASSWORD-FILE, got \"" + v + "\"", false;
             f.redfish.basicAuthUser = v.substr(0, colon);
             f.redfish.basicAuthPasswordFile = v.substr(colon + 1);
             return true;
         }},
        {"--redfish-ca-file",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             return readFile("--redfish-ca-file", v, f.redfish.caFile, p);
         }},
        {"--prom-post-above",
         [](const std::string& v, SourceFlags& f, std::string* p) {
             std::size_t n = 0;
             const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
             if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size() || n > 1'000'000)
                 return *p = "--prom-post-above: expected a URL length in bytes (0 = always POST), got \"" + v + "\"",
                        false;
             f.store.postAbove = n;
             return true;
         }},
    };
    return table;
}

}  // namespace

std::vector<prom::StoreOptions> SourceFlags::stores() const {
    std::vector<prom::StoreOptions> result;
    for (const auto& url : prometheusUrls) {
        prom::StoreOptions options = store;
        options.url = url;
        result.push_back(std::move(options));
    }
    return result;
}

std::vector<redfish::RedfishOptions> SourceFlags::redfishServices() const {
    std::vector<redfish::RedfishOptions> result;
    for (const auto& url : redfishUrls) {
        redfish::RedfishOptions options = redfish;
        options.url = url;
        options.timeout = redfishTimeout.value_or(std::min(redfish.interval, kLongestDefaultRedfishTimeout));
        options.connectTimeout = std::min(options.connectTimeout, options.timeout);
        result.push_back(std::move(options));
    }
    return result;
}

sources::ScrapeSourceOptions SourceFlags::scrapeOptions() const {
    sources::ScrapeSourceOptions options = scraper;
    options.http.timeout = scrapeTimeout.value_or(std::min(scraper.interval, kLongestDefaultScrapeTimeout));
    options.http.connectTimeout = std::min(options.http.connectTimeout, options.http.timeout);
    options.slurmJobs = slurmJobs;
    options.slurmConf = slurmConf;
    return options;
}

std::string SourceFlags::describe() const {
    const auto seconds = [](milliseconds d) {
        std::string text = std::to_string(double(d.count()) / 1000.0);
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') text.pop_back();
        return text + " s";
    };
    std::string stores = std::to_string(prometheusUrls.size()) + " Prometheus store(s)" +
                         (prometheusUrls.empty() ? std::string() : ", first " + prometheusUrls.front());
    const std::string cooling = redfishUrls.empty() ? std::string()
                                                    : " | cooling from " + std::to_string(redfishUrls.size()) +
                                                          " Redfish service(s) every " + seconds(redfish.interval) +
                                                          ", first " + redfishUrls.front();
    if (!gpuSource()) return "no GPU telemetry" + cooling;
    if (!scrape) return stores + cooling;
    return "scraping exporters every " + seconds(scraper.interval) +
           (prometheusUrls.empty() ? std::string() : " | history from " + stores) + cooling;
}

bool isSourceFlag(const std::string& flag) { return handlers().count(flag) != 0; }

std::vector<std::string> sourceFlagNames() {
    std::vector<std::string> names;
    for (const auto& [flag, handler] : handlers()) names.push_back(flag);
    return names;
}

bool applySourceFlag(const std::string& flag, const std::string& value, SourceFlags& flags, std::string* problem) {
    flags.given.push_back(flag);
    return handlers().at(flag)(value, flags, problem);
}

bool checkSourceCombination(const SourceFlags& flags, std::string* problem) {
    for (const auto& flag : flags.given) {
        const bool scrapeFlag = flag.rfind("--scrape-", 0) == 0;
        if (scrapeFlag && !flags.scrape) return *problem = flag + " needs --source scrape", false;
        if (flag.rfind("--redfish-", 0) == 0 && flags.redfishUrls.empty())
            return *problem = flag + " needs --source redfish=URL", false;
        const bool storeFlag = flag.rfind("--prom-", 0) == 0 || flag.rfind("--store-", 0) == 0 || flag == "--poll";
        if (storeFlag && flags.prometheusUrls.empty() && !flags.redfishUrls.empty() && !flags.scrape)
            return *problem = flag + " needs --source prometheus=URL (--source redfish=URL reads cooling only)", false;
        // With the scraper live, a store is read for history only: nothing polls it.
        if (flags.scrape && (flag == "--poll" || flag == "--store-lookback"))
            return *problem = flag +
                              " is for polling a store; with --source scrape the store (--source "
                              "prometheus=URL) only answers history",
                   false;
    }
    if (flags.redfishTimeout && *flags.redfishTimeout > flags.redfish.interval)
        return *problem = "--redfish-timeout must not exceed --redfish-interval (the tree is walked once per interval)",
               false;
    if (flags.scrape && flags.scrapeTimeout && *flags.scrapeTimeout > flags.scraper.interval)
        return *problem = "--scrape-timeout must not exceed --scrape-interval (a target is scraped once per interval)",
               false;
    return true;
}

std::string sourceUsageText() {
    return "Real telemetry (instead of the twin; needs --fleet FILE with the site's inventory):\n"
           "  --source scrape        scrape every tray's dcgm-exporter and node_exporter directly (live values\n"
           "                         one interval old); with --source prometheus=URL too, the store answers history\n"
           "  --scrape-interval D    how often each target is scraped (default 5s, 1s..1h)\n"
           "  --scrape-timeout D     per scrape (default the interval, at most 10s)\n"
           "  --scrape-dcgm URL      dcgm-exporter of each tray (default http://{address}:9400/metrics;\n"
           "                         {address} (addresses= of the fleet file, else the host name), {host},\n"
           "                         {rack}, {node} are replaced; none = not scraped)\n"
           "  --scrape-node URL      node_exporter of each tray (default http://{address}:9100/metrics)\n"
           "  --scrape-targets FILE  exceptions per rack or host: lines 'rack|host NAME dcgm=URL node=URL'\n"
           "  --scrape-concurrency N scrapes in flight at once (default 256)\n"
           "  --scrape-frozen-after D  a target whose values (or one GPU's) do not change for D is silent\n"
           "                         (frozen; default 60s: above dcgm-exporter's default 30 s collect interval)\n"
           "  --scrape-max-bytes N   largest page read (default 16 MiB, counted after gzip)\n"
           "  --scrape-ca-file FILE, --scrape-client-cert FILE --scrape-client-key FILE  TLS for https targets\n"
           "  --source prometheus=URL  read dcgm-exporter and node_exporter series through a Prometheus-\n"
           "                         compatible store (Prometheus, VictoriaMetrics, Thanos, Mimir; URL may\n"
           "                         carry a path prefix). Repeat for shards. --source twin = the default\n"
           "  --poll D               how often to query the store (default 15s, 1s..1h)\n"
           "  --store-scrape-interval D  how often the store scrapes the exporters (default 15s): a value\n"
           "                         is stale once older than 3 x (poll + scrape interval) plus the\n"
           "                         store's delivery lag, learned from its sample times\n"
           "  --store-lookback D     the store's instant-query lookback (default 5m)\n"
           "  --prom-timeout D       per request (default 10s)\n"
           "  --prom-tenant ID       X-Scope-OrgID header (Grafana Mimir, Cortex)\n"
           "  --prom-bearer-token-file FILE  Authorization: Bearer <file contents>, re-read when it changes\n"
           "  --prom-basic-auth USER:PASSWORD-FILE  HTTP basic authentication\n"
           "  --prom-ca-file FILE    CA bundle for an https store\n"
           "  --prom-client-cert FILE --prom-client-key FILE  TLS client certificate\n"
           "  --prom-post-above N    send queries as POST when the URL would exceed N bytes (default 1024)\n"
           "  --source redfish=URL   liquid cooling from the Redfish service of the CDUs or the building-\n"
           "                         management aggregator (http(s)://HOST[:PORT]; never tray BMCs):\n"
           "                         flow, supply/return temperature, dP, valve, pumps, leak detectors per\n"
           "                         rack loop, mapped by the fleet file's cdu=/connector=/leak_detectors=.\n"
           "                         Beside --source scrape or prometheus=URL, or alone. Repeatable\n"
           "  --redfish-interval D   how often the cooling tree is walked (default 5s, 1s..1h)\n"
           "  --redfish-timeout D    per request (default the interval, at most 5s)\n"
           "  --redfish-connections N  connections to one Redfish service at once (1..4, default 4)\n"
           "  --redfish-max-bytes N  largest answer read (default 4 MiB)\n"
           "  --redfish-basic-auth USER:PASSWORD-FILE  HTTP basic authentication\n"
           "  --redfish-ca-file FILE CA bundle for an https service\n"
           "  --jobs slurm[=SLURM_CONF]  running jobs and their trays from Slurm's squeue, read each poll;\n"
           "                         goodput for jobs that publish training_step/checkpoint_step gauges\n";
}

}  // namespace watchfloor::server::fleetd
