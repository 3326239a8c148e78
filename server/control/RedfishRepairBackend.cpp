#include "RedfishRepairBackend.h"

#include <algorithm>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

constexpr std::string_view kPlaceholders[] = {"{node}", "{host}", "{bmc}", "{rack}"};

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
        } else if (pattern.compare(i, 5, "{bmc}") == 0) {
            out += bmcOf ? bmcOf(node) : std::string();
            i += 5;
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
        return "--bmc-url: expected http(s)://HOST[:PORT] with {node}, {host}, {bmc} or {rack}, got '" + pattern + "'";
    for (std::size_t open = pattern.find('{'); open != std::string::npos; open = pattern.find('{', open + 1)) {
        const std::string_view rest = std::string_view(pattern).substr(open);
        bool known = false;
        for (const std::string_view placeholder : kPlaceholders) known = known || rest.starts_with(placeholder);
        if (!known) return "--bmc-url: unknown placeholder in '" + pattern + "' (known: {node}, {host}, {bmc}, {rack})";
    }
    if (pattern.find("/redfish/") != std::string::npos)
        return "--bmc-url: give the BMC's address without /redfish/v1, got '" + pattern + "'";
    return {};
}

std::string checkBmcNames(const BmcDirectory& directory, const std::vector<std::string>& trays) {
    const auto uses = [](const std::string& pattern) { return pattern.find("{bmc}") != std::string::npos; };
    if (!uses(directory.urlTemplate) && !uses(directory.systemTemplate)) return {};
    std::vector<std::string> racks;  // in fleet order, each once
    for (const auto& tray : trays)
        if ((!directory.bmcOf || directory.bmcOf(tray).empty()) &&
            std::find(racks.begin(), racks.end(), rackOf(tray)) == racks.end())
            racks.push_back(rackOf(tray));
    if (racks.empty()) return {};
    std::string named;
    for (std::size_t i = 0; i < racks.size() && i < 5; ++i) named += (i ? ", " : "") + racks[i];
    if (racks.size() > 5) named += " and " + std::to_string(racks.size() - 5) + " more";
    return "--bmc-url uses {bmc}, but the fleet file gives no bmcs= for rack" +
           std::string(racks.size() > 1 ? "s " : " ") + named + " (e.g. 'rack r01 bmcs=10.1.9.[11-28]')";
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
