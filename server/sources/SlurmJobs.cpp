#include "SlurmJobs.h"

#include "CommandRunner.h"
#include "EttrBudget.h"
#include "Hostlist.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

namespace watchfloor::server::sources {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::size_t kMostProblems = 5;
constexpr std::uint32_t kGpusPerTray = 4;  // an NVL72 compute tray

// squeue's %S in the controller's local time, e.g. "2026-12-01T05:41:55"; "N/A" before a start.
std::int64_t parseSlurmTime(std::string_view text) {
    std::tm tm{};
    if (text.size() != 19 || std::sscanf(std::string(text).c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon,
                                         &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return 0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_isdst = -1;
    const std::time_t t = std::mktime(&tm);
    return t < 0 ? 0 : std::int64_t(t) * 1000;
}

std::vector<std::string_view> split(std::string_view line, char by) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const auto at = line.find(by, start);
        parts.push_back(line.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return parts;
        start = at + 1;
    }
}

}  // namespace

std::vector<SqueueJob> parseSqueueJobs(std::string_view output, std::vector<std::string>* problems) {
    std::vector<SqueueJob> jobs;
    for (std::string_view line : split(output, '\n')) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        const auto fields = split(line, '|');
        std::optional<std::vector<std::string>> hosts;
        if (fields.size() == 5 && !fields[0].empty()) hosts = expandHostlist(fields[4]);
        if (!hosts) {
            if (problems && problems->size() < kMostProblems)
                problems->push_back("squeue line not understood: \"" + std::string(line.substr(0, 120)) + "\"");
            continue;
        }
        jobs.push_back({std::string(fields[0]), std::string(fields[1]), std::string(fields[2]),
                        parseSlurmTime(fields[3]), std::move(*hosts)});
    }
    return jobs;
}

void ProgressLedger::observe(const JobProgress& p, std::int64_t startedMs) {
    if (p.step < 0) return;
    if (!first_) {
        first_ = p;
        last_ = p;
        return;
    }
    if (p.sampleTimeMs <= last_.sampleTimeMs) return;  // the same scrape read again
    const double seconds = double(p.sampleTimeMs - last_.sampleTimeMs) / 1000.0;
    if (!ledger_) {
        // The pace between the first two readings stands for the ideal pace; a job that
        // publishes training_ideal_step_seconds would be better, and is the convention's next step.
        if (p.step <= first_->step) {
            last_ = p;
            return;
        }
        idealStepS_ = seconds / (p.step - first_->step);
        epochMs_ = startedMs > 0 && startedMs <= first_->sampleTimeMs ? startedMs : first_->sampleTimeMs;
        ledger_ = std::make_unique<GoodputLedger>(Seconds(idealStepS_));
        ledger_->jobStart(Seconds(0));
    }
    auto at = [&](std::int64_t ms) { return Seconds(double(ms - epochMs_) / 1000.0); };
    if (p.step < last_.step) {
        // Back to an earlier step: the job restarted from a checkpoint.
        ledger_->disruption(at(last_.sampleTimeMs));
        ledger_->jobStart(at(p.sampleTimeMs));
        ledger_->checkpointRestore(static_cast<std::uint64_t>(p.step), at(p.sampleTimeMs), at(p.sampleTimeMs));
    } else if (p.step > last_.step) {
        const auto count = static_cast<std::uint64_t>(p.step - last_.step);
        ledger_->steps(static_cast<std::uint64_t>(last_.step), count, at(last_.sampleTimeMs), at(p.sampleTimeMs),
                       false);
        stepTimeS_ = seconds / double(count);
    }
    if (p.checkpointStep > lastCheckpoint_ && p.checkpointStep <= p.step) {
        ledger_->checkpointSave(static_cast<std::uint64_t>(p.checkpointStep), at(p.sampleTimeMs), at(p.sampleTimeMs));
        lastCheckpoint_ = p.checkpointStep;
        lastCheckpointMs_ = p.sampleTimeMs;
    }
    last_ = p;
}

void ProgressLedger::fill(v1::Job& job, std::int64_t nowMs) const {
    job.set_no_step_telemetry(!ledger_);
    if (!ledger_) {
        if (first_) job.set_step(static_cast<std::uint64_t>(first_->step));
        return;
    }
    const Seconds now(double(std::max(nowMs, last_.sampleTimeMs) - epochMs_) / 1000.0);
    job.set_step(static_cast<std::uint64_t>(last_.step));
    if (lastCheckpoint_ >= 0) {
        job.set_last_checkpoint_step(static_cast<std::uint64_t>(lastCheckpoint_));
        job.set_last_checkpoint_unix_ms(lastCheckpointMs_);
    }
    job.set_ideal_step_time_s(idealStepS_);
    job.set_step_time_s(stepTimeS_);
    job.set_straggler_slowdown(idealStepS_ > 0 && stepTimeS_ > 0 ? stepTimeS_ / idealStepS_ : 1.0);
    job.set_goodput_ratio(ledger_->goodputRatio(now));
    job.set_confirmed_goodput_ratio(ledger_->confirmedGoodputRatio(now));
    job.set_ettr_ratio(ledger_->ettrRatio(now));
    job.set_ettr_sliding_1h_ratio(ledger_->slidingEttrRatio(now));
    job.set_goodput_sliding_1h_ratio(ledger_->slidingGoodputRatio(now));
    *job.mutable_breakdown() = ledger_->breakdown(now);
    job.set_interruptions(ledger_->disruptions());
    // The measured half of the budget only: a real site's gauges carry no configured failure
    // rate, interval or save cost, so the expected terms (and E[ETTR]) stay 0.
    watchfloor::v1::EttrBudget budget = ettrBudget({}, job.breakdown(), {});
    budget.set_expected_ettr_at_measured_rates_ratio(0);
    *job.mutable_ettr_budget() = budget;
}

std::uint32_t firstIndexAfter(const v1::Topology& topology) {
    std::uint32_t next = topology.fleet_index() + 1;
    auto past = [&](const auto& items) {
        for (const auto& item : items) next = std::max(next, item.index() + 1);
    };
    past(topology.regions());
    past(topology.racks());
    past(topology.nodes());
    past(topology.gpus());
    past(topology.cpus());
    past(topology.nvswitch_trays());
    past(topology.power_shelves());
    past(topology.nvlinks());
    past(topology.nic_ports());
    past(topology.cooling_loops());
    return next;
}

SlurmJobs::SlurmJobs(const v1::Topology& topology, std::uint32_t firstIndex, std::uint32_t slots, std::string slurmConf,
                     std::chrono::milliseconds timeout)
    : inventory_(topology),
      firstIndex_(firstIndex),
      slots_(slots),
      slurmConf_(std::move(slurmConf)),
      timeout_(timeout) {}

std::optional<std::uint32_t> SlurmJobs::indexFor(const std::string& id) {
    if (auto it = tracked_.find(id); it != tracked_.end()) return it->second.index;
    // Indexes are never reused within a run: a console that still shows a finished job must not
    // see a new one under its index. A run that exhausts the block stops adding jobs (logged by the caller).
    if (nextSlot_ >= slots_) return std::nullopt;
    const std::uint32_t index = firstIndex_ + nextSlot_++;
    tracked_.emplace(id, Tracked{index, {}, {}});
    return index;
}

bool SlurmJobs::poll(const std::unordered_map<std::string, JobProgress>& progress, std::int64_t nowMs,
                     std::vector<v1::Job>& out, std::string* error) {
    EnvironmentOverrides environment;
    if (!slurmConf_.empty()) environment.emplace_back("SLURM_CONF", slurmConf_);
    const auto result =
        runCommand({"squeue", "-h", "-a", "-t", "RUNNING,COMPLETING,CONFIGURING,SUSPENDED", "-o", "%i|%j|%u|%S|%N"},
                   timeout_, environment);
    if (!result.succeeded()) {
        if (error) *error = result.failureText("squeue", timeout_);
        return false;
    }
    std::vector<std::string> problems;
    apply(parseSqueueJobs(result.out, &problems), progress, nowMs, out);
    if (error && !problems.empty()) *error = problems.front();
    return true;
}

void SlurmJobs::apply(const std::vector<SqueueJob>& jobs, const std::unordered_map<std::string, JobProgress>& progress,
                      std::int64_t nowMs, std::vector<v1::Job>& out) {
    std::set<std::string> running;
    for (const auto& sj : jobs) {
        const auto index = indexFor(sj.id);
        if (!index) continue;
        running.insert(sj.id);
        Tracked& tracked = tracked_.at(sj.id);
        if (auto p = progress.find(sj.id); p != progress.end()) tracked.ledger.observe(p->second, sj.startMs);
        v1::Job job;
        job.set_index(*index);
        // Slurm job names repeat ("train", "bash"): the entity name carries the id to stay unique.
        job.set_name(sj.name + "-" + sj.id);
        job.set_slurm_job_id(sj.id);
        job.set_user(sj.user);
        job.set_state(v1::JOB_STATE_RUNNING);
        job.set_started_unix_ms(sj.startMs);
        for (const auto& host : sj.hosts) {
            if (auto node = inventory_.node(host))
                job.add_node_indexes(*node);
            else
                ++unknownHosts_;
        }
        job.set_gpu_count(std::uint32_t(job.node_indexes_size()) * kGpusPerTray);
        tracked.ledger.fill(job, nowMs);
        tracked.last = job;
        out.push_back(std::move(job));
    }
    for (auto it = tracked_.begin(); it != tracked_.end();) {
        if (running.count(it->first)) {
            ++it;
            continue;
        }
        v1::Job finished = it->second.last;  // jobs travel whole: keep its name, nodes and numbers
        finished.set_state(v1::JOB_STATE_FINISHED);
        out.push_back(std::move(finished));
        it = tracked_.erase(it);
    }
}

}  // namespace watchfloor::server::sources
