#include "TcpDropProxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <vector>

namespace watchfloor::testing {

struct TcpDropProxy::Connection {
    int client = -1;
    int upstream = -1;
    std::atomic<bool> cut{false};
    std::thread thread;
};

namespace {

sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    return address;
}

// Close with RST rather than FIN: the peer sees "connection reset", as on a dead network path.
void resetAndClose(int fd) {
    if (fd < 0) {
        return;
    }
    linger abort{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
    ::close(fd);
}

bool sendAll(int fd, const char* data, ssize_t size) {
    while (size > 0) {
        const ssize_t sent = ::send(fd, data, std::size_t(size), MSG_NOSIGNAL);
        if (sent <= 0) {
            return false;
        }
        data += sent;
        size -= sent;
    }
    return true;
}

bool readable(const pollfd& fd) { return (fd.revents & (POLLIN | POLLHUP | POLLERR)) != 0; }

}  // namespace

TcpDropProxy::TcpDropProxy(std::uint16_t upstreamPort) : TcpDropProxy(upstreamPort, INADDR_LOOPBACK, 0) {}

TcpDropProxy::TcpDropProxy(std::uint16_t upstreamPort, std::uint32_t listenAddress, std::uint16_t listenPort)
    : m_upstreamPort(upstreamPort) {
    if ((listenAddress >> 24) != 127) throw std::invalid_argument("TcpDropProxy: listens on 127.0.0.0/8 only");
    m_listenFd = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(m_listenFd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address = loopback(listenPort);
    address.sin_addr.s_addr = htonl(listenAddress);
    if (::bind(m_listenFd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(m_listenFd, 64) != 0) {
        throw std::runtime_error("TcpDropProxy: cannot listen on loopback: errno " + std::to_string(errno));
    }
    socklen_t length = sizeof address;
    ::getsockname(m_listenFd, reinterpret_cast<sockaddr*>(&address), &length);
    m_port = ntohs(address.sin_port);
    if (::pipe(m_wakePipe) != 0) {
        throw std::runtime_error("TcpDropProxy: pipe failed");
    }
    m_acceptThread = std::thread([this] { acceptLoop(); });
}

TcpDropProxy::~TcpDropProxy() {
    m_stopping = true;
    const char byte = 0;
    [[maybe_unused]] const auto written = ::write(m_wakePipe[1], &byte, 1);
    m_acceptThread.join();
    dropConnections();
    std::list<std::shared_ptr<Connection>> connections;
    {
        std::lock_guard lock(m_mutex);
        connections.swap(m_connections);
    }
    for (auto& connection : connections) {
        if (connection->thread.joinable()) {
            connection->thread.join();
        }
    }
    ::close(m_listenFd);
    ::close(m_wakePipe[0]);
    ::close(m_wakePipe[1]);
}

int TcpDropProxy::dropConnections() {
    std::lock_guard lock(m_mutex);
    int cut = 0;
    for (auto& connection : m_connections) {
        if (!connection->cut.exchange(true)) {
            // shutdown() wakes the pump's poll(); the pump closes the sockets (with RST) itself.
            ::shutdown(connection->client, SHUT_RDWR);
            ::shutdown(connection->upstream, SHUT_RDWR);
            ++cut;
        }
    }
    return cut;
}

void TcpDropProxy::acceptLoop() {
    while (!m_stopping) {
        pollfd fds[2] = {{m_listenFd, POLLIN, 0}, {m_wakePipe[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0 || (fds[1].revents & POLLIN)) {
            if (errno == EINTR && !m_stopping) {
                continue;
            }
            return;
        }
        const int client = ::accept(m_listenFd, nullptr, nullptr);
        if (client < 0) {
            continue;
        }
        ++m_accepted;
        if (m_refusing) {
            ++m_refused;
            resetAndClose(client);
            continue;
        }
        const int upstream = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address = loopback(m_upstreamPort);
        if (::connect(upstream, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
            resetAndClose(client);
            ::close(upstream);
            continue;
        }
        m_armedCut = kDisarmed;  // a new connection is not the one the cut was armed for
        const int one = 1;
        ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ::setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        auto connection = std::make_shared<Connection>();
        connection->client = client;
        connection->upstream = upstream;
        std::lock_guard lock(m_mutex);
        // Reap the threads of connections that already ended, so a long test does not pile them up.
        for (auto it = m_connections.begin(); it != m_connections.end();) {
            if ((*it)->cut && (*it)->client < 0) {
                (*it)->thread.join();
                it = m_connections.erase(it);
            } else {
                ++it;
            }
        }
        m_connections.push_back(connection);
        connection->thread = std::thread([this, connection] { pump(connection); });
    }
}

bool TcpDropProxy::takeArmedCut(CutPoint point) {
    int armed = armedValue(point);
    if (!m_armedCut.compare_exchange_strong(armed, kDisarmed)) {
        return false;
    }
    ++m_callsCut;
    return true;
}

void TcpDropProxy::pump(const std::shared_ptr<Connection>& connection) {
    std::vector<char> buffer(64 * 1024);
    while (!connection->cut) {
        pollfd fds[2] = {{connection->client, POLLIN, 0}, {connection->upstream, POLLIN, 0}};
        if (::poll(fds, 2, 200) < 0) {
            break;
        }
        if (readable(fds[0])) {
            const ssize_t n = ::recv(connection->client, buffer.data(), buffer.size(), 0);
            if (n <= 0 || !sendAll(connection->upstream, buffer.data(), n) ||
                takeArmedCut(CutPoint::AfterRequestForwarded)) {
                break;
            }
        }
        if (readable(fds[1])) {
            const ssize_t n = ::recv(connection->upstream, buffer.data(), buffer.size(), 0);
            if (n <= 0 || takeArmedCut(CutPoint::AtFirstAnswerByte) || !sendAll(connection->client, buffer.data(), n) ||
                takeArmedCut(CutPoint::AfterFirstAnswerChunk)) {
                break;
            }
        }
    }
    // Every way out ends in a reset of both sides, an armed cut included.
    std::lock_guard lock(m_mutex);
    connection->cut = true;
    resetAndClose(connection->client);
    resetAndClose(connection->upstream);
    connection->client = -1;
    connection->upstream = -1;
}

}  // namespace watchfloor::testing
