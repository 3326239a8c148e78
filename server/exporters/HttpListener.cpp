#include "HttpListener.h"

#include <httplib.h>

#include <charconv>
#include <chrono>

namespace watchfloor::server::exporters {

namespace {

bool splitHostPort(const std::string& address, std::string* host, int* port) {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0) return false;
    *host = address.substr(0, colon);
    if (host->size() > 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
    const char* first = address.data() + colon + 1;
    const char* last = address.data() + address.size();
    const auto [end, ec] = std::from_chars(first, last, *port);
    return first != last && ec == std::errc() && end == last && *port >= 0 && *port <= 65535;
}

}  // namespace

HttpListener::HttpListener() : http_(std::make_unique<httplib::Server>()) {}

HttpListener::~HttpListener() { stop(); }

bool HttpListener::listen(const std::string& address, std::size_t threads, const std::string& what,
                          std::string* error) {
    int wanted = 0;
    if (!splitHostPort(address, &host_, &wanted)) {
        *error = what + ": expected HOST:PORT, got \"" + address + "\"";
        return false;
    }
    auto& http = *http_;
    threads = std::max<std::size_t>(1, threads);
    http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    // A scraper gives up after its timeout; a stuck client must not hold a pool thread longer.
    http.set_read_timeout(10, 0);
    http.set_write_timeout(10, 0);
    // One request per connection. A real site has one exporter per host, so every scraper holds a
    // keep-alive connection to each target; here all hosts share one server, and cpp-httplib parks a
    // pool thread on each idle keep-alive connection: 72 targets scraped every second by
    // VictoriaMetrics starved a 4-thread pool into 1 s scrape timeouts. Closing after each answer
    // frees the thread at once; reconnecting on loopback costs microseconds.
    http.set_keep_alive_max_count(1);
    http.set_keep_alive_timeout(1);
    const int bound = wanted == 0 ? http.bind_to_any_port(host_) : (http.bind_to_port(host_, wanted) ? wanted : -1);
    if (bound <= 0) {
        *error = what + ": cannot listen on " + address;
        return false;
    }
    port_ = bound;
    thread_ = std::thread([&http] { http.listen_after_bind(); });
    // stop() only interrupts a server that is already accepting: wait for it so an immediate
    // stop cannot leave the accept loop running and the join hanging.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!http.is_running() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!http.is_running()) {
        *error = what + ": the HTTP server on " + this->address() + " did not start";
        return false;  // stop() finds the thread finished or never accepting
    }
    return true;
}

void HttpListener::stop() {
    if (!thread_.joinable()) return;
    http_->stop();
    thread_.join();
}

}  // namespace watchfloor::server::exporters
