#pragma once
// What the fleetd benchmarks share: fleetd as a child process (its stderr read line by line,
// the port it listens on, its stats lines, SIGKILL/SIGTERM), /proc readings of a process, and a
// Subscribe stream that counts what it receives and checks that sequences neither skip nor repeat.

#include "watchfloor/v1/fleet.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fleetd_bench {

namespace v1 = watchfloor::v1;
using Clock = std::chrono::steady_clock;

class FleetdChild {
public:
    // `echo`: copy fleetd's stderr to ours, each line prefixed "  [fleetd] ".
    explicit FleetdChild(std::string binary, bool echo = true) : binary_(std::move(binary)), echo_(echo) {}
    ~FleetdChild();
    FleetdChild(const FleetdChild&) = delete;
    FleetdChild& operator=(const FleetdChild&) = delete;

    bool start(const std::vector<std::string>& args);
    pid_t pid() const { return pid_; }
    // The port from fleetd's "listening on" line; nullopt when it exited or the time ran out.
    std::optional<int> waitForPort(std::chrono::seconds timeout);
    Clock::time_point listeningAt() const;  // when the "listening on" line arrived
    std::vector<double> producedRates();    // samples/s from each "fleetd stats" line
    std::vector<double> tickRates();
    std::vector<int> subscriberCounts();  // open Subscribe streams, from each "fleetd stats" line
    void clearRates();
    void kill9();                                 // SIGKILL and reap
    int terminate(std::chrono::seconds timeout);  // SIGTERM; exit code, or -1 when it did not stop

private:
    void readLines(int fd);
    void reap();

    std::string binary_;
    bool echo_;
    pid_t pid_ = -1;
    bool exited_ = false;
    std::thread reader_;
    std::mutex mu_;
    int port_ = 0;
    Clock::time_point listeningAt_{};
    std::vector<double> samplesPerSecond_, ticksPerSecond_;
    std::vector<int> subscribers_;
};

struct CpuSample {
    double cpuSeconds = 0;
    Clock::time_point at;
};
CpuSample cpuOf(pid_t pid);
double rssMiB(pid_t pid);                                 // VmRSS now
double peakRssMiB(pid_t pid);                             // VmHWM
double percentile(std::vector<double> values, double p);  // p in [0, 100]; 0 for none

std::shared_ptr<grpc::Channel> channelTo(int port);

// One Subscribe stream that reads as fast as it can. Within a run (a snapshot's run_id) every
// delta must start right after the previous sequence; a skip is a gap, a repeat a duplicate.
// With `reconnect`, a stream that ends is opened again (every 20 ms until fleetd answers) with
// resume_after_sequence/resume_run_id, as the console does; each return is timed.
class Subscriber {
public:
    Subscriber(int port, v1::DetailLevel detail, bool reconnect = false);
    ~Subscriber() { stop(); }
    void start();
    void stop();

    std::atomic<double> snapshotSeconds{-1};  // from start() to the first snapshot
    std::atomic<std::size_t> snapshotBytes{0};
    std::atomic<std::size_t> largestDeltaBytes{0};
    std::atomic<std::uint64_t> samples{0};  // from deltas
    std::atomic<std::uint64_t> sequence{0};
    std::atomic<std::int64_t> serverTimeMs{0};  // of the newest delta
    std::atomic<int> coalesced{0}, resyncs{0}, heartbeats{0}, gaps{0}, duplicates{0};
    std::atomic<bool> ended{false};
    grpc::Status endStatus;
    std::atomic<int> reconnects{0}, resumed{0};  // streams opened again; of those, answered by replay
    std::string runId() const;
    // For each reopened stream: the wall-clock time its first message (snapshot or delta) arrived.
    std::vector<Clock::time_point> returns() const;
    // Wall-clock receive time minus the delta's server time, for every delta after the first snapshot.
    std::vector<double> lagsMs() const;
    // The same for the first delta of each tick only (a large tick arrives as several deltas of
    // one server time): how late a tick starts to arrive, apart from how long it takes to arrive.
    std::vector<double> tickStartLagsMs() const;
    // Every delta as it came: its server time, wall-minus-server time and sample count (for --trace).
    struct DeltaArrival {
        std::int64_t serverTimeMs;
        double offsetMs;
        std::uint64_t samples;
        Clock::time_point arrived;
    };
    std::vector<DeltaArrival> arrivals() const;

private:
    void run();
    bool readStream(bool first);  // false once stopped
    void onDelta(const v1::Delta& delta);

    std::shared_ptr<grpc::Channel> channel_;
    std::unique_ptr<v1::TelemetryService::Stub> stub_;
    std::mutex contextMu_;
    std::unique_ptr<grpc::ClientContext> context_;
    v1::SubscribeRequest request_;
    const bool reconnect_;
    std::atomic<bool> stopping_{false};
    std::thread thread_;
    mutable std::mutex mu_;
    std::string runId_;
    std::vector<DeltaArrival> arrivals_;  // lagsMs() and tickStartLagsMs() are read off it
    std::vector<Clock::time_point> returns_;
};

const char* verdict(bool pass);  // "PASS" or "SHORT"
double mean(const std::vector<double>& values);

}  // namespace fleetd_bench
