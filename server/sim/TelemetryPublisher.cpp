#include "TelemetryPublisher.h"

#include <cmath>
#include <mutex>

namespace watchfloor::server::sim {

using namespace watchfloor::v1;

namespace {

std::vector<std::string> namesOf(const std::vector<TrainingJob>& jobs) {
    std::vector<std::string> names;
    for (const auto& job : jobs) names.push_back(job.name());
    return names;
}

std::map<std::string, std::uint32_t> ordinalsOf(const std::vector<TrainingJob>& jobs) {
    std::map<std::string, std::uint32_t> byName;
    for (std::uint32_t j = 0; j < jobs.size(); ++j) byName.emplace(jobs[j].name(), j);
    return byName;
}

}  // namespace

TelemetryPublisher::TelemetryPublisher(const FleetModel& model, const TwinScheduler& clock, std::int64_t startUnixMs,
                                       const std::vector<TrainingJob>& jobs)
    : model_(model), clock_(clock), startUnixMs_(startUnixMs), jobNames_(namesOf(jobs)), jobByName_(ordinalsOf(jobs)) {}

Event& TelemetryPublisher::event(Severity severity, EventType type, std::uint32_t entity, std::string message) {
    static FleetChanges sink;  // events before the first advanceTo (none today) go nowhere
    auto& events = out_ ? out_->events : sink.events;
    Event& e = events.emplace_back();
    e.set_time_unix_ms(unixNowMs());
    e.set_severity(severity);
    e.set_type(type);
    e.set_entity_index(entity);
    e.set_message(std::move(message));
    return e;
}

EntityState& TelemetryPublisher::state(std::uint32_t entity, HealthState health, const std::string& reason) {
    auto& st = out_->states.emplace_back();
    st.set_entity_index(entity);
    st.set_health(health);
    st.set_reason(reason);
    st.set_since_unix_ms(unixNowMs());
    return st;
}

std::optional<std::uint32_t> TelemetryPublisher::findJob(const std::string& name) const {
    const auto it = jobByName_.find(name);
    if (it == jobByName_.end()) return std::nullopt;
    return it->second;
}

void TelemetryPublisher::publishView(ViewedTable<TrayState>& trays, ViewedTable<RackStatus>& racks,
                                     const std::vector<TrainingJob>& jobs, const std::vector<double>& jobStartS) {
    std::unique_lock lock(mutex_);
    if (trays_.empty()) {
        trays_.resize(trays.size());
        jobs_.resize(jobs.size());
        racks_.resize(racks.size());
    }
    // Jobs are few and their clocks move every step; trays and racks only when written to.
    const bool traysWritten = trays.takeChanged();
    const bool rescan = racks.takeChanged() || traysWritten;
    std::vector<bool> rackChanged(rescan ? racks.size() : 0, false);
    for (std::uint32_t t = 0; rescan && t < trays.size(); ++t) {
        const TrayState& tray = trays[t];
        Tray& p = trays_[t];
        if (p.state == tray.node && p.job == tray.job && p.drainRequested == tray.drainRequested &&
            p.reason == tray.reason && p.drainReason == tray.drainReason)
            continue;
        p.state = tray.node;
        p.job = tray.job;
        p.drainRequested = tray.drainRequested;
        p.reason = tray.reason;
        p.drainReason = tray.drainReason;
        p.version = ++lastVersion_;
        rackChanged[model_.rackOfTray(t)] = true;
    }
    const double now = clock_.nowS();
    std::vector<std::uint32_t> held;
    for (std::uint32_t j = 0; j < jobs.size(); ++j) {
        const TrainingJob& job = jobs[j];
        Job& p = jobs_[j];
        const bool working = job.computing() || job.phase() == JobPhase::Checkpointing;
        const bool recovering = job.interruptions() > 0 && !working;
        const double since = job.hasCheckpoint() ? job.lastCheckpointS() : jobStartS[j];  // < 0 when warm-started
        p.checkpointAgeS = std::isnan(since) ? 0.0 : now - since;
        p.unsavedProgressS = working ? static_cast<double>(job.stepAt(now) - job.lastDurableStep()) * job.stepS() : 0.0;
        bool traysChanged = false;
        if (rescan) {
            held.clear();
            for (const std::uint32_t t : job.trays())
                if (trays[t].job == j) held.push_back(t);
            traysChanged = p.trays != held;
        }
        p.gpus = job.gpuCount();
        if (!traysChanged && p.recovering == recovering && p.interruptions == job.interruptions()) continue;
        if (traysChanged) p.trays = held;
        p.recovering = recovering;
        p.interruptions = job.interruptions();
        p.version = ++lastVersion_;
    }
    for (std::uint32_t r = 0; rescan && r < racks.size(); ++r) {
        const RackStatus& rack = racks[r];
        Rack& p = racks_[r];
        const bool leak = rack.leakWet > 0;
        const bool isolated = rack.electricalIsolated || rack.liquidIsolated;
        if (!rackChanged[r] && p.state == rack.state && p.leakActive == leak && p.isolated == isolated) continue;
        p.state = rack.state;
        p.leakActive = leak;
        p.isolated = isolated;
        p.version = ++lastVersion_;
    }
}

std::optional<std::uint32_t> TelemetryPublisher::ordinalOf(const std::string& name, EntityKind kind) const {
    const auto ref = model_.find(name);
    if (!ref || ref->kind != kind) return std::nullopt;
    return ref->ordinal;
}

std::optional<TwinNodeView> TelemetryPublisher::nodeView(const std::string& name) const {
    const auto tray = ordinalOf(name, ENTITY_KIND_NODE);
    if (!tray) return std::nullopt;
    const std::uint32_t t = *tray;
    TwinNodeView view;
    view.name = model_.trayName(t);
    view.rack = model_.rackName(model_.rackOfTray(t));
    view.gpus = kGpusPerTray;
    std::shared_lock lock(mutex_);
    const Tray& p = trays_[t];
    view.state = p.state;
    view.reason = p.reason;
    view.drainRequested = p.drainRequested;
    view.drainReason = p.drainReason;
    if (p.job != kNoJob) view.jobs.push_back(jobNames_[p.job]);
    view.stateVersion = p.version;
    return view;
}

std::optional<TwinJobView> TelemetryPublisher::jobView(const std::string& name) const {
    const auto found = jobByName_.find(name);
    if (found == jobByName_.end()) return std::nullopt;
    TwinJobView view;
    view.name = name;
    std::shared_lock lock(mutex_);
    const Job& p = jobs_[found->second];
    view.gpus = p.gpus;
    view.checkpointAgeS = p.checkpointAgeS;
    view.unsavedProgressS = p.unsavedProgressS;
    view.recovering = p.recovering;
    view.nodes.reserve(p.trays.size());
    for (const std::uint32_t t : p.trays) view.nodes.push_back(model_.trayName(t));
    view.stateVersion = p.version;
    return view;
}

std::optional<TwinRackView> TelemetryPublisher::rackView(const std::string& name) const {
    const auto rack = ordinalOf(name, ENTITY_KIND_RACK);
    if (!rack) return std::nullopt;
    const std::uint32_t r = *rack;
    TwinRackView view;
    view.name = model_.rackName(r);
    std::shared_lock lock(mutex_);
    const Rack& p = racks_[r];
    view.state = p.state;
    view.leakActive = p.leakActive;
    view.isolated = p.isolated;
    view.stateVersion = p.version;
    for (std::uint32_t k = 0; k < kTraysPerRack; ++k) {
        const std::uint32_t t = r * kTraysPerRack + k;
        view.trays.push_back({model_.trayName(t), trays_[t].state});
    }
    return view;
}

}  // namespace watchfloor::server::sim
