#include "FleetdControl.h"

#include "CountPerWindow.h"
#include "Fail.h"
#include "TopologyFleetView.h"

#include "DigitalTwin.h"
#include "TwinControlAdapter.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

namespace watchfloor::server::fleetd {
namespace v1 = watchfloor::v1;

namespace {

constexpr std::chrono::milliseconds kControlTickPeriod{1000};

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// Two fleetds appending to one audit log would interleave sequence numbers and each recover the
// other's operations; a lock file beside the log makes the second one refuse to start. The
// kernel drops the lock when the process dies, so kill -9 never leaves it stale.
int lockAuditLog(const std::string& auditPath, std::string* error) {
    const std::string lockPath = auditPath + ".lock";
    const int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return fail(error, "cannot open " + lockPath + ": " + std::strerror(errno), -1);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const std::string why =
            errno == EWOULDBLOCK
                ? "audit log " + auditPath + " is in use by another fleetd; give each fleetd its own --audit-log"
                : "cannot lock " + lockPath + ": " + std::strerror(errno);
        ::close(fd);
        return fail(error, why, -1);
    }
    return fd;
}

}  // namespace

std::chrono::milliseconds twinActionTimeout(double speed) {
    // A tick at 1,800 racks takes ~1 s: 10 s, and at least three ticks when a slow --speed spaces them out.
    constexpr std::chrono::seconds kTwinActionTimeout{10};
    const auto threeTicks = std::chrono::milliseconds(static_cast<std::int64_t>(3 * 1000.0 / std::max(speed, 1e-3)));
    return std::max<std::chrono::milliseconds>(kTwinActionTimeout, threeTicks);
}

std::string defaultAuditLogPath() {
    if (const std::string state = environment("STATE_DIRECTORY"); !state.empty())
        return state.substr(0, state.find(':')) + "/audit.jsonl";
    std::string base = environment("XDG_STATE_HOME");
    if (base.empty()) base = environment("HOME").empty() ? "." : environment("HOME") + "/.local/state";
    return base + "/watchfloor/fleetd-audit.jsonl";
}

bool FleetdControl::refuseEveryCall(const CommandLine& cl, std::string* error) {
    auto transport = control::makeServerCredentials(cl.control.tls);
    if (!transport.credentials) return fail(error, transport.error);
    credentials_ = transport.credentials;
    log_("operator actions off (no --tokens FILE): control calls are refused; transport: " + transport.description);
    return true;
}

std::unique_ptr<FleetdControl> FleetdControl::create(const CommandLine& cl, sim::DigitalTwin& twin, Log log,
                                                     control::SlurmNodeStatePoller* slurmStates, std::string* error) {
    std::unique_ptr<FleetdControl> self(new FleetdControl());
    self->log_ = std::move(log);
    self->keepIncidentRecords(twin.topology());
    if (!cl.controlEnabled()) return self->refuseEveryCall(cl, error) ? std::move(self) : nullptr;
    EventAcknowledgementBook& acknowledgements = self->acknowledgements_;
    self->twinControl_ = std::make_unique<sim::TwinControlAdapter>(
        twin, twinActionTimeout(cl.speed),
        [&acknowledgements](std::uint64_t id) { return acknowledgements.facts(id); });
    const control::FleetView& base = *self->twinControl_;
    control::Actuator* simulator = self->twinControl_.get();
    if (!self->assemble(cl, twin.topology(), base, simulator, slurmStates, error)) return nullptr;
    // Under --scheduler slurm the drains live in Slurm and survive fleetd by themselves, and
    // break/fix steps are Slurm's to run; on the twin alone, the twin runs them.
    if (!slurmStates) {
        self->plane_->useSimulatorRepairs(self->twinControl_.get());
        self->restoreOperatorStates(twin);
    }
    return self;
}

void FleetdControl::restoreOperatorStates(sim::DigitalTwin& twin) {
    std::size_t drains = 0, isolations = 0;
    for (const control::StandingAction& standing : plane_->standingActions()) {
        const std::string reason = standing.reason + " [restored from the audit log, " + standing.operationId + "]";
        if (standing.type == v1::ACTION_TYPE_DRAIN_NODE) {
            twin.requestAction(sim::TwinAction::drainNode(standing.target, reason));
            ++drains;
        } else {
            twin.requestAction(sim::TwinAction::isolateRack(standing.target, reason));
            ++isolations;
        }
    }
    if (drains + isolations > 0)
        log_("the digital twin starts fresh: restoring " + std::to_string(drains) + " operator drain(s) and " +
             std::to_string(isolations) + " rack isolation(s) in force when the last run stopped");
}

void FleetdControl::keepIncidentRecords(const v1::Topology& topology) {
    lifecycle_ = std::make_unique<incidents::IncidentLifecycle>(topology);
    calendar_ = std::make_unique<incidents::MaintenanceCalendar>(topology);
}

std::vector<v1::Operation> FleetdControl::succeededOperations() const {
    std::vector<v1::Operation> succeeded;
    v1::ListOperationsRequest request;
    request.set_page_size(1000);
    for (;;) {
        const auto page = plane_->engine().list(request);
        for (const auto& op : page.response.operations())
            if (op.state() == v1::OPERATION_STATE_SUCCEEDED) succeeded.push_back(op);
        if (!page.status.ok() || page.response.next_page_token().empty()) break;
        request.set_page_token(page.response.next_page_token());
    }
    std::reverse(succeeded.begin(), succeeded.end());  // pages are newest first
    return succeeded;
}

void FleetdControl::restoreMaintenanceWindows() {
    std::vector<v1::Operation> scheduled;
    std::set<std::string> cancelled;
    for (v1::Operation& op : succeededOperations()) {
        if (op.request().type() == v1::ACTION_TYPE_SCHEDULE_MAINTENANCE)
            scheduled.push_back(std::move(op));
        else if (op.request().type() == v1::ACTION_TYPE_CANCEL_MAINTENANCE)
            cancelled.insert(op.request().maintenance_window_id());
    }
    std::size_t restored = 0;
    for (const v1::Operation& op : scheduled) {
        const std::string id = control::IncidentActions::windowIdFor(op.id());
        if (cancelled.count(id)) continue;
        const v1::ActionRequest& asked = op.request();
        restored += calendar_->restore(asked.maintenance(), id, asked.reason(),
                                       asked.owner().empty() ? op.principal() : asked.owner(), op.principal())
                        ? 1
                        : 0;
    }
    if (restored > 0)
        log_("restored " + std::to_string(restored) +
             " maintenance window(s) scheduled in earlier runs (those already "
             "over end at the first tick)");
}

void FleetdControl::restoreHandoffs() {
    // Oldest first, so every acknowledgement finds the post it names.
    std::size_t posted = 0, acknowledged = 0;
    for (const v1::Operation& op : succeededOperations()) {
        const auto type = op.request().type();
        if (type != v1::ACTION_TYPE_POST_HANDOFF && type != v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF) continue;
        if (!control::IncidentActions::applyHandoff(handoffs_, op).succeeded) continue;
        (type == v1::ACTION_TYPE_POST_HANDOFF ? posted : acknowledged) += 1;
    }
    if (posted + acknowledged > 0)
        log_("restored " + std::to_string(posted) + " shift handoff(s) and " + std::to_string(acknowledged) +
             " acknowledgement(s) from earlier runs");
}

void FleetdControl::restoreLinkLadder() {
    std::size_t steps = 0;
    for (const v1::Operation& op : succeededOperations()) {
        if (!control::LinkLadderActions::handles(op.request().type())) continue;
        control::LinkLadderActions::replay(*linkLadder_, op);
        ++steps;
    }
    if (steps > 0)
        log_("link ladder: " + std::to_string(steps) + " step(s) of earlier runs restored, " +
             std::to_string(linkLadder_->isolatedNow()) + " link(s) isolated now");
}

void FleetdControl::serving() {
    if (loop_) loop_->reconcileInterrupted();
}

std::unique_ptr<FleetdControl> FleetdControl::createForRealFleet(const CommandLine& cl, const v1::Topology& topology,
                                                                 Log log, control::SlurmNodeStatePoller* slurmStates,
                                                                 std::string* error) {
    std::unique_ptr<FleetdControl> self(new FleetdControl());
    self->log_ = std::move(log);
    self->keepIncidentRecords(topology);
    if (!cl.controlEnabled()) return self->refuseEveryCall(cl, error) ? std::move(self) : nullptr;
    if (!slurmStates)
        return fail(error,
                    "operator actions on a real fleet act through Slurm: add --scheduler slurm [--slurm-conf FILE]",
                    nullptr);
    EventAcknowledgementBook& acknowledgements = self->acknowledgements_;
    self->topologyView_ = std::make_unique<control::TopologyFleetView>(
        topology, [&acknowledgements](std::uint64_t id) { return acknowledgements.facts(id); });
    const control::FleetView& base = *self->topologyView_;
    if (!self->assemble(cl, topology, base, nullptr, slurmStates, error)) return nullptr;
    return self;
}

bool FleetdControl::assemble(const CommandLine& cl, const v1::Topology& topology, const control::FleetView& base,
                             control::Actuator* simulator, control::SlurmNodeStatePoller* slurmStates,
                             std::string* error) {
    control::ControlOptions options = cl.control;
    options.slurmNodeNames = control::slurmNodeNamesOf(topology);
    auto bmcs = std::make_shared<std::map<std::string, std::string>>();
    for (const auto& node : topology.nodes()) bmcs->emplace(node.name(), node.bmc());
    options.bmcs.names = std::move(bmcs);
    if (options.autoDrain) options.autoDrain->fleetTrays = static_cast<std::size_t>(topology.nodes_size());
    if (!cl.auditLogGiven) {
        options.auditLogFile = defaultAuditLogPath();
        std::error_code ec;
        const auto folder = std::filesystem::path(options.auditLogFile).parent_path();
        std::filesystem::create_directories(folder, ec);
        if (ec)
            return fail(error, "cannot create " + folder.string() + " for the audit log: " + ec.message() +
                                   "; choose one with --audit-log FILE");
        log_("audit log: " + options.auditLogFile + " (default; --audit-log FILE to choose)");
    }
    auditLockFd_ = lockAuditLog(options.auditLogFile, error);
    if (auditLockFd_ < 0) return false;

    fleetIndex_ = topology.fleet_index();
    const control::FleetView* fleet = &base;
    if (slurmStates) {
        slurmView_ = std::make_unique<control::SlurmFleetView>(base, *slurmStates);
        fleet = slurmView_.get();
    }
    incidentActions_ = std::make_unique<control::IncidentActions>(lifecycle_.get(), calendar_.get(), &handoffs_);
    std::map<std::uint32_t, std::string> trayNames;
    for (const auto& node : topology.nodes()) trayNames.emplace(node.index(), node.name());
    std::map<std::string, std::string> trayOfLink;
    for (const auto& port : topology.nic_ports())
        if (const auto tray = trayNames.find(port.node_index()); tray != trayNames.end())
            trayOfLink.emplace(port.name(), tray->second);
    linkLadder_ = std::make_unique<LinkLadderBook>(std::size_t(topology.nic_ports_size()), std::move(trayOfLink));
    auto created = control::ControlPlane::create(
        options, {*fleet, simulator, &acknowledgements_, [this](const std::string& message) { raiseAlert(message); },
                  incidentActions_.get(), linkLadder_.get()});
    if (!created.plane) return fail(error, created.error);
    plane_ = std::move(created.plane);
    restoreMaintenanceWindows();
    restoreHandoffs();
    restoreLinkLadder();
    if (slurmStates)
        plane_->engine().addListener([slurmStates](const v1::Operation&) { slurmStates->requestRefresh(); });
    credentials_ = plane_->credentials();
    acknowledgements_.setFirstEventId(EventAcknowledgementBook::firstEventIdAfter(plane_->engine()));
    if (acknowledgements_.firstEventId() > 1)
        log_("event ids start at " + std::to_string(acknowledgements_.firstEventId()) +
             ", past the events acknowledged in earlier runs");
    for (const std::string& note : plane_->startupNotes()) log_(note);
    if (plane_->autoDrain()) {
        for (const auto& node : topology.nodes()) nodeNames_[node.index()] = node.name();
        for (const auto& gpu : topology.gpus()) gpuPlaces_[gpu.index()] = {gpu.node_index(), gpu.local_id()};
        const auto& breaker = plane_->breaker()->config();
        log_("automatic draining on: at most " + std::to_string(breaker.effectiveLimit()) + " nodes per " +
             std::to_string(breaker.window.count()) + " s" +
             (breaker.effectiveLimit() < breaker.maxActionsPerWindow
                  ? " (the share of " + std::to_string(breaker.fleetTrays) + " trays binds, below " +
                        std::to_string(breaker.maxActionsPerWindow) + ")"
                  : std::string()) +
             ", then the breaker holds until an admin resets it");
    }
    loop_ = std::make_unique<ControlLoop>(*plane_, kControlTickPeriod, log_);
    ControlLoop* loop = loop_.get();
    trays_ = std::make_unique<TrayAutomation>(
        topology, *plane_, options, [loop](TrayAutomation::Task task) { loop->post(std::move(task)); }, log_);
    TrayAutomation* trays = trays_.get();
    repairs_ = std::make_unique<RepairCaseKeeper>(
        topology, *plane_, *fleet, options, [loop](RepairCaseKeeper::Task task) { loop->post(std::move(task)); }, log_,
        [trays](const std::string& node, v1::TrayLifecycle state, std::string reason) {
            trays->proposeLifecycle(node, state, std::move(reason));
        });
    if (options.autoIsolateLinks != control::ControlOptions::AutoIsolateLinks::Off) {
        const bool act = options.autoIsolateLinks == control::ControlOptions::AutoIsolateLinks::Act;
        linkAutomation_ = std::make_unique<LinkAutoIsolation>(
            options.autoIsolateLinks, *plane_, *linkLadder_,
            [loop](LinkAutoIsolation::Task task) { loop->post(std::move(task)); }, log_);
        log_(std::string("links at risk: ") +
             (act ? "isolated by automation as 'auto' at their jobs' next checkpoint, behind the circuit breaker, "
                    "at most " +
                        std::to_string(linkLadder_->budget()) + " at once"
                  : "dry run: automation marks the links it would isolate as proposed, and does nothing"));
    }
    if (options.autoRemediate != control::ControlOptions::AutoRemediate::Off)
        log_(std::string("repair cases of GPU-reset and restart Xids: ") +
             (options.autoRemediate == control::ControlOptions::AutoRemediate::Act
                  ? "worked by automation as 'auto' behind the circuit breaker"
                  : "dry run: automation records what it would do, and does nothing"));
    log_(std::string("fail-slow trays: ") +
         (options.autoEvictSlow ? "confirmed ones are drained as 'auto' behind the circuit breaker"
                                : "confirmed ones are proposed to operators (--auto-evict-slow to drain them)") +
         "; lemon trays: " + std::to_string(options.lemon.failures) + " failures within " +
         control::windowText(options.lemon.window) +
         (options.autoLifecycle ? ", set to TRIAGE as 'auto'" : ", TRIAGE proposed (--auto-lifecycle to set it)"));
    return true;
}

FleetdControl::~FleetdControl() {
    stop();
    if (auditLockFd_ >= 0) ::close(auditLockFd_);
}

void FleetdControl::stop() {
    if (loop_) loop_->stop();
}

void FleetdControl::onEvent(const v1::Event& event) {
    acknowledgements_.noteJournaled(event.id());
    if (event.type() != v1::EVENT_TYPE_XID || gpuPlaces_.empty()) return;
    const auto place = gpuPlaces_.find(event.entity_index());
    if (place == gpuPlaces_.end()) return;
    const auto node = nodeNames_.find(place->second.node);
    if (node == nodeNames_.end()) return;
    loop_->post({node->second, place->second.local, event.xid().xid(), event.id()});
}

void FleetdControl::raiseAlert(const std::string& message) {
    log_("ALERT: " + message);
    v1::Event event;
    event.set_severity(v1::SEVERITY_CRITICAL);
    event.set_type(v1::EVENT_TYPE_AUTOMATED_ACTION);
    event.set_entity_index(fleetIndex_);
    event.set_cause("automation_circuit_breaker");
    event.set_message("automatic draining stopped: " + message +
                      "; an admin resets the breaker (RESET_CIRCUIT_BREAKER) after review");
    std::lock_guard lock(pendingMutex_);
    pendingEvents_.push_back(std::move(event));
}

void FleetdControl::addPendingEvents(FleetChanges& changes) {
    std::lock_guard lock(pendingMutex_);
    for (auto& event : pendingEvents_) {
        event.set_time_unix_ms(toUnixMs(changes.time));
        changes.events.push_back(std::move(event));
    }
    pendingEvents_.clear();
}

void FleetdControl::addAutomationStatus(FleetChanges& changes) {
    // Every console shows the breaker on its Fleet page: sent with the first tick, then on change.
    v1::AutomationStatus status;
    if (control::AutomationCircuitBreaker* breaker = plane_->breaker())
        status = breaker->status(std::chrono::system_clock::now());
    status.set_auto_remediation(repairs_->autoRemediation());
    const std::string serialized = status.SerializeAsString();
    if (automationSent_ && serialized == lastAutomation_) return;
    automationSent_ = true;
    lastAutomation_ = serialized;
    changes.hasAutomation = true;
    changes.automation = std::move(status);
}

void FleetdControl::attachTo(service::FleetdOptions& options) {
    options.credentials = credentials_;
    options.maintenance = calendar_.get();
    options.lifecycle = lifecycle_.get();
    options.linkLadder = linkLadder_.get();
    if (!plane_) {
        options.extraServices.push_back(&disabled_);
        return;
    }
    options.extraServices.push_back(&plane_->service());
    options.store.firstEventId = acknowledgements_.firstEventId();
    options.eventTap = [this](const v1::Event& event) { onEvent(event); };
    options.addChanges = [this](FleetChanges& changes) {
        addPendingEvents(changes);
        addAutomationStatus(changes);
        changes.handoffs = handoffs_.takeChanges();
        trays_->apply(changes);
        repairs_->apply(changes);
        if (linkAutomation_)
            linkAutomation_->consider(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
    };
    options.beforeShutdown = [this] { plane_->service().stopStreams(); };
}

}  // namespace watchfloor::server::fleetd
