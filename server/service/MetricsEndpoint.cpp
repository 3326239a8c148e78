#include "MetricsEndpoint.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstring>

namespace watchfloor::server::service {

namespace {
void sendAll(int fd, const std::string& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
        const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return;
        sent += std::size_t(n);
    }
}

std::string response(const char* status, const std::string& contentType, const std::string& body) {
    return std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + contentType +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}
}  // namespace

std::unique_ptr<MetricsEndpoint> MetricsEndpoint::start(const std::string& hostPort, Render render,
                                                        std::string* error) {
    const auto colon = hostPort.rfind(':');
    sockaddr_in address{};
    address.sin_family = AF_INET;
    const std::string host = colon == std::string::npos ? "" : hostPort.substr(0, colon);
    const int port = colon == std::string::npos ? -1 : std::atoi(hostPort.c_str() + colon + 1);
    if (port < 0 || port > 65535 || inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host.c_str(),
                                              &address.sin_addr) != 1) {
        *error = "metrics address \"" + hostPort + "\" is not IPv4-HOST:PORT";
        return nullptr;
    }
    address.sin_port = htons(std::uint16_t(port));
    std::unique_ptr<MetricsEndpoint> self(new MetricsEndpoint);
    self->render_ = std::move(render);
    self->listenFd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int yes = 1;
    ::setsockopt(self->listenFd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (self->listenFd_ < 0 || ::bind(self->listenFd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(self->listenFd_, 16) != 0 || ::pipe2(self->wakeFds_, O_CLOEXEC) != 0) {
        *error = "cannot serve metrics on " + hostPort + ": " + std::strerror(errno);
        return nullptr;
    }
    socklen_t length = sizeof address;
    ::getsockname(self->listenFd_, reinterpret_cast<sockaddr*>(&address), &length);
    self->port_ = ntohs(address.sin_port);
    self->thread_ = std::thread([s = self.get()] { s->serve(); });
    return self;
}

MetricsEndpoint::~MetricsEndpoint() {
    if (thread_.joinable()) {
        const char stop = 'x';
        [[maybe_unused]] const auto n = ::write(wakeFds_[1], &stop, 1);
        thread_.join();
    }
    for (int fd : {listenFd_, wakeFds_[0], wakeFds_[1]})
        if (fd >= 0) ::close(fd);
}

void MetricsEndpoint::serve() {
    for (;;) {
        pollfd fds[2] = {{listenFd_, POLLIN, 0}, {wakeFds_[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
        if (fds[1].revents) return;
        if (!(fds[0].revents & POLLIN)) continue;
        const int client = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        answer(client);
        ::close(client);
    }
}

void MetricsEndpoint::answer(int client) {
    // A scraper that sends nothing must not hold the endpoint: 2 s to send the request line.
    timeval timeout{2, 0};
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    std::string request;
    char buffer[1024];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 8192) {
        const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        request.append(buffer, std::size_t(n));
    }
    if (request.rfind("GET /metrics ", 0) == 0 || request.rfind("GET /metrics?", 0) == 0)
        sendAll(client, response("200 OK", "text/plain; version=0.0.4; charset=utf-8", render_()));
    else
        sendAll(client, response("404 Not Found", "text/plain", "fleetd serves only GET /metrics\n"));
}

}  // namespace watchfloor::server::service
