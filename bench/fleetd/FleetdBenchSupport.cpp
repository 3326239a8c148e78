#include "FleetdBenchSupport.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <sstream>

namespace fleetd_bench {

using namespace std::chrono_literals;

FleetdChild::~FleetdChild() {
    if (pid_ > 0 && !exited_) kill9();
    if (reader_.joinable()) reader_.join();
}

bool FleetdChild::start(const std::vector<std::string>& args) {
    if (reader_.joinable()) reader_.join();
    {
        std::lock_guard lock(mu_);
        port_ = 0;
    }
    int pipeFds[2];
    if (pipe(pipeFds) != 0) return false;
    std::vector<char*> argv{binary_.data()};
    std::vector<std::string> copy = args;
    for (auto& arg : copy) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
        dup2(pipeFds[1], STDERR_FILENO);
        close(pipeFds[0]);
        close(pipeFds[1]);
        execv(binary_.c_str(), argv.data());
        std::perror("exec fleetd");
        _exit(127);
    }
    close(pipeFds[1]);
    if (pid_ < 0) return false;
    exited_ = false;
    reader_ = std::thread([this, fd = pipeFds[0]] { readLines(fd); });
    return true;
}

std::optional<int> FleetdChild::waitForPort(std::chrono::seconds timeout) {
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
        std::this_thread::sleep_for(5ms);
    }
    return std::nullopt;
}

Clock::time_point FleetdChild::listeningAt() const {
    std::lock_guard lock(const_cast<std::mutex&>(mu_));
    return listeningAt_;
}

std::vector<double> FleetdChild::producedRates() {
    std::lock_guard lock(mu_);
    return samplesPerSecond_;
}

std::vector<int> FleetdChild::subscriberCounts() {
    std::lock_guard lock(mu_);
    return subscribers_;
}

std::vector<double> FleetdChild::tickRates() {
    std::lock_guard lock(mu_);
    return ticksPerSecond_;
}

void FleetdChild::clearRates() {
    std::lock_guard lock(mu_);
    samplesPerSecond_.clear();
    ticksPerSecond_.clear();
}

void FleetdChild::kill9() {
    if (pid_ <= 0 || exited_) return;
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    exited_ = true;
    if (reader_.joinable()) reader_.join();
}

int FleetdChild::terminate(std::chrono::seconds timeout) {
    ::kill(pid_, SIGTERM);
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

void FleetdChild::readLines(int fd) {
    FILE* in = fdopen(fd, "r");
    char buffer[4096];
    static const std::regex listening(R"(listening on [^ ]*:(\d+))");
    static const std::regex stats(R"(([0-9.]+) ticks/s, ([0-9.]+) samples/s)");
    static const std::regex subscribers(R"(([0-9]+) subscribers)");
    while (std::fgets(buffer, sizeof buffer, in)) {
        const std::string line(buffer);
        if (echo_) std::cerr << "  [fleetd] " << line;
        std::smatch m;
        std::lock_guard lock(mu_);
        if (std::regex_search(line, m, listening)) {
            port_ = std::stoi(m[1]);
            listeningAt_ = Clock::now();
        }
        if (std::regex_search(line, m, stats)) {
            ticksPerSecond_.push_back(std::stod(m[1]));
            samplesPerSecond_.push_back(std::stod(m[2]));
        }
        if (std::regex_search(line, m, subscribers)) subscribers_.push_back(std::stoi(m[1]));
    }
    std::fclose(in);
}

CpuSample cpuOf(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    const std::string text((std::istreambuf_iterator<char>(stat)), {});
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

namespace {

double statusMiB(pid_t pid, const char* key) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    const std::string prefix = std::string(key) + ":";
    while (std::getline(status, line))
        if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(prefix.size())) / 1024.0;  // kB
    return -1;
}

std::int64_t wallNowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

double rssMiB(pid_t pid) { return statusMiB(pid, "VmRSS"); }
double peakRssMiB(pid_t pid) { return statusMiB(pid, "VmHWM"); }

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const auto rank = static_cast<std::size_t>(p / 100.0 * double(values.size() - 1) + 0.5);
    return values[std::min(rank, values.size() - 1)];
}

std::shared_ptr<grpc::Channel> channelTo(int port) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // each subscriber its own connection
    // A restarted fleetd is found at once, not after gRPC's reconnect backoff (1 s and up).
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 20);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 20);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 100);
    return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), args);
}

Subscriber::Subscriber(int port, v1::DetailLevel detail, bool reconnect)
    : channel_(channelTo(port)), stub_(v1::TelemetryService::NewStub(channel_)), reconnect_(reconnect) {
    request_.set_detail(detail);
}

void Subscriber::start() {
    thread_ = std::thread([this] { run(); });
}

void Subscriber::stop() {
    stopping_ = true;
    {
        std::lock_guard lock(contextMu_);
        if (context_) context_->TryCancel();
    }
    if (thread_.joinable()) thread_.join();
}

std::string Subscriber::runId() const {
    std::lock_guard lock(mu_);
    return runId_;
}

std::vector<double> Subscriber::lagsMs() const {
    std::lock_guard lock(mu_);
    std::vector<double> lags;
    lags.reserve(arrivals_.size());
    for (const auto& a : arrivals_) lags.push_back(a.offsetMs);
    return lags;
}

std::vector<Subscriber::DeltaArrival> Subscriber::arrivals() const {
    std::lock_guard lock(mu_);
    return arrivals_;
}

std::vector<double> Subscriber::tickStartLagsMs() const {
    std::lock_guard lock(mu_);
    std::vector<double> lags;
    for (std::size_t i = 0; i < arrivals_.size(); ++i)
        if (i == 0 || arrivals_[i].serverTimeMs != arrivals_[i - 1].serverTimeMs) lags.push_back(arrivals_[i].offsetMs);
    return lags;
}

std::vector<Clock::time_point> Subscriber::returns() const {
    std::lock_guard lock(mu_);
    return returns_;
}

void Subscriber::onDelta(const v1::Delta& delta) {
    const std::uint64_t last = sequence;
    if (delta.first_sequence() > last + 1) ++gaps;
    if (delta.first_sequence() <= last) ++duplicates;
    std::uint64_t n = 0;
    for (const auto& b : delta.samples()) n += b.entity_indexes_size();
    samples += n;
    if (delta.sequence() > delta.first_sequence()) ++coalesced;
    sequence = delta.sequence();
    serverTimeMs = delta.server_time_unix_ms();
    const double lag = double(wallNowMs() - delta.server_time_unix_ms());
    std::lock_guard lock(mu_);
    arrivals_.push_back({delta.server_time_unix_ms(), lag, n, Clock::now()});
}

bool Subscriber::readStream(bool first) {
    const auto began = Clock::now();
    {
        std::lock_guard lock(contextMu_);
        if (stopping_) return false;
        context_ = std::make_unique<grpc::ClientContext>();
        // Waits for a restarting fleetd instead of failing at once.
        context_->set_wait_for_ready(reconnect_);
    }
    v1::SubscribeRequest request = request_;
    if (!first) {
        request.set_resume_after_sequence(sequence);
        request.set_resume_run_id(runId());
    }
    auto reader = stub_->Subscribe(context_.get(), request);
    v1::SubscribeResponse r;
    bool answered = false;
    while (reader->Read(&r)) {
        if (!answered && !first) {
            std::lock_guard lock(mu_);
            returns_.push_back(Clock::now());
        }
        if (r.has_snapshot()) {
            const bool sameRun = r.snapshot().run_id() == runId();
            if (snapshotSeconds < 0) {
                snapshotSeconds = std::chrono::duration<double>(Clock::now() - began).count();
                snapshotBytes = r.ByteSizeLong();
            } else {
                ++resyncs;
            }
            // A snapshot of the same run must not move backwards.
            if (sameRun && r.snapshot().sequence() < sequence) ++duplicates;
            {
                std::lock_guard lock(mu_);
                runId_ = r.snapshot().run_id();
            }
            sequence = r.snapshot().sequence();
        } else if (r.has_delta()) {
            if (!answered && !first) ++resumed;
            onDelta(r.delta());
            largestDeltaBytes = std::max<std::size_t>(largestDeltaBytes, r.ByteSizeLong());
        } else if (r.has_heartbeat()) {
            ++heartbeats;
        }
        answered = true;
    }
    endStatus = reader->Finish();
    return !stopping_;
}

void Subscriber::run() {
    bool first = true;
    while (readStream(first) && reconnect_) {
        first = false;
        ++reconnects;
    }
    ended = true;
}

const char* verdict(bool pass) { return pass ? "PASS" : "SHORT"; }

double mean(const std::vector<double>& values) {
    if (values.empty()) return 0;
    double sum = 0;
    for (double x : values) sum += x;
    return sum / double(values.size());
}

}  // namespace fleetd_bench
