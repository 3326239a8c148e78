#pragma once
// Fetching exporters' /metrics pages directly, many at once: fleetd's --source scrape. The same
// libcurl machinery as the store client (TransferPool, CurlTransfer): keep-alive connections kept
// between rounds, each transfer with its own timeout and connect timeout, the answer cut off at a
// size cap counted after gzip is undone, redirects bounded. What to scrape when, and what a page
// means, is the caller's business: this only turns a URL into a page or a one-line reason.

#include "Exposition.h"
#include "PromClient.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace watchfloor::server::prom {

struct ScrapeOptions {
    std::chrono::milliseconds timeout{5000};            // whole request
    std::chrono::milliseconds connectTimeout{2000};     // TCP (+ TLS) connect
    std::size_t maxBytes = std::size_t(16) << 20;       // decoded page bytes; more is an error
    std::size_t maxConcurrent = 256;                    // transfers in flight (the caller keeps to it)
    std::size_t maxHostConnections = 0;                 // to one host:port at once (a test bed serving every
                                                        // host from one port); 0 = maxConcurrent
    std::size_t keptConnections = 256;                  // idle keep-alive connections kept between rounds
    int maxRedirects = 3;                               // on the target's own host; one elsewhere is refused
    std::string caFile, clientCertFile, clientKeyFile;  // https targets
};

struct ScrapeResult {
    std::size_t target = 0;  // the caller's id, as given to start()
    bool ok = false;         // a 2xx answer with a metrics Content-Type
    int httpStatus = 0;      // 0 = no HTTP answer
    std::string error;       // when !ok: one line an operator can act on, naming the URL
    std::string_view body;   // the page; valid during the callback only
    ExpositionFormat format = ExpositionFormat::PrometheusText;
    double seconds = 0;              // the exchange
    std::int64_t startedUnixMs = 0;  // when the request was sent: the page's sample time
};

class Scraper {  // used from one thread
public:
    explicit Scraper(ScrapeOptions options);
    ~Scraper();
    Scraper(const Scraper&) = delete;
    Scraper& operator=(const Scraper&) = delete;

    // Starts a GET of `url` (http or https) and returns at once.
    void start(std::size_t target, const std::string& url);
    using Done = std::function<void(const ScrapeResult&)>;
    // Moves every transfer, calls `done` for each that finished, then waits at most `wait` for
    // sockets or timers. Returns the transfers still in flight.
    std::size_t run(std::chrono::milliseconds wait, const Done& done);
    std::size_t inFlight() const;
    const ScrapeOptions& options() const { return options_; }

private:
    class Impl;
    ScrapeOptions options_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace watchfloor::server::prom
