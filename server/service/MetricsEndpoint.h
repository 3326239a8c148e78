#pragma once
// A minimal HTTP endpoint serving Prometheus text exposition at GET /metrics, so fleetd's own
// health (tick rate, subscribers, replay log) can be scraped like any other exporter. One thread,
// one short request at a time: scrapes are rare and small.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace watchfloor::server::service {

class MetricsEndpoint {
public:
    using Render = std::function<std::string()>;  // the exposition text

    // Listens on HOST:PORT (port 0 = any free port); nullptr and `error` when it cannot.
    static std::unique_ptr<MetricsEndpoint> start(const std::string& hostPort, Render render, std::string* error);
    ~MetricsEndpoint();

    int port() const { return port_; }

private:
    MetricsEndpoint() = default;
    void serve();
    void answer(int client);

    Render render_;
    int listenFd_ = -1;
    int wakeFds_[2] = {-1, -1};
    int port_ = 0;
    std::thread thread_;
};

}  // namespace watchfloor::server::service
