#pragma once
// One exchange at a time with one Alertmanager's API v2 over libcurl (the store client's
// TransferPool, so the connection is kept alive between exchanges): JSON bodies, a timeout per
// exchange, errors as one line naming the endpoint (never its credentials).

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace watchfloor::server::paging {

struct HttpOptions {
    std::string url;  // http(s)://HOST:PORT[/prefix], Alertmanager's base (its --web.route-prefix included)
    std::chrono::milliseconds timeout{5000};
    std::chrono::milliseconds connectTimeout{2000};
};

struct Exchange {
    bool ok = false;     // a 2xx answer
    int httpStatus = 0;  // 0: no answer (connection refused, timeout, ...)
    std::string error;   // !ok: one line
    std::string body;
    // A 4xx other than 408/429: Alertmanager refused this request itself; sending it again
    // cannot succeed.
    bool refused() const { return httpStatus >= 400 && httpStatus < 500 && httpStatus != 408 && httpStatus != 429; }
};

class AlertmanagerHttp {  // used from one thread
public:
    explicit AlertmanagerHttp(HttpOptions options);
    ~AlertmanagerHttp();
    AlertmanagerHttp(const AlertmanagerHttp&) = delete;
    AlertmanagerHttp& operator=(const AlertmanagerHttp&) = delete;

    Exchange post(std::string_view path, std::string body);  // path: "/api/v2/alerts"
    Exchange remove(std::string_view path);                  // DELETE
    Exchange get(std::string_view path);
    // The base URL without credentials, as messages and the status name it.
    const std::string& target() const { return target_; }

private:
    class Impl;
    std::string target_;
    std::unique_ptr<Impl> impl_;
};

// The base URL fleetd's --alertmanager accepts: http:// or https://, a host, no query; trailing
// slashes dropped. Empty with `problem` set otherwise.
std::string normalisedAlertmanagerUrl(std::string_view url, std::string& problem);

}  // namespace watchfloor::server::paging
