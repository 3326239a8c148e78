#pragma once
// GETs against one Redfish service, several at once over libcurl's multi interface (the same
// TransferPool as fleetd's store client and scraper): at most `maxConnections` connections to the
// service's host, kept alive between polls; every request with its own timeout; answers cut off at
// a size cap (counted after gzip is undone); only JSON answers with a 2xx status are answers.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace watchfloor::server::redfish {

struct RedfishOptions {
    std::string url;                           // http(s)://HOST[:PORT], the service root's host
    std::chrono::milliseconds interval{5000};  // between polls
    std::chrono::milliseconds timeout{5000};   // per request
    std::chrono::milliseconds connectTimeout{2000};
    // Connections to the service at once. A facility aggregator or CDU controller is a small
    // embedded web server; NVIDIA advises at most four client connections even to a GB200 BMC.
    std::size_t maxConnections = 4;
    std::size_t maxBytes = std::size_t(4) << 20;        // per answer
    std::string basicAuthUser, basicAuthPasswordFile;   // HTTP basic authentication (Redfish's simplest)
    std::string caFile, clientCertFile, clientKeyFile;  // https
};

inline constexpr std::size_t kMostRedfishConnections = 4;

struct Fetched {
    std::string path;
    bool ok = false;
    int httpStatus = 0;  // 0: no HTTP answer
    std::string error;   // when !ok: one line naming the URL
    std::string body;
    std::int64_t startedUnixMs = 0;  // when the request was sent: the sample time of its readings
};

class RedfishHttp {  // used from one thread
public:
    explicit RedfishHttp(RedfishOptions options);
    ~RedfishHttp();
    RedfishHttp(const RedfishHttp&) = delete;
    RedfishHttp& operator=(const RedfishHttp&) = delete;

    // Every path (an @odata.id: "/redfish/v1/..."), in order; returns when all have ended.
    std::vector<Fetched> fetchAll(const std::vector<std::string>& paths);
    const RedfishOptions& options() const { return options_; }

private:
    class Impl;
    RedfishOptions options_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace watchfloor::server::redfish
