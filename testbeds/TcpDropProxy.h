#pragma once
// A loopback TCP proxy in front of a server that cuts connections to provoke the client's
// retries — the network dying mid-call, as the client sees it (connection reset, RST on both
// sides), without touching the server process. Three ways to break things:
//   - dropConnections(): every open connection at once, at whatever moment the test chooses;
//   - cutNextCallAt(point): the connection open now, at a chosen point of its next exchange
//     (after the request went upstream, at the first answer byte, after part of the answer);
//   - setRefusing(true): new connections are accepted and reset, like a server that is down.
//
// Plain POSIX sockets and threads: one thread accepts, one thread per connection pumps both ways.

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

namespace watchfloor::testing {

class TcpDropProxy {
public:
    // Where cutNextCallAt() breaks the connection, in the order a unary call gets there.
    enum class CutPoint {
        AfterRequestForwarded,  // the server has the request; the answer is lost
        AtFirstAnswerByte,      // the server answered; the client sees none of it
        AfterFirstAnswerChunk,  // the client got part of the answer, then the reset
    };

    // Listens on 127.0.0.1 (an ephemeral port) and forwards to 127.0.0.1:upstreamPort.
    explicit TcpDropProxy(std::uint16_t upstreamPort);
    // Listens on another loopback address (127.0.0.0/8, host byte order: every address of it
    // reaches lo on Linux) and port (0: ephemeral), e.g. to stand for hosts scraped by IP.
    // Throws std::runtime_error when it cannot listen there, std::invalid_argument outside 127/8.
    TcpDropProxy(std::uint16_t upstreamPort, std::uint32_t listenAddress, std::uint16_t listenPort);
    ~TcpDropProxy();
    TcpDropProxy(const TcpDropProxy&) = delete;
    TcpDropProxy& operator=(const TcpDropProxy&) = delete;

    std::uint16_t port() const { return m_port; }
    // Resets every open connection (both sides). Returns how many were cut.
    int dropConnections();
    // One connection open now cuts itself at `point` of the traffic that follows. Accepting a new
    // connection disarms it: the cut is meant for the call on the connection the client has.
    void cutNextCallAt(CutPoint point) { m_armedCut = armedValue(point); }
    int callsCut() const { return m_callsCut; }
    // While refusing, accepted connections are reset at once and nothing reaches upstream.
    void setRefusing(bool refusing) { m_refusing = refusing; }
    int connectionsAccepted() const { return m_accepted; }
    int connectionsRefused() const { return m_refused; }

private:
    struct Connection;
    static constexpr int kDisarmed = 0;
    static int armedValue(CutPoint point) { return static_cast<int>(point) + 1; }
    // True for the one pump that gets to make the armed cut at `point`.
    bool takeArmedCut(CutPoint point);
    void acceptLoop();
    void pump(const std::shared_ptr<Connection>& connection);

    std::uint16_t m_upstreamPort;
    int m_listenFd = -1;
    std::uint16_t m_port = 0;
    int m_wakePipe[2] = {-1, -1};
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_refusing{false};
    std::atomic<int> m_armedCut{kDisarmed};
    std::atomic<int> m_callsCut{0};
    std::atomic<int> m_accepted{0};
    std::atomic<int> m_refused{0};
    std::thread m_acceptThread;
    std::mutex m_mutex;
    std::list<std::shared_ptr<Connection>> m_connections;
};

}  // namespace watchfloor::testing
