#pragma once
// A loopback TCP proxy that can cut every connection at once — the network dying mid-call, as
// the console sees it (connection reset), without touching the server process. Also refuses
// (accepts and resets) new connections on demand, like a fleetd that is down.
//
// Plain POSIX sockets and threads: one thread accepts, one thread per connection pumps both ways.

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

namespace watchfloor::testsupport {

class TcpDropProxy {
public:
    // Listens on 127.0.0.1 (an ephemeral port) and forwards to 127.0.0.1:upstreamPort.
    explicit TcpDropProxy(std::uint16_t upstreamPort);
    ~TcpDropProxy();
    TcpDropProxy(const TcpDropProxy&) = delete;
    TcpDropProxy& operator=(const TcpDropProxy&) = delete;

    std::uint16_t port() const { return m_port; }
    // Resets every open connection (both sides). Returns how many were cut.
    int dropConnections();
    // While refusing, accepted connections are reset at once and nothing reaches upstream.
    void setRefusing(bool refusing) { m_refusing = refusing; }
    int connectionsAccepted() const { return m_accepted; }
    int connectionsRefused() const { return m_refused; }

private:
    struct Connection;
    void acceptLoop();
    void pump(const std::shared_ptr<Connection>& connection);

    std::uint16_t m_upstreamPort;
    int m_listenFd = -1;
    std::uint16_t m_port = 0;
    int m_wakePipe[2] = {-1, -1};
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_refusing{false};
    std::atomic<int> m_accepted{0};
    std::atomic<int> m_refused{0};
    std::thread m_acceptThread;
    std::mutex m_mutex;
    std::list<std::shared_ptr<Connection>> m_connections;
};

}  // namespace watchfloor::testsupport
