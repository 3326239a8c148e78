// fleetd_bench: starts the real fleetd with a large simulated fleet, attaches several STANDARD
// subscribers over loopback gRPC, and prints what fleetd produced and each subscriber received,
// how far behind each one ran, fleetd's CPU and peak memory, and how long a full snapshot takes
// to reach a subscriber that joins mid-run. Targets are printed beside the numbers.
//
//   fleetd_bench [--seconds 30] [--racks 1800] [--subscribers 4] [--speed 1] [--fleetd PATH]

#include "watchfloor/v1/fleet.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace v1 = watchfloor::v1;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct BenchOptions {
    int seconds = 30;
    int racks = 1800;
    int subscribers = 4;
    double speed = 1.0;
    std::string fleetd;
};

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "fleetd_bench: " << problem << "\n"
              << "usage: fleetd_bench [--seconds N] [--racks N] [--subscribers N] [--speed X] [--fleetd PATH]\n";
    std::exit(2);
}

BenchOptions parseOptions(int argc, char** argv) {
    BenchOptions o;
    if (const char* env = std::getenv("FLEETD_BIN")) o.fleetd = env;
    if (o.fleetd.empty()) o.fleetd = FLEETD_DEFAULT_PATH;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help") usage("runs fleetd under load and prints its numbers");
        if (i + 1 >= argc) usage(flag + ": missing value");
        const std::string value = argv[++i];
        try {
            if (flag == "--seconds") o.seconds = std::stoi(value);
            else if (flag == "--racks") o.racks = std::stoi(value);
            else if (flag == "--subscribers") o.subscribers = std::stoi(value);
            else if (flag == "--speed") o.speed = std::stod(value);
            else if (flag == "--fleetd") o.fleetd = value;
            else usage("unknown option " + flag);
        } catch (const std::exception&) {
            usage(flag + ": bad value \"" + value + "\"");
        }
    }
    if (o.seconds < 1 || o.racks < 1 || o.subscribers < 1 || o.speed <= 0) usage("values must be positive");
    return o;
}

// fleetd as a child process; its stderr is read line by line on a thread of ours.
class FleetdProcess {
public:
    bool start(const BenchOptions& o) {
        int pipeFds[2];
        if (pipe(pipeFds) != 0) return false;
        const std::string racks = std::to_string(o.racks), speed = std::to_string(o.speed);
        const std::string regions = std::to_string(std::min(o.racks, 4));
        pid_ = fork();
        if (pid_ == 0) {
            dup2(pipeFds[1], STDERR_FILENO);
            close(pipeFds[0]);
            close(pipeFds[1]);
            execl(o.fleetd.c_str(), o.fleetd.c_str(), "--listen", "127.0.0.1:0", "--racks", racks.c_str(),
                  "--regions", regions.c_str(), "--speed", speed.c_str(), "--log-stats", "5s", nullptr);
            std::perror("exec fleetd");
            _exit(127);
        }
        close(pipeFds[1]);
        if (pid_ < 0) return false;
        reader_ = std::thread([this, fd = pipeFds[0]] { readLines(fd); });
        return true;
    }
    ~FleetdProcess() {
        if (pid_ > 0 && !exited_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        if (reader_.joinable()) reader_.join();
    }
    pid_t pid() const { return pid_; }

    std::optional<int> waitForPort(std::chrono::seconds timeout) {
        const auto until = Clock::now() + timeout;
        while (Clock::now() < until) {
            {
                std::lock_guard lock(mu_);
                if (port_) return port_;
            }
            int status = 0;
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                exited_ = true;
                return std::nullopt;
            }
            std::this_thread::sleep_for(100ms);
        }
        return std::nullopt;
    }
    std::vector<double> producedRates() {
        std::lock_guard lock(mu_);
        return samplesPerSecond_;
    }
    std::vector<double> tickRates() {
        std::lock_guard lock(mu_);
        return ticksPerSecond_;
    }
    void clearRates() {
        std::lock_guard lock(mu_);
        samplesPerSecond_.clear();
        ticksPerSecond_.clear();
    }
    int terminate(std::chrono::seconds timeout) {
        kill(pid_, SIGTERM);
        const auto until = Clock::now() + timeout;
        int status = 0;
        while (Clock::now() < until) {
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                exited_ = true;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            std::this_thread::sleep_for(50ms);
        }
        return -1;
    }

private:
    void readLines(int fd) {
        FILE* in = fdopen(fd, "r");
        char buffer[4096];
        static const std::regex listening(R"(listening on [^ ]*:(\d+))");
        static const std::regex stats(R"(([0-9.]+) ticks/s, ([0-9.]+) samples/s)");
        while (std::fgets(buffer, sizeof buffer, in)) {
            std::string line(buffer);
            std::cerr << "  [fleetd] " << line;
            std::smatch m;
            std::lock_guard lock(mu_);
            if (std::regex_search(line, m, listening)) port_ = std::stoi(m[1]);
            if (std::regex_search(line, m, stats)) {
                ticksPerSecond_.push_back(std::stod(m[1]));
                samplesPerSecond_.push_back(std::stod(m[2]));
            }
        }
        std::fclose(in);
    }

    pid_t pid_ = -1;
    bool exited_ = false;
    std::thread reader_;
    std::mutex mu_;
    int port_ = 0;
    std::vector<double> samplesPerSecond_, ticksPerSecond_;
};

struct CpuSample {
    double cpuSeconds = 0;
    Clock::time_point at;
};

CpuSample cpuOf(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    CpuSample s{0, Clock::now()};
    const auto close = text.rfind(')');
    if (close == std::string::npos) return s;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; fields >> field; ++i) {  // field 3 is the state, 14 utime, 15 stime
        if (i == 14) utime = std::stoull(field);
        if (i == 15) {
            stime = std::stoull(field);
            break;
        }
    }
    s.cpuSeconds = double(utime + stime) / double(sysconf(_SC_CLK_TCK));
    return s;
}

double peakRssGiB(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / (1024.0 * 1024.0);  // kB
    return -1;
}

std::shared_ptr<grpc::Channel> channelTo(int port) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // each subscriber its own connection
    return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), args);
}

// One subscriber: reads as fast as it can and counts.
class Subscriber {
public:
    Subscriber(int port, v1::DetailLevel detail) : stub_(v1::TelemetryService::NewStub(channelTo(port))) {
        request_.set_detail(detail);
    }
    void start() {
        thread_ = std::thread([this] { run(); });
    }
    void stop() {
        context_.TryCancel();
        if (thread_.joinable()) thread_.join();
    }
    ~Subscriber() { stop(); }

    std::atomic<double> snapshotSeconds{-1};
    std::atomic<std::size_t> snapshotBytes{0};
    std::atomic<std::size_t> largestDeltaBytes{0};
    std::atomic<std::uint64_t> samples{0};      // from deltas
    std::atomic<std::uint64_t> sequence{0};
    std::atomic<std::int64_t> serverTimeMs{0};  // of the newest delta
    std::atomic<int> coalesced{0}, resyncs{0}, heartbeats{0};
    std::atomic<bool> ended{false};
    grpc::Status endStatus;

private:
    void run() {
        const auto began = Clock::now();
        auto reader = stub_->Subscribe(&context_, request_);
        v1::SubscribeResponse r;
        while (reader->Read(&r)) {
            if (r.has_snapshot()) {
                if (snapshotSeconds < 0) {
                    snapshotSeconds = std::chrono::duration<double>(Clock::now() - began).count();
                    snapshotBytes = r.ByteSizeLong();
                } else {
                    ++resyncs;
                }
                sequence = r.snapshot().sequence();
            } else if (r.has_delta()) {
                std::uint64_t n = 0;
                for (const auto& b : r.delta().samples()) n += b.entity_indexes_size();
                samples += n;
                if (r.delta().sequence() > r.delta().first_sequence()) ++coalesced;
                largestDeltaBytes = std::max<std::size_t>(largestDeltaBytes, r.ByteSizeLong());
                sequence = r.delta().sequence();
                serverTimeMs = r.delta().server_time_unix_ms();
            } else if (r.has_heartbeat()) {
                ++heartbeats;
            }
        }
        endStatus = reader->Finish();
        ended = true;
    }

    std::unique_ptr<v1::TelemetryService::Stub> stub_;
    grpc::ClientContext context_;
    v1::SubscribeRequest request_;
    std::thread thread_;
};

const char* verdict(bool pass) { return pass ? "PASS" : "SHORT"; }

double mean(const std::vector<double>& v) {
    if (v.empty()) return 0;
    double s = 0;
    for (double x : v) s += x;
    return s / double(v.size());
}

}  // namespace

int main(int argc, char** argv) {
    const BenchOptions o = parseOptions(argc, argv);
    std::printf("fleetd_bench: %d racks, %d subscribers (DETAIL_LEVEL_STANDARD), %d s at speed %g\n", o.racks,
                o.subscribers, o.seconds, o.speed);
    std::fflush(stdout);
    FleetdProcess fleetd;
    if (!fleetd.start(o)) {
        std::fprintf(stderr, "fleetd_bench: cannot start %s\n", o.fleetd.c_str());
        return 1;
    }
    const auto startAsked = Clock::now();
    const auto port = fleetd.waitForPort(300s);
    if (!port) {
        std::fprintf(stderr, "fleetd_bench: %s did not start listening\n", o.fleetd.c_str());
        return 1;
    }
    const double startupSeconds = std::chrono::duration<double>(Clock::now() - startAsked).count();

    std::vector<std::unique_ptr<Subscriber>> subscribers;
    for (int i = 0; i < o.subscribers; ++i) {
        subscribers.push_back(std::make_unique<Subscriber>(*port, v1::DETAIL_LEVEL_STANDARD));
        subscribers.back()->start();
    }
    // Warm up: every subscriber has its snapshot, then a few ticks more.
    const auto warmUntil = Clock::now() + 120s;
    while (Clock::now() < warmUntil &&
           std::any_of(subscribers.begin(), subscribers.end(), [](auto& s) { return s->snapshotSeconds < 0; }))
        std::this_thread::sleep_for(50ms);
    std::this_thread::sleep_for(3s);
    fleetd.clearRates();

    std::vector<std::uint64_t> samplesAtStart;
    for (auto& s : subscribers) samplesAtStart.push_back(s->samples);
    const CpuSample cpuStart = cpuOf(fleetd.pid());
    std::vector<std::uint64_t> maxLagSeq(subscribers.size(), 0);
    std::vector<double> maxLagSeconds(subscribers.size(), 0);
    double lateSnapshotSeconds = -1;
    const auto windowEnd = Clock::now() + std::chrono::seconds(o.seconds);
    const auto lateJoinAt = Clock::now() + std::chrono::seconds(o.seconds / 2);
    std::unique_ptr<Subscriber> late;
    while (Clock::now() < windowEnd) {
        std::this_thread::sleep_for(250ms);
        std::uint64_t head = 0;
        std::int64_t newestMs = 0;
        for (auto& s : subscribers) {
            head = std::max<std::uint64_t>(head, s->sequence);
            newestMs = std::max<std::int64_t>(newestMs, s->serverTimeMs);
        }
        for (std::size_t i = 0; i < subscribers.size(); ++i) {
            maxLagSeq[i] = std::max<std::uint64_t>(maxLagSeq[i], head - subscribers[i]->sequence);
            maxLagSeconds[i] = std::max(maxLagSeconds[i], double(newestMs - subscribers[i]->serverTimeMs) / 1000.0 / o.speed);
        }
        if (!late && Clock::now() >= lateJoinAt) {
            late = std::make_unique<Subscriber>(*port, v1::DETAIL_LEVEL_STANDARD);
            late->start();
        }
        if (late && lateSnapshotSeconds < 0 && late->snapshotSeconds >= 0) {
            lateSnapshotSeconds = late->snapshotSeconds;
            late->stop();
        }
    }
    const CpuSample cpuEnd = cpuOf(fleetd.pid());
    const double window = std::chrono::duration<double>(cpuEnd.at - cpuStart.at).count();
    const double cpuPercent = 100.0 * (cpuEnd.cpuSeconds - cpuStart.cpuSeconds) / window;
    const double rssGiB = peakRssGiB(fleetd.pid());
    const double produced = mean(fleetd.producedRates());
    const double ticksPerSecond = mean(fleetd.tickRates());

    std::printf("\n  fleetd start-up (twin + listen)  %.1f s\n", startupSeconds);
    std::printf("  produced                         %.0f samples/s, %.2f ticks/s (fleetd stats)\n", produced,
                ticksPerSecond);
    double worstLagSeconds = 0;
    bool allKept = true;
    for (std::size_t i = 0; i < subscribers.size(); ++i) {
        auto& s = *subscribers[i];
        const double delivered = double(s.samples - samplesAtStart[i]) / window;
        std::printf("  subscriber %zu  delivered %10.0f samples/s | first snapshot %.2f s | lag max %llu seq, %.1f s"
                    " | coalesced %d, resyncs %d%s\n",
                    i + 1, delivered, s.snapshotSeconds.load(), static_cast<unsigned long long>(maxLagSeq[i]),
                    maxLagSeconds[i], s.coalesced.load(), s.resyncs.load(), s.ended ? " | ENDED EARLY" : "");
        worstLagSeconds = std::max(worstLagSeconds, maxLagSeconds[i]);
        allKept = allKept && !s.ended;
    }
    std::size_t largestDelta = 0;
    for (auto& s : subscribers) largestDelta = std::max<std::size_t>(largestDelta, s->largestDeltaBytes);
    std::printf("  snapshot message                 %.1f MB; largest delta %.2f MB\n",
                double(subscribers.front()->snapshotBytes) / 1e6, double(largestDelta) / 1e6);
    const bool realTime = ticksPerSecond >= 0.95 * o.speed;
    const bool keepsUp = realTime && worstLagSeconds <= 2.0 && allKept;
    std::printf("\n  %-34s %-28s %-16s %s\n", "measure", "value", "target", "");
    char value[64];
    std::snprintf(value, sizeof value, "%.2f ticks/s, lag %.1f s", ticksPerSecond, worstLagSeconds);
    std::printf("  %-34s %-28s %-16s %s\n", "keeps up in real time", value, ">=0.95x, <=2 s", verdict(keepsUp));
    std::snprintf(value, sizeof value, "%.0f %% of one core", cpuPercent);
    std::printf("  %-34s %-28s %-16s %s\n", "fleetd CPU", value, "<= 100 %", verdict(cpuPercent <= 100));
    std::snprintf(value, sizeof value, "%.2f GiB", rssGiB);
    std::printf("  %-34s %-28s %-16s %s\n", "fleetd peak RSS (VmHWM)", value, "<= 4 GiB", verdict(rssGiB <= 4.0));
    std::snprintf(value, sizeof value, "%.2f s", lateSnapshotSeconds);
    std::printf("  %-34s %-28s %-16s %s\n", "snapshot to a joining subscriber", value, "< 2 s",
                verdict(lateSnapshotSeconds >= 0 && lateSnapshotSeconds < 2.0));
    std::fflush(stdout);

    const int exitCode = fleetd.terminate(30s);
    for (auto& s : subscribers) s->stop();
    int unavailable = 0;
    for (auto& s : subscribers) unavailable += s->endStatus.error_code() == grpc::StatusCode::UNAVAILABLE;
    std::printf("  %-34s exit %d, %d/%zu streams UNAVAILABLE\n", "fleetd SIGTERM", exitCode, unavailable,
                subscribers.size());
    return 0;
}
