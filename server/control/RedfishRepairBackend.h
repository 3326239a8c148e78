#pragma once
// Break/fix through each tray's BMC (the RepairBackend of `--repair-backend redfish`): a reboot is
// ComputerSystem.Reset GracefulRestart, a power cycle (one tray, or each tray of a rack) PowerCycle,
// both followed through the BMC's Task and PowerState (server/repair RedfishReset). A GPU reset and
// a diagnostic are not BMC actions: `StepRoutedRepairBackend` sends them to another back end (Slurm,
// or the twin), and without one they are refused at their start, naming what would run them.

#include "RedfishReset.h"
#include "RepairBackend.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace watchfloor::server::control {

// Where each tray's BMC is: --bmc-url TEMPLATE with {node} (the tray's entity name), {host} (its
// host name from the fleet file's hosts=), {bmc} (its BMC from the fleet file's bmcs=), {rack};
// the same for --bmc-system.
struct BmcDirectory {
    std::string urlTemplate;
    std::string systemTemplate;  // empty: the only member of /redfish/v1/Systems
    repair::BmcCredentials credentials;
    std::string caFile;
    std::chrono::milliseconds timeout{10000};
    std::function<std::string(const std::string& node)> hostOf;  // unset or "": the node's name
    std::function<std::string(const std::string& node)> bmcOf;   // unset or "": "" (checked at start)

    std::string url(const std::string& node) const { return expand(urlTemplate, node); }
    std::string systemId(const std::string& node) const { return expand(systemTemplate, node); }
    std::string expand(const std::string& pattern, const std::string& node) const;
};

// "http(s)://…" with known placeholders only; "" when it is, else why not.
std::string checkBmcUrlTemplate(const std::string& pattern);

// A template naming {bmc} needs every tray's BMC from the fleet file: "" when each of `trays` has
// one (or the templates do not use it), else which racks lack bmcs=.
std::string checkBmcNames(const BmcDirectory& directory, const std::vector<std::string>& trays);

class RedfishRepairBackend final : public RepairBackend {
public:
    RedfishRepairBackend(BmcDirectory directory, repair::RedfishResetSettings settings)
        : directory_(std::move(directory)), settings_(std::move(settings)) {}

    std::string name() const override { return "redfish"; }
    double expectedOutOfServiceSeconds(const RepairStep& step) const override;
    RepairProgress start(const RepairStep& step) override;
    RepairProgress poll(const RepairStep& step, const std::string& handle) override;

    static bool runs(watchfloor::v1::ActionType type);  // the step types a BMC carries out

private:
    repair::RedfishReset& bmcOf(const std::string& node);
    static RepairProgress progressOf(const repair::ResetProgress& reset);

    const BmcDirectory directory_;
    const repair::RedfishResetSettings settings_;
    std::mutex mutex_;  // the map; each tray's steps are polled from one thread
    std::map<std::string, std::unique_ptr<repair::RedfishReset>> bmcs_;  // by tray, made at first use
};

// BMC steps to the Redfish back end, the others to `rest` ("slurm+redfish", or the twin's GPU
// resets and diagnostics beside the twin's BMCs). name() is both, as RepairOutcome.backend.
class StepRoutedRepairBackend final : public RepairBackend {
public:
    StepRoutedRepairBackend(RepairBackend& bmc, RepairBackend& rest) : bmc_(bmc), rest_(rest) {}

    std::string name() const override { return rest_.name() + "+" + bmc_.name(); }
    double expectedOutOfServiceSeconds(const RepairStep& step) const override {
        return backendFor(step).expectedOutOfServiceSeconds(step);
    }
    // The outcome names the back end that ran the step ("redfish" or "slurm"), not the pair.
    RepairProgress start(const RepairStep& step) override {
        return named(backendFor(step), backendFor(step).start(step));
    }
    RepairProgress poll(const RepairStep& step, const std::string& handle) override {
        return named(backendFor(step), backendFor(step).poll(step, handle));
    }

private:
    static RepairProgress named(const RepairBackend& backend, RepairProgress progress) {
        if (progress.outcome.backend().empty()) progress.outcome.set_backend(backend.name());
        return progress;
    }
    RepairBackend& backendFor(const RepairStep& step) const {
        return RedfishRepairBackend::runs(step.type) ? bmc_ : rest_;
    }
    RepairBackend& bmc_;
    RepairBackend& rest_;
};

}  // namespace watchfloor::server::control
