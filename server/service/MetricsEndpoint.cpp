#include "MetricsEndpoint.h"

#include <httplib.h>

#include <arpa/inet.h>

namespace watchfloor::server::service {

std::unique_ptr<MetricsEndpoint> MetricsEndpoint::start(const std::string& hostPort, Render render,
                                                        std::string* error) {
    const auto colon = hostPort.rfind(':');
    const std::string host = colon == std::string::npos ? "" : hostPort.substr(0, colon);
    const int port = colon == std::string::npos ? -1 : std::atoi(hostPort.c_str() + colon + 1);
    const std::string address = host == "localhost" ? "127.0.0.1" : host;
    in_addr parsed{};
    if (port < 0 || port > 65535 || inet_pton(AF_INET, address.c_str(), &parsed) != 1) {
        *error = "metrics address \"" + hostPort + "\" is not IPv4-HOST:PORT";
        return nullptr;
    }
    std::unique_ptr<MetricsEndpoint> self(new MetricsEndpoint);
    self->server_ = std::make_unique<httplib::Server>();
    httplib::Server& server = *self->server_;
    server.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
    server.set_read_timeout(kIdleTimeout);
    server.set_write_timeout(kIdleTimeout);
    server.set_keep_alive_timeout(kIdleTimeout.count());
    // cpp-httplib answers HEAD from the GET handler, without the body.
    server.Get("/metrics", [render = std::move(render)](const httplib::Request&, httplib::Response& response) {
        response.set_content(render(), "text/plain; version=0.0.4; charset=utf-8");
    });
    server.set_error_handler([](const httplib::Request&, httplib::Response& response) {
        if (response.status == 404) response.set_content("fleetd serves only GET /metrics\n", "text/plain");
    });
    const int bound = port == 0 ? server.bind_to_any_port(address) : (server.bind_to_port(address, port) ? port : -1);
    if (bound <= 0) {
        *error = "cannot serve metrics on " + hostPort + ": the address is taken or not local";
        return nullptr;
    }
    self->port_ = bound;
    self->thread_ = std::thread([&server] { server.listen_after_bind(); });
    // stop() only ends a server that is already running: wait for it, so a quick destruction
    // cannot leave the thread listening forever.
    for (int waited = 0; !server.is_running() && waited < 5000; ++waited)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return self;
}

MetricsEndpoint::~MetricsEndpoint() {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
}

}  // namespace watchfloor::server::service
