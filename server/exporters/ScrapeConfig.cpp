#include "ScrapeConfig.h"

#include "ExporterPages.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace watchfloor::server::exporters {

namespace {

void appendJsonString(std::string& out, const std::string& text) {
    out += '"';
    for (const unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                static constexpr char kHex[] = "0123456789abcdef";
                out += "\\u00";
                out += kHex[c >> 4];
                out += kHex[c & 0xf];
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    out += '"';
}

// YAML single-quoted scalar: a quote is doubled, nothing else is special.
std::string yamlQuoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        out += c;
        if (c == '\'') out += '\'';
    }
    return out + "'";
}

bool writeAtomically(const std::filesystem::path& path, const std::string& text, std::string* error) {
    const std::filesystem::path temporary = path.string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) return *error = "cannot write " + temporary.string(), false;
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) return *error = "cannot rename " + temporary.string() + " to " + path.string() + ": " + ec.message(), false;
    return true;
}

}  // namespace

std::string prometheusDuration(std::chrono::milliseconds duration) {
    const auto ms = duration.count();
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + "s" : std::to_string(ms) + "ms";
}

std::string renderPrometheusConfig(const std::string& dir, const ScrapeConfigOptions& options) {
    // Prometheus refuses a scrape_timeout longer than the interval; 10 s is its default.
    const auto timeout = std::min(options.scrapeInterval, std::chrono::milliseconds(10'000));
    const std::filesystem::path base(dir);
    std::string yaml =
        "# The digital twin's exporters, one dcgm-exporter and one node_exporter per compute tray,\n"
        "# served by fleetd --serve-exporters " +
        options.exporterAddress +
        ".\n"
        "global:\n"
        "  scrape_interval: " +
        prometheusDuration(options.scrapeInterval) +
        "\n"
        "  scrape_timeout: " +
        prometheusDuration(timeout) +
        "\n"
        "scrape_configs:\n";
    for (const auto& [job, file] : {std::pair{"dcgm", kDcgmTargetsFile}, std::pair{"node", kNodeTargetsFile}}) {
        yaml += "  - job_name: ";
        yaml += job;
        yaml += "\n    file_sd_configs:\n      - files:\n          - " + yamlQuoted((base / file).string()) + "\n";
    }
    return yaml;
}

std::string renderTargets(const ScrapeConfigOptions& options, const std::string& pathPrefix, int instancePort) {
    std::string json = "[\n";
    for (std::size_t i = 0; i < options.hostnames.size(); ++i) {
        const std::string& host = options.hostnames[i];
        json += "  {\"targets\":[";
        appendJsonString(json, options.exporterAddress);
        json += "],\"labels\":{\"__metrics_path__\":";
        appendJsonString(json, pathPrefix + host + "/metrics");
        json += ",\"instance\":";
        appendJsonString(json, host + ":" + std::to_string(instancePort));
        json += i + 1 < options.hostnames.size() ? "}},\n" : "}}\n";
    }
    return json + "]\n";
}

bool writeScrapeConfig(const std::string& dir, const ScrapeConfigOptions& options, std::string* error) {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::absolute(dir, ec);
    if (ec) return *error = "cannot resolve " + dir + ": " + ec.message(), false;
    std::filesystem::create_directories(base, ec);
    if (ec) return *error = "cannot create " + base.string() + ": " + ec.message(), false;
    // Targets first: a Prometheus already watching the directory then never sees a config
    // naming files that are not there yet.
    return writeAtomically(base / kDcgmTargetsFile, renderTargets(options, "/dcgm/", kDcgmExporterPort), error) &&
           writeAtomically(base / kNodeTargetsFile, renderTargets(options, "/node/", kNodeExporterPort), error) &&
           writeAtomically(base / kPrometheusConfigFile, renderPrometheusConfig(base.string(), options), error);
}

}  // namespace watchfloor::server::exporters
