#include "SourceFlags.h"

#include <algorithm>

namespace watchfloor::server::fleetd {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds kLongestDefaultScrapeTimeout{10'000};
constexpr milliseconds kLongestDefaultRedfishTimeout{5'000};

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

}  // namespace watchfloor::server::fleetd
