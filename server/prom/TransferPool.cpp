#include "TransferPool.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace watchfloor::server::prom::detail {

void initialiseCurlOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw std::runtime_error("curl_global_init failed");
    });
}

TransferPool::TransferPool(std::size_t maxHostConnections, std::size_t keptConnections) {
    initialiseCurlOnce();
    multi_ = curl_multi_init();
    if (!multi_) throw std::runtime_error("curl_multi_init failed");
    curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS,
                      static_cast<long>(std::max<std::size_t>(1, maxHostConnections)));
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(std::max<std::size_t>(1, keptConnections)));
}

TransferPool::~TransferPool() {
    for (auto& transfer : transfers_) curl_multi_remove_handle(multi_, transfer->handle());
    transfers_.clear();
    curl_multi_cleanup(multi_);
}

CurlTransfer& TransferPool::start(const Request& request, const RequestAuth& auth, const StoreOptions& options,
                                  std::size_t tag) {
    CurlTransfer* transfer = nullptr;
    if (!idle_.empty()) {
        transfer = idle_.back();
        idle_.pop_back();
    } else {
        transfers_.push_back(std::make_unique<CurlTransfer>());
        transfer = transfers_.back().get();
    }
    transfer->prepare(request, auth, options, tag);
    curl_multi_add_handle(multi_, transfer->handle());
    ++active_;
    return *transfer;
}

std::size_t TransferPool::perform(std::chrono::milliseconds wait, const Done& done) {
    int running = 0;
    curl_multi_perform(multi_, &running);
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
        if (message->msg != CURLMSG_DONE) continue;
        CurlTransfer* transfer = nullptr;
        curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &transfer);
        const CURLcode code = message->data.result;
        curl_multi_remove_handle(multi_, message->easy_handle);
        --active_;
        done(*transfer, code);
        transfer->releaseLargeBuffer();
        idle_.push_back(transfer);
    }
    // Every transfer carries its own timeout, so a caller's loop ends; this only waits for
    // sockets or libcurl's next timer.
    if (active_ > 0 && wait.count() > 0) curl_multi_poll(multi_, nullptr, 0, static_cast<int>(wait.count()), nullptr);
    return active_;
}

}  // namespace watchfloor::server::prom::detail
