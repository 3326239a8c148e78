#pragma once
// A TCP server on 127.0.0.1 that answers HTTP requests however a test tells it to, byte by byte:
// exporters that trickle, hang after their headers, never end, redirect, compress a bomb, or do
// not speak HTTP at all. An HTTP library would not send most of these, which is why this writes
// to the socket itself. One thread per connection; every wait checks for the peer closing (a
// scraper giving up) and for the server stopping, so no thread outlives the test.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace watchfloor::testing {

class BadExporter {
public:
    class Connection {
    public:
        Connection(int fd, const std::atomic<bool>& stopping) : fd_(fd), stopping_(stopping) {}
        // Reads one request's head; false when the peer closed first or the server stops.
        bool readRequest() {
            std::string head;
            char buffer[4096];
            while (head.find("\r\n\r\n") == std::string::npos) {
                if (!readable(std::chrono::milliseconds(50))) {
                    if (closed_ || stopping_) return false;
                    continue;
                }
                const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
                if (n <= 0) return false;
                head.append(buffer, std::size_t(n));
                if (head.size() > 64 * 1024) return false;
            }
            return true;
        }
        // False once the peer is gone (the write failed) or the server stops.
        bool send(std::string_view bytes) {
            while (!bytes.empty()) {
                if (stopping_) return false;
                pollfd p{fd_, POLLOUT, 0};
                if (::poll(&p, 1, 50) <= 0) continue;
                const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
                if (n <= 0) return false;
                bytes.remove_prefix(std::size_t(n));
            }
            return true;
        }
        // Waits `time` unless the peer closes or the server stops first (then false).
        bool pause(std::chrono::milliseconds time) {
            const auto until = std::chrono::steady_clock::now() + time;
            while (std::chrono::steady_clock::now() < until) {
                if (stopping_) return false;
                if (readable(std::chrono::milliseconds(20))) {
                    char c;
                    if (::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) return false;  // closed
                }
            }
            return true;
        }
        // Holds the connection open, saying nothing, until the peer gives up or the server stops.
        void hang() {
            while (pause(std::chrono::milliseconds(200))) {}
        }

    private:
        bool readable(std::chrono::milliseconds wait) {
            pollfd p{fd_, POLLIN | POLLRDHUP, 0};
            if (::poll(&p, 1, int(wait.count())) <= 0) return false;
            if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) closed_ = true;
            return (p.revents & POLLIN) != 0;
        }
        int fd_;
        const std::atomic<bool>& stopping_;
        bool closed_ = false;
    };
    using Behaviour = std::function<void(Connection&)>;

    explicit BadExporter(Behaviour behaviour) : behaviour_(std::move(behaviour)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(listener_, 64) != 0 ||
            ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            return;
        port_ = ntohs(address.sin_port);
        acceptor_ = std::thread([this] { acceptLoop(); });
    }
    ~BadExporter() {
        stopping_ = true;
        if (acceptor_.joinable()) acceptor_.join();
        for (auto& t : connections_) t.join();
        if (listener_ >= 0) ::close(listener_);
    }
    BadExporter(const BadExporter&) = delete;
    BadExporter& operator=(const BadExporter&) = delete;

    bool ok() const { return port_ != 0; }
    int port() const { return port_; }
    std::string url(std::string_view path = "/metrics") const {
        return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
    }
    int connectionsSeen() const { return seen_; }

    // Every request on a connection gets `behaviour` (a keep-alive client may send several).
    static Behaviour everyRequest(std::function<bool(Connection&)> answer) {
        return [answer = std::move(answer)](Connection& c) {
            while (c.readRequest())
                if (!answer(c)) return;
        };
    }

private:
    void acceptLoop() {
        while (!stopping_) {
            pollfd p{listener_, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) continue;
            const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) continue;
            ++seen_;
            std::lock_guard lock(mutex_);
            connections_.emplace_back([this, fd] {
                Connection connection(fd, stopping_);
                behaviour_(connection);
                ::shutdown(fd, SHUT_RDWR);
                ::close(fd);
            });
        }
    }

    Behaviour behaviour_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> seen_{0};
    std::thread acceptor_;
    std::mutex mutex_;
    std::list<std::thread> connections_;
};

}  // namespace watchfloor::testing
