#pragma once
// The scrape configuration that points a real Prometheus (or VictoriaMetrics with
// -promscrape.config) at the twin's exporters as if they ran on every compute tray:
//
//   DIR/prometheus.yml        global scrape_interval/scrape_timeout, jobs "dcgm" and "node",
//                             each reading its targets with file_sd_configs
//   DIR/dcgm-targets.json     one target per host: the exporter server's address, with
//   DIR/node-targets.json     __metrics_path__ = /dcgm/<host>/metrics (/node/...) and
//                             instance = <host>:9400 (<host>:9100)
//
// so every series carries the job and instance labels a real site's would. The file uses only
// what both Prometheus 2.x and VictoriaMetrics 1.79 accept (VictoriaMetrics rejects unknown
// fields by default).

#include <chrono>
#include <string>
#include <vector>

namespace watchfloor::server::exporters {

struct ScrapeConfigOptions {
    std::string exporterAddress;  // HOST:PORT where scrapers reach the ExporterServer
    std::vector<std::string> hostnames;
    std::chrono::milliseconds scrapeInterval{15'000};
};

inline constexpr const char* kPrometheusConfigFile = "prometheus.yml";
inline constexpr const char* kDcgmTargetsFile = "dcgm-targets.json";
inline constexpr const char* kNodeTargetsFile = "node-targets.json";

// A Prometheus duration: whole seconds as "15s", anything finer in milliseconds ("1500ms").
std::string prometheusDuration(std::chrono::milliseconds duration);
// prometheus.yml naming the two targets files in `dir` (absolute paths).
std::string renderPrometheusConfig(const std::string& dir, const ScrapeConfigOptions& options);
// A file_sd JSON document for one exporter ("dcgm" at 9400 or "node" at 9100).
std::string renderTargets(const ScrapeConfigOptions& options, const std::string& pathPrefix, int instancePort);

// Creates `dir` if needed and writes the three files, each through a temporary file renamed
// into place (Prometheus re-reads file_sd files when they change). False and `error` on failure.
[[nodiscard]] bool writeScrapeConfig(const std::string& dir, const ScrapeConfigOptions& options, std::string* error);

}  // namespace watchfloor::server::exporters
