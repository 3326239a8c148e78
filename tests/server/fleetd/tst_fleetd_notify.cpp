// fleetd under a service manager's notify protocol, the way systemd runs the Type=notify unit
// (packaging/systemd/fleetd.service): this test is the manager. It opens the Unix datagram
// socket systemd would hand over in NOTIFY_SOCKET, starts the real fleetd (FLEETD_BIN) and checks
//   - READY=1 arrives only once fleetd listens: its listening line is already on stderr and the
//     port it names accepts a TCP connection at that moment;
//   - with operator actions on and no --audit-log, the audit log goes where the unit's
//     StateDirectory= puts it: $STATE_DIRECTORY/audit.jsonl;
//   - SIGTERM is answered with STOPPING=1 and a clean stop (exit status 0, "fleetd: stopped").
// A plain test (no Qt): it is what a server-only build (WATCHFLOOR_CONSOLE=OFF) runs.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <string>

namespace {

[[noreturn]] void fail(const std::string& what) {
    std::cerr << "FAIL: " << what << std::endl;
    std::exit(1);
}

void check(bool ok, const std::string& what) {
    if (!ok) fail(what);
    std::cout << "PASS: " << what << std::endl;
}

using Clock = std::chrono::steady_clock;

// The manager's end of NOTIFY_SOCKET: a datagram socket bound to a path in a private folder.
class NotifySocket {
public:
    NotifySocket() {
        char dir[] = "/tmp/tst_fleetd_notify.XXXXXX";
        if (!mkdtemp(dir)) fail("mkdtemp");
        dir_ = dir;
        path_ = dir_ + "/notify";
        fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path_.c_str(), sizeof(address.sun_path) - 1);
        if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0)
            fail("bind the notify socket " + path_ + ": " + std::strerror(errno));
    }
    ~NotifySocket() {
        close(fd_);
        std::filesystem::remove_all(dir_);
    }
    const std::string& path() const { return path_; }
    const std::string& dir() const { return dir_; }

    // The next datagram, or nothing within the timeout.
    std::optional<std::string> receive(std::chrono::seconds timeout) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, int(std::chrono::milliseconds(timeout).count())) <= 0) return std::nullopt;
        char buffer[4096];
        const auto n = recv(fd_, buffer, sizeof(buffer), 0);
        if (n < 0) return std::nullopt;
        return std::string(buffer, std::size_t(n));
    }

private:
    std::string dir_, path_;
    int fd_ = -1;
};

// The real fleetd as a child with its stderr on a pipe; killed if the test ends early.
class FleetdChild {
public:
    FleetdChild(const std::string& binary, const std::string& notifySocket, const std::string& stateDirectory,
                const std::string& tokensFile) {
        int pipeFds[2];
        if (pipe2(pipeFds, O_CLOEXEC) != 0) fail("pipe");
        pid_ = fork();
        if (pid_ < 0) fail("fork");
        if (pid_ == 0) {
            dup2(pipeFds[1], STDERR_FILENO);
            setenv("NOTIFY_SOCKET", notifySocket.c_str(), 1);
            setenv("STATE_DIRECTORY", stateDirectory.c_str(), 1);
            execl(binary.c_str(), binary.c_str(), "--listen", "127.0.0.1:0", "--racks", "1", "--regions", "1",
                  "--tokens", tokensFile.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        close(pipeFds[1]);
        stderr_ = pipeFds[0];
        fcntl(stderr_, F_SETFL, O_NONBLOCK);
    }
    ~FleetdChild() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        close(stderr_);
    }

    // Everything fleetd has written to stderr so far, without waiting.
    const std::string& output() {
        char buffer[4096];
        for (ssize_t n; (n = read(stderr_, buffer, sizeof(buffer))) > 0;) output_.append(buffer, std::size_t(n));
        return output_;
    }
    void signal(int number) { kill(pid_, number); }
    // The exit status, or nothing if fleetd is still running after the timeout.
    std::optional<int> waitForExit(std::chrono::seconds timeout) {
        for (const auto end = Clock::now() + timeout; Clock::now() < end; usleep(50'000)) {
            int status = 0;
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
        }
        return std::nullopt;
    }

private:
    pid_t pid_ = -1;
    int stderr_ = -1;
    std::string output_;
};

bool acceptsConnections(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(std::uint16_t(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    close(fd);
    return ok;
}

// The first notification that carries `field` (e.g. "READY=1"); fleetd may send others first.
std::optional<std::string> waitForField(NotifySocket& socket, const std::string& field, std::chrono::seconds timeout) {
    for (const auto end = Clock::now() + timeout; Clock::now() < end;) {
        const auto message = socket.receive(std::chrono::seconds(1));
        if (message && ("\n" + *message + "\n").find("\n" + field + "\n") != std::string::npos) return message;
    }
    return std::nullopt;
}

}  // namespace

int main() {
    const char* binary = std::getenv("FLEETD_BIN");
    if (!binary || access(binary, X_OK) != 0) fail("FLEETD_BIN names no executable fleetd");
    NotifySocket notify;
    // What systemd prepares for the unit: its state directory, and a tokens file fleetd may read.
    const std::string state = notify.dir() + "/state";
    const std::string tokens = notify.dir() + "/tokens";
    std::filesystem::create_directory(state);
    {
        std::FILE* file = std::fopen(tokens.c_str(), "w");
        if (!file) fail("write " + tokens);
        std::fputs("token notify-test-secret-0123456789 principal=alice role=operator\n", file);
        std::fclose(file);
        std::filesystem::permissions(tokens, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    }
    FleetdChild fleetd(binary, notify.path(), state, tokens);

    // Generous: a loaded CI machine starts the twin slowly; the check is the order, not the time.
    const auto ready = waitForField(notify, "READY=1", std::chrono::seconds(90));
    check(ready.has_value(), "fleetd sends READY=1 on NOTIFY_SOCKET");
    const std::string stderrAtReady = fleetd.output();
    std::smatch listening;
    check(std::regex_search(stderrAtReady, listening, std::regex("listening on 127\\.0\\.0\\.1:([0-9]+)")),
          "the listening line is on stderr before READY=1 (stderr so far: " + stderrAtReady + ")");
    const int port = std::stoi(listening[1]);
    check(acceptsConnections(port), "the port of the listening line accepts connections at READY=1");
    check(ready->find("STATUS=listening on 127.0.0.1:" + std::to_string(port)) != std::string::npos,
          "READY=1 carries STATUS naming the same address (got: " + *ready + ")");

    check(std::filesystem::exists(state + "/audit.jsonl"), "the audit log is $STATE_DIRECTORY/audit.jsonl");

    fleetd.signal(SIGTERM);
    check(waitForField(notify, "STOPPING=1", std::chrono::seconds(60)).has_value(),
          "fleetd sends STOPPING=1 after SIGTERM");
    const auto status = fleetd.waitForExit(std::chrono::seconds(60));
    check(status.has_value(), "fleetd exits within 60 s of SIGTERM");
    check(*status == 0, "fleetd exits 0 after SIGTERM (got " + std::to_string(*status) + ")");
    check(fleetd.output().find("fleetd: stopped") != std::string::npos, "fleetd logs its clean stop");
    return 0;
}
