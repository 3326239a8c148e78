#include "ControlPlane.h"

#include "CountPerWindow.h"

#include <charconv>
#include <cstdio>
#include <filesystem>

namespace watchfloor::server::control {

std::optional<CircuitBreakerConfig> parseAutoDrain(std::string_view text, std::string* problem) {
    // ",max=P%": a share of the fleet's trays beside the count; the lower binds.
    double maxFleetRatio = 0;
    if (const auto comma = text.find(','); comma != std::string_view::npos) {
        const std::string_view share = text.substr(comma + 1);
        text = text.substr(0, comma);
        constexpr std::string_view kKey = "max=";
        double percent = 0;
        const char* first = share.data() + kKey.size();
        const char* last = share.data() + share.size() - 1;
        const bool shaped = share.size() > kKey.size() + 1 && share.starts_with(kKey) && share.back() == '%';
        const auto parsed =
            shaped ? std::from_chars(first, last, percent) : std::from_chars_result{first, std::errc::invalid_argument};
        if (!shaped || parsed.ec != std::errc() || parsed.ptr != last || !(percent > 0) || percent > 100) {
            *problem =
                "--auto-drain: expected N/WINDOW,max=P% such as 5/10m,max=0.5% (P a share of the fleet's trays, "
                "above 0 and at most 100), got '," +
                std::string(share) + "'";
            return std::nullopt;
        }
        maxFleetRatio = percent / 100.0;
    }
    const auto limit = parseCountPerWindow(text);
    if (!limit) {
        *problem =
            "--auto-drain: expected N/WINDOW such as 5/10m (at most N distinct automated drains per window), got '" +
            std::string(text) + "'";
        return std::nullopt;
    }
    CircuitBreakerConfig config{limit->count, limit->window};
    config.maxFleetRatio = maxFleetRatio;
    return config;
}

bool parseRequireApproval(std::string_view text, ControlOptions* options, std::string* problem) {
    if (text != "isolate-rack") {
        *problem =
            "--require-approval: only 'isolate-rack' can require a second operator, got '" + std::string(text) + "'";
        return false;
    }
    options->isolateRackNeedsApproval = true;
    return true;
}

bool parseScheduler(std::string_view text, ControlOptions* options, std::string* problem) {
    if (text == "slurm")
        options->scheduler = ControlOptions::Scheduler::Slurm;
    else if (text == "sim")
        options->scheduler = ControlOptions::Scheduler::Sim;
    else {
        *problem = "--scheduler: expected slurm or sim, got '" + std::string(text) + "'";
        return false;
    }
    return true;
}

bool parseRepairBackend(std::string_view text, ControlOptions* options, std::string* problem) {
    using Repairs = ControlOptions::Repairs;
    if (text == "slurm")
        options->repairs = Repairs::Slurm;
    else if (text == "redfish")
        options->repairs = Repairs::Redfish;
    else if (text == "slurm+redfish" || text == "redfish+slurm")
        options->repairs = Repairs::SlurmAndRedfish;
    else {
        *problem = "--repair-backend: expected slurm, redfish or slurm+redfish, got '" + std::string(text) + "'";
        return false;
    }
    return true;
}

namespace {

constexpr const char* kBreakerTrippedAction = "CIRCUIT_BREAKER_TRIPPED";

// The trip reason when the audit log's last breaker event is a trip not followed by a reset. A log
// that cannot be read leaves the breaker tripped: automation must not act on a fleet whose last
// word on it is unknown; an operator resets it once the log is looked at.
std::optional<std::string> tripLeftByPreviousRun(const std::string& auditPath) {
    std::optional<std::string> trip;
    const std::string error = AuditLog::readRecords(auditPath, [&](const google::protobuf::Struct& record) {
        const auto field = [&](const char* key) {
            const auto found = record.fields().find(key);
            return found == record.fields().end() ? std::string() : found->second.string_value();
        };
        if (field("action") == kBreakerTrippedAction)
            trip = field("result");
        else if (field("action") == "RESET_CIRCUIT_BREAKER" && field("decision") == "result" &&
                 field("result").starts_with("SUCCEEDED"))
            trip.reset();
    });
    if (!error.empty()) return "the audit log could not be read at start (" + error + ")";
    return trip;
}

}  // namespace

ControlPlane::CreateResult ControlPlane::create(const ControlOptions& options, Collaborators collaborators) {
    std::unique_ptr<ControlPlane> plane(new ControlPlane());
    auto fail = [](std::string error) { return CreateResult{nullptr, std::move(error)}; };

    if (options.auditLogFile.empty()) return fail("--audit-log FILE is required: every action is recorded there first");
    auto opened = AuditLog::open(options.auditLogFile);
    if (!opened.log) return fail(opened.error);
    if (opened.repaired) plane->notes_.push_back(describe(*opened.repaired));
    plane->audit_ = std::move(opened.log);

    if (options.tokensFile.empty())
        return fail("--tokens FILE is required: it maps bearer tokens to principals and roles");
    auto tokens = TokenTable::load(options.tokensFile);
    if (!tokens.table) return fail(tokens.error);
    plane->notes_.push_back(std::to_string(tokens.table->size()) + " tokens loaded from " + options.tokensFile);
    plane->access_ = std::make_unique<AccessPolicy>(std::move(*tokens.table), *plane->audit_);

    auto credentials = makeServerCredentials(options.tls);
    if (!credentials.credentials) return fail(credentials.error);
    plane->credentials_ = credentials.credentials;
    plane->notes_.push_back(
        "control transport: " + credentials.description +
        (credentials.description == "plaintext" ? " (bearer tokens accepted from loopback peers only)" : ""));

    Actuator* actuator = collaborators.simulatorActuator;
    RepairBackend* repairs = nullptr;  // the twin's is set by fleetd (FleetdControl) under --scheduler sim
    if (options.scheduler == ControlOptions::Scheduler::Slurm) {
        const SlurmConfig slurm{options.slurmConf, "", std::chrono::seconds(15), options.slurmNodeNames};
        plane->slurm_ = std::make_unique<SlurmScheduler>(slurm);
        actuator = plane->slurm_.get();
        repair::SlurmRepairSettings settings;
        settings.outputDir =
            options.repairOutputDir.empty()
                ? (std::filesystem::absolute(options.auditLogFile).parent_path() / "repair-jobs").string()
                : std::filesystem::absolute(options.repairOutputDir).string();
        std::error_code created;
        std::filesystem::create_directories(settings.outputDir, created);
        if (created)
            return fail("cannot create the repair jobs' folder " + settings.outputDir + ": " + created.message());
        plane->notes_.push_back("break/fix through Slurm; repair jobs write to " + settings.outputDir);
        plane->slurmRepairs_ = std::make_unique<repair::SlurmRepairs>(slurm, settings);
        plane->slurmRepairBackend_ = std::make_unique<SlurmRepairBackend>(*plane->slurmRepairs_);
        repairs = plane->slurmRepairBackend_.get();
    }
    const bool bmcs = options.repairs == ControlOptions::Repairs::Redfish ||
                      options.repairs == ControlOptions::Repairs::SlurmAndRedfish;
    if ((options.repairs == ControlOptions::Repairs::Slurm ||
         options.repairs == ControlOptions::Repairs::SlurmAndRedfish) &&
        !plane->slurmRepairBackend_)
        return fail("--repair-backend slurm needs --scheduler slurm: repair jobs run on the site's Slurm");
    if (!bmcs && (!options.bmcs.urlTemplate.empty() || !options.bmcs.credentialsFile.empty()))
        return fail("--bmc-url and --bmc-credentials are for --repair-backend redfish or slurm+redfish");
    if (bmcs) {
        if (options.bmcs.urlTemplate.empty())
            return fail(
                "--repair-backend redfish needs --bmc-url TEMPLATE: where each tray's BMC answers, e.g. "
                "https://{host}-bmc.example.com");
        if (auto problem = checkBmcUrlTemplate(options.bmcs.urlTemplate); !problem.empty()) return fail(problem);
        if (options.bmcs.credentialsFile.empty())
            return fail("--repair-backend redfish needs --bmc-credentials FILE (one line USER:PASSWORD, mode 0600)");
        std::string problem;
        const auto credentials = repair::readBmcCredentials(options.bmcs.credentialsFile, &problem);
        if (!credentials) return fail(problem);
        BmcDirectory directory;
        directory.urlTemplate = options.bmcs.urlTemplate;
        directory.systemTemplate = options.bmcs.systemTemplate;
        directory.credentials = *credentials;
        directory.caFile = options.bmcs.caFile;
        if (options.slurmNodeNames)
            directory.hostOf = [names = options.slurmNodeNames](const std::string& node) {
                return names->toSlurm(node);
            };
        std::vector<std::string> trays;
        if (options.bmcs.names) {
            directory.bmcOf = [names = options.bmcs.names](const std::string& node) {
                const auto it = names->find(node);
                return it == names->end() ? std::string() : it->second;
            };
            for (const auto& [tray, bmc] : *options.bmcs.names) trays.push_back(tray);
        }
        if (auto problem = checkBmcNames(directory, trays); !problem.empty()) return fail(problem);
        repair::RedfishResetSettings settings;
        settings.taskTimeout = options.bmcs.taskTimeout;
        settings.powerOnTimeout = std::max(settings.powerOnTimeout, options.bmcs.taskTimeout);
        plane->redfishRepairBackend_ = std::make_unique<RedfishRepairBackend>(std::move(directory), settings);
        repairs = plane->redfishRepairBackend_.get();
        if (options.repairs == ControlOptions::Repairs::SlurmAndRedfish) {
            plane->routedRepairBackend_ =
                std::make_unique<StepRoutedRepairBackend>(*plane->redfishRepairBackend_, *plane->slurmRepairBackend_);
            repairs = plane->routedRepairBackend_.get();
        }
        plane->notes_.push_back("break/fix through the trays' BMCs (Redfish ComputerSystem.Reset at " +
                                options.bmcs.urlTemplate + ", user '" + credentials->user + "' from " +
                                options.bmcs.credentialsFile + ")" +
                                (plane->routedRepairBackend_ ? "; GPU resets and diagnostics through Slurm"
                                                             : "; GPU resets and diagnostics are refused"));
    }
    if (!actuator)
        return fail("--scheduler sim needs the simulator's actuator; use --scheduler slurm for a real cluster");

    OperationsConfig config;
    config.blastRadius.restartOverhead = options.restartOverhead;
    config.blastRadius.isolateRackNeedsApproval = options.isolateRackNeedsApproval;
    config.approvalTtl = options.approvalTtl;
    plane->engine_ = std::make_unique<OperationsEngine>(collaborators.fleet, *actuator, *plane->audit_, config);
    if (collaborators.acknowledger) plane->engine_->setEventAcknowledger(collaborators.acknowledger);
    if (collaborators.incidents) {
        plane->engine_->setIncidentActions(collaborators.incidents);
        // Drains, isolations and restarts go into the timeline of the incidents they hit.
        plane->engine_->addListener([incidents = collaborators.incidents](const watchfloor::v1::Operation& op) {
            incidents->noteOperation(op);
        });
    }
    plane->lifecycle_ = std::make_unique<TrayLifecycleBook>([] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    });
    plane->engine_->setLifecycleBook(plane->lifecycle_.get());
    if (repairs) plane->engine_->setRepairBackend(repairs);
    if (collaborators.linkLadder) {
        plane->linkLadder_ = std::make_unique<LinkLadderActions>(*collaborators.linkLadder, collaborators.fleet,
                                                                 *actuator, config.blastRadius);
        plane->engine_->setLinkLadder(plane->linkLadder_.get());
    }
    if (options.autoDrain) {
        // The trip is audited so that a restart cannot quietly re-enable automation.
        AuditLog& audit = *plane->audit_;
        auto alert = [&audit, forward = collaborators.alert](const std::string& message) {
            AuditRecord record;
            record.time = std::chrono::system_clock::now();
            record.principal = Caller::automation().principal;
            record.action = kBreakerTrippedAction;
            record.target = "automation circuit breaker";
            record.decision = "result";
            record.result = message;
            if (auto error = audit.append(record); !error.empty()) std::fprintf(stderr, "fleetd: %s\n", error.c_str());
            if (forward) forward(message);
        };
        plane->breaker_ = std::make_unique<AutomationCircuitBreaker>(*options.autoDrain, alert);
        if (auto trip = tripLeftByPreviousRun(options.auditLogFile)) {
            plane->breaker_->restoreTripped(*trip);
            plane->notes_.push_back("still tripped from before the restart: " + *trip);
        }
        plane->engine_->setCircuitBreaker(plane->breaker_.get());
        plane->autoDrain_ = std::make_unique<XidAutoDrain>(*plane->engine_, collaborators.fleet);
    }

    const RecoveryReport recovered = plane->engine_->recover(options.auditLogFile);
    if (!recovered.error.empty()) return fail(recovered.error);
    plane->notes_.push_back("recovered " + std::to_string(recovered.operations) + " operations from " +
                            options.auditLogFile + " (" + std::to_string(recovered.interrupted) +
                            " interrupted, reconciled against the fleet once serving)");
    plane->standing_ = recovered.standing;
    for (const StandingAction& set : recovered.lifecycles)
        plane->lifecycle_->restore(set.target, set.lifecycle, set.principal, set.reason, set.timeUnixMs);
    if (!recovered.lifecycles.empty())
        plane->notes_.push_back("tray lifecycle: " + std::to_string(recovered.lifecycles.size()) +
                                " tray(s) set by earlier runs, restored from the audit log");
    if (recovered.unreadableLines > 0)
        plane->notes_.push_back(std::to_string(recovered.unreadableLines) + " lines of " + options.auditLogFile +
                                " are not fleetd's records (garbage, torn, or longer than 1 MiB) and were skipped");

    plane->service_ = std::make_unique<ControlServiceImpl>(
        *plane->engine_, *plane->access_, ControlServiceImpl::Limits{}, options.auditLogFile, plane->audit_.get());
    return {std::move(plane), {}};
}

}  // namespace watchfloor::server::control
