#pragma once
// The listening part every HTTP server of the twin shares (exporter pages, the Redfish tree):
// HOST:PORT parsed, a bounded pool of threads, timeouts so a stuck client cannot hold a thread,
// one request per connection, and a start that returns only once the server accepts.

#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace watchfloor::server::exporters {

class HttpListener {
public:
    HttpListener();
    ~HttpListener();  // stops

    httplib::Server& http() { return *http_; }
    // Routes must be registered before. `what` names the server in errors ("exporters").
    [[nodiscard]] bool listen(const std::string& address, std::size_t threads, const std::string& what,
                              std::string* error);
    void stop();  // idempotent

    const std::string& host() const { return host_; }
    int port() const { return port_; }
    std::string address() const { return host_ + ":" + std::to_string(port_); }

private:
    std::unique_ptr<httplib::Server> http_;
    std::thread thread_;
    std::string host_;
    int port_ = 0;
};

}  // namespace watchfloor::server::exporters
