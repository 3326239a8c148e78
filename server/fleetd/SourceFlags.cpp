#include "SourceFlags.h"

#include "DurationParse.h"

#include <charconv>
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

// http(s)://host[:port][/prefix], nothing after the path (the API paths are appended).
bool validStoreUrl(const std::string& url) {
    const bool http = url.rfind("http://", 0) == 0, https = url.rfind("https://", 0) == 0;
    if (!http && !https) return false;
    const std::string rest = url.substr(https ? 8 : 7);
    return !rest.empty() && rest[0] != '/' && rest.find_first_of("?# ") == std::string::npos;
}

using Handler = std::function<bool(const std::string& value, SourceFlags& flags, std::string* problem)>;

const std::map<std::string, Handler>& handlers() {
    static const std::map<std::string, Handler> table = {
        {"--source",
         [](const std::string& v, SourceFlags& f, std::string* problem) {
             if (v == "twin" || v == "simulate") return true;
             const std::string prefix = "prometheus=";
             if (v.rfind(prefix, 0) != 0)
                 return *problem = "--source: expected twin or prometheus=URL, got \"" + v + "\"", false;
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

bool isSourceFlag(const std::string& flag) { return handlers().count(flag) != 0; }

bool applySourceFlag(const std::string& flag, const std::string& value, SourceFlags& flags, std::string* problem) {
    return handlers().at(flag)(value, flags, problem);
}

std::string sourceUsageText() {
    return "Real telemetry (instead of the twin; needs --fleet FILE with the site's inventory):\n"
           "  --source prometheus=URL  read dcgm-exporter and node_exporter series through a Prometheus-\n"
           "                         compatible store (Prometheus, VictoriaMetrics, Thanos, Mimir; URL may\n"
           "                         carry a path prefix). Repeat for shards. --source twin = the default\n"
           "  --poll D               how often to query the store (default 15s, 1s..1h)\n"
           "  --store-scrape-interval D  how often the store scrapes the exporters (default 15s): a value\n"
           "                         is stale once older than 3 x (poll + scrape interval)\n"
           "  --store-lookback D     the store's instant-query lookback (default 5m)\n"
           "  --prom-timeout D       per request (default 10s)\n"
           "  --prom-tenant ID       X-Scope-OrgID header (Grafana Mimir, Cortex)\n"
           "  --prom-bearer-token-file FILE  Authorization: Bearer <file contents>, re-read when it changes\n"
           "  --prom-basic-auth USER:PASSWORD-FILE  HTTP basic authentication\n"
           "  --prom-ca-file FILE    CA bundle for an https store\n"
           "  --prom-client-cert FILE --prom-client-key FILE  TLS client certificate\n"
           "  --prom-post-above N    send queries as POST when the URL would exceed N bytes (default 1024)\n"
           "  --jobs slurm[=SLURM_CONF]  running jobs and their trays from Slurm's squeue, read each poll;\n"
           "                         goodput for jobs that publish training_step/checkpoint_step gauges\n";
}

}  // namespace watchfloor::server::fleetd
