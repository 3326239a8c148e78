#pragma once
// Many HTTP exchanges at once on one libcurl multi handle: the store client's concurrent queries
// and the scraper's thousands of targets share this. Easy handles live as long as the pool, so
// connections (keep-alive) and TLS sessions are reused from one round to the next; a handle is
// idle between its transfers.

#include "CurlTransfer.h"

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace watchfloor::server::prom::detail {

class TransferPool {
public:
    // maxHostConnections: open connections to one host:port at once; keptConnections: the
    // connection cache (idle keep-alive connections beyond it are closed).
    TransferPool(std::size_t maxHostConnections, std::size_t keptConnections);
    ~TransferPool();
    TransferPool(const TransferPool&) = delete;
    TransferPool& operator=(const TransferPool&) = delete;

    // Prepares an idle handle (or a new one) for `request` and adds it to the multi handle.
    CurlTransfer& start(const Request& request, const RequestAuth& auth, const StoreOptions& options, std::size_t tag);
    using Done = std::function<void(CurlTransfer& transfer, CURLcode code)>;
    // Lets libcurl move every transfer, calls `done` for each that finished (the handle is idle
    // again once `done` returns: its body is only valid during the call), then waits for sockets
    // or libcurl's next timer, at most `wait` when transfers remain. Returns the transfers in flight.
    std::size_t perform(std::chrono::milliseconds wait, const Done& done);
    std::size_t active() const { return active_; }

private:
    CURLM* multi_ = nullptr;
    std::vector<std::unique_ptr<CurlTransfer>> transfers_;
    std::vector<CurlTransfer*> idle_;
    std::size_t active_ = 0;
};

// libcurl's global state, set up once for the process before the first handle.
void initialiseCurlOnce();

}  // namespace watchfloor::server::prom::detail
