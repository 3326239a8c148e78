#pragma once
// A real Prometheus or VictoriaMetrics process on a free 127.0.0.1 port, with its own data
// directory and scrape config, for tests that read through the Prometheus HTTP API (each with the
// query defaults its Debian package runs with: VictoriaMetrics' 30 s latency offset included) — or a real
// Alertmanager with its own config and storage, for the pager's tests (no cluster port: it is
// alone). start() waits until it answers its readiness endpoint; the destructor stops it and
// removes its data.
//
// A test killed before its destructor runs (CTest timeout, ^C, kill -9) leaves no store behind:
// the child asks the kernel to SIGKILL it when the thread that started it exits, so start it from
// a thread that lives as long as the store (a test's main thread).

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace watchfloor::test {

enum class StoreKind { Prometheus, VictoriaMetrics, Alertmanager };

class LoopbackStore {
public:
    struct Options {
        StoreKind kind = StoreKind::Prometheus;
        std::string
            config;  // Prometheus-format YAML: global + scrape_configs (both stores read it); Alertmanager's own
        std::chrono::seconds readyTimeout{30};
        std::vector<std::string> extraArgs;
    };

    // nullptr with `error` set (including the end of the store's log) when it did not come up.
    static std::unique_ptr<LoopbackStore> start(const Options& options, std::string& error);
    // A config scraping http://<target>/metrics every `interval` as job `job`.
    static std::string scrapeConfig(const std::string& job, const std::string& target, std::chrono::seconds interval);
    static const char* binary(StoreKind kind);
    static const char* name(StoreKind kind);
    static bool installed(StoreKind kind);

    ~LoopbackStore();
    LoopbackStore(const LoopbackStore&) = delete;
    LoopbackStore& operator=(const LoopbackStore&) = delete;

    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    int port() const { return port_; }
    pid_t pid() const { return pid_; }
    StoreKind kind() const { return kind_; }
    std::string logTail(std::size_t bytes = 2000) const;
    // An outage: stops the process (SIGTERM), keeping its port and data directory ...
    void stopProcess() { stop(); }
    // ... and the end of it: starts it again on the same port and waits until it is ready.
    bool restart(std::string& error);

private:
    LoopbackStore(StoreKind kind, std::string directory) : kind_(kind), directory_(std::move(directory)) {}
    bool launch(const Options& options, std::string& error, bool samePort = false);
    bool waitReady(std::chrono::seconds timeout, std::string& error);
    void stop();

    StoreKind kind_;
    std::string directory_;
    int port_ = 0;
    pid_t pid_ = -1;
    Options options_;
};

}  // namespace watchfloor::test
