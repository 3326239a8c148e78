#include "LoopbackStore.h"

#include <httplib.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace watchfloor::test {

namespace {

using namespace std::chrono_literals;

// A free loopback port: bound to port 0, then released for the store to take. Another process
// could take it in between; start() retries with a new port when the store fails to bind.
int freeLoopbackPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

std::vector<std::string> commandLine(StoreKind kind, const std::string& directory, int port,
                                     const std::vector<std::string>& extra) {
    const std::string listen = "127.0.0.1:" + std::to_string(port);
    std::vector<std::string> args{LoopbackStore::binary(kind)};
    if (kind == StoreKind::Alertmanager) {
        // --cluster.listen-address= (empty): no gossip port on 0.0.0.0:9094 for a lone test instance.
        args.insert(args.end(), {"--config.file=" + directory + "/config.yml", "--storage.path=" + directory + "/data",
                                 "--web.listen-address=" + listen, "--cluster.listen-address=", "--log.level=warn"});
    } else if (kind == StoreKind::Prometheus) {
        args.insert(args.end(),
                    {"--config.file=" + directory + "/config.yml", "--storage.tsdb.path=" + directory + "/data",
                     "--web.listen-address=" + listen, "--log.level=warn"});
    } else {
        // As Debian's package runs it (/etc/default/victoria-metrics sets only the data path): the
        // default -search.latencyOffset (30 s) and response cache, which a site's store has too.
        // A test that needs otherwise says so in Options::extraArgs.
        args.insert(args.end(),
                    {"-httpListenAddr=" + listen, "-promscrape.config=" + directory + "/config.yml",
                     "-storageDataPath=" + directory + "/data", "-retentionPeriod=1d", "-loggerLevel=WARN"});
    }
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

}  // namespace

const char* LoopbackStore::binary(StoreKind kind) {
    switch (kind) {
    case StoreKind::Prometheus: return "/usr/bin/prometheus";
    case StoreKind::VictoriaMetrics: return "/usr/bin/victoria-metrics";
    case StoreKind::Alertmanager: return "/usr/bin/prometheus-alertmanager";
    }
    return "";
}

const char* LoopbackStore::name(StoreKind kind) {
    switch (kind) {
    case StoreKind::Prometheus: return "Prometheus";
    case StoreKind::VictoriaMetrics: return "VictoriaMetrics";
    case StoreKind::Alertmanager: return "Alertmanager";
    }
    return "";
}

bool LoopbackStore::installed(StoreKind kind) { return ::access(binary(kind), X_OK) == 0; }

std::string LoopbackStore::scrapeConfig(const std::string& job, const std::string& target,
                                        std::chrono::seconds interval) {
    std::ostringstream yaml;
    yaml << "global:\n"
         << "  scrape_interval: " << interval.count() << "s\n"
         << "  scrape_timeout: " << interval.count() << "s\n"
         << "scrape_configs:\n"
         << "  - job_name: " << job << "\n"
         << "    static_configs:\n"
         << "      - targets: ['" << target << "']\n";
    return yaml.str();
}

std::unique_ptr<LoopbackStore> LoopbackStore::start(const Options& options, std::string& error) {
    if (!installed(options.kind)) {
        error = std::string(binary(options.kind)) + " is not installed";
        return nullptr;
    }
    char pattern[] = "/tmp/watchfloor-store-XXXXXX";
    if (!::mkdtemp(pattern)) {
        error = std::string("mkdtemp: ") + std::strerror(errno);
        return nullptr;
    }
    std::unique_ptr<LoopbackStore> store(new LoopbackStore(options.kind, pattern));
    store->options_ = options;
    std::ofstream(store->directory_ + "/config.yml") << options.config;
    constexpr int kAttempts = 3;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        error.clear();
        if (store->launch(options, error) && store->waitReady(options.readyTimeout, error)) return store;
        store->stop();
    }
    return nullptr;
}

bool LoopbackStore::restart(std::string& error) {
    stop();
    return launch(options_, error, true) && waitReady(options_.readyTimeout, error);
}

bool LoopbackStore::launch(const Options& options, std::string& error, bool samePort) {
    if (!samePort) port_ = freeLoopbackPort();
    if (port_ == 0) {
        error = "no free loopback port";
        return false;
    }
    const std::vector<std::string> args = commandLine(kind_, directory_, port_, options.extraArgs);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const std::string log = directory_ + "/store.log";
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) {
        error = std::string("fork: ") + std::strerror(errno);
        return false;
    }
    if (pid_ == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd >= 0) {
            ::dup2(fd, STDOUT_FILENO);
            ::dup2(fd, STDERR_FILENO);
            ::close(fd);
        }
        ::chdir(directory_.c_str());
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    return true;
}

bool LoopbackStore::waitReady(std::chrono::seconds timeout, std::string& error) {
    const char* path = kind_ == StoreKind::VictoriaMetrics ? "/health" : "/-/ready";
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(1s);
    client.set_read_timeout(2s);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            error = std::string(name(kind_)) + " exited during start-up: " + logTail();
            return false;
        }
        if (const auto answer = client.Get(path); answer && answer->status == 200) return true;
        std::this_thread::sleep_for(100ms);
    }
    error = std::string(name(kind_)) + " not ready on port " + std::to_string(port_) + " after " +
            std::to_string(timeout.count()) + " s: " + logTail();
    return false;
}

void LoopbackStore::stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {  // 10 s for a clean shutdown, then no more patience
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
            pid_ = -1;
            return;
        }
        std::this_thread::sleep_for(100ms);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
}

LoopbackStore::~LoopbackStore() {
    stop();
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
}

std::string LoopbackStore::logTail(std::size_t bytes) const {
    std::ifstream in(directory_ + "/store.log", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.size() > bytes) text = text.substr(text.size() - bytes);
    return text;
}

}  // namespace watchfloor::test
