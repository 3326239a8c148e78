#pragma once
// Prometheus text exposition at GET (and HEAD) /metrics, so fleetd's own health (tick rate,
// subscribers, replay log) can be scraped like any other exporter. Served by cpp-httplib on a
// small pool of threads with short timeouts: a connection that sends nothing holds one thread
// for at most kIdleTimeout, and a scrape finds a free thread beside many idle connections.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace watchfloor::server::service {

class MetricsEndpoint {
public:
    using Render = std::function<std::string()>;  // the exposition text

    static constexpr std::size_t kThreads = 16;
    static constexpr std::chrono::seconds kIdleTimeout{2};

    // Listens on HOST:PORT (port 0 = any free port); nullptr and `error` when it cannot.
    [[nodiscard]] static std::unique_ptr<MetricsEndpoint> start(const std::string& hostPort, Render render,
                                                                std::string* error);
    ~MetricsEndpoint();

    int port() const { return port_; }

private:
    MetricsEndpoint() = default;

    std::unique_ptr<httplib::Server> server_;
    int port_ = 0;
    std::thread thread_;
};

}  // namespace watchfloor::server::service
