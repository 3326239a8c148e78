#include "RedfishRepairBackend.h"

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

constexpr std::string_view kPlaceholders[] = {"{node}", "{host}", "{rack}"};

std::string rackOf(const std::string& node) { return node.substr(0, node.find('-')); }

}  // namespace

std::string BmcDirectory::expand(const std::string& pattern, const std::string& node) const {
    std::string out;
    for (std::size_t i = 0; i < pattern.size();) {
        if (pattern.compare(i, 6, "{node}") == 0) {
            out += node;
            i += 6;
        } else if (pattern.compare(i, 6, "{host}") == 0) {
            const std::string host = hostOf ? hostOf(node) : std::string();
            out += host.empty() ? node : host;
            i += 6;
        } else if (pattern.compare(i, 6, "{rack}") == 0) {
            out += rackOf(node);
            i += 6;
        } else {
            out += pattern[i++];
        }
    }
    return out;
}

std::string checkBmcUrlTemplate(const std::string& pattern) {
    if (!pattern.starts_with("http://") && !pattern.starts_with("https://"))
        return "--bmc-url: expected http(s)://HOST[:PORT] with {node}, {host} or {rack}, got '" + pattern + "'";
    for (std::size_t open = pattern.find('{'); open != std::string::npos; open = pattern.find('{', open + 1)) {
        const std::string_view rest = std::string_view(pattern).substr(open);
        bool known = false;
        for (const std::string_view placeholder : kPlaceholders) known = known || rest.starts_with(placeholder);
        if (!known) return "--bmc-url: unknown placeholder in '" + pattern + "' (known: {node}, {host}, {rack})";
    }
    if (pattern.find("/redfish/") != std::string::npos)
        return "--bmc-url: give the BMC's address without /redfish/v1, got '" + pattern + "'";
    return {};
}

bool RedfishRepairBackend::runs(v1::ActionType type) {
    return type == v1::ACTION_TYPE_REBOOT_NODE || type == v1::ACTION_TYPE_POWER_CYCLE_NODE ||
           type == v1::ACTION_TYPE_POWER_CYCLE_RACK;
}

double RedfishRepairBackend::expectedOutOfServiceSeconds(const RepairStep& step) const {
    // docs/domain/break-fix.md, "Typical times": an OS reboot until the host is back, 5-15 min
    // (assumed); a power cycle adds the power-state change.
    switch (step.type) {
    case v1::ACTION_TYPE_REBOOT_NODE: return 10 * 60;
    case v1::ACTION_TYPE_POWER_CYCLE_NODE:
    case v1::ACTION_TYPE_POWER_CYCLE_RACK: return 12 * 60;
    default: return 0;  // refused at start
    }
}

repair::RedfishReset& RedfishRepairBackend::bmcOf(const std::string& node) {
    std::lock_guard lock(mutex_);
    auto& bmc = bmcs_[node];
    if (!bmc) {
        repair::BmcEndpoint endpoint{directory_.url(node), directory_.credentials, directory_.caFile,
                                     directory_.timeout};
        repair::RedfishResetSettings settings = settings_;
        if (!directory_.systemTemplate.empty()) settings.systemId = directory_.systemId(node);
        bmc = std::make_unique<repair::RedfishReset>(std::move(endpoint), std::move(settings));
    }
    return *bmc;
}

RepairProgress RedfishRepairBackend::progressOf(const repair::ResetProgress& reset) {
    RepairProgress progress;
    progress.finished = reset.finished;
    progress.message = reset.message;
    progress.ratio = reset.ratio;
    progress.outcome.set_handle(reset.handle);
    progress.outcome.set_power_state(reset.powerState);
    progress.outcome.set_succeeded(reset.succeeded);
    return progress;
}

RepairProgress RedfishRepairBackend::start(const RepairStep& step) {
    if (!runs(step.type)) {
        RepairProgress refused;
        refused.finished = true;
        refused.message =
            "a BMC cannot " + std::string(step.type == v1::ACTION_TYPE_RESET_GPU ? "reset a GPU" : "run diagnostics") +
            " on " + step.node + ": that runs on the tray itself (--repair-backend slurm+redfish sends it to Slurm)";
        return refused;
    }
    const auto kind =
        step.type == v1::ACTION_TYPE_REBOOT_NODE ? repair::ResetKind::Reboot : repair::ResetKind::PowerCycle;
    return progressOf(bmcOf(step.node).start(kind, step.node));
}

RepairProgress RedfishRepairBackend::poll(const RepairStep& step, const std::string& handle) {
    RepairProgress progress = progressOf(bmcOf(step.node).poll(handle));
    progress.outcome.set_handle(handle);
    return progress;
}

}  // namespace watchfloor::server::control
