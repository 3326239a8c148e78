// DigitalTwin, the FleetSource: the public face of the TwinCoordinator it owns.

#include "DigitalTwin.h"

#include "TwinCoordinator.h"

namespace watchfloor::server::sim {

DigitalTwin::DigitalTwin(std::unique_ptr<TwinCoordinator> coordinator) : coordinator_(std::move(coordinator)) {}
DigitalTwin::~DigitalTwin() = default;

const watchfloor::v1::Topology& DigitalTwin::topology() const { return coordinator_->model->topology(); }
UnixTime DigitalTwin::now() const {
    return coordinator_->config.start + std::chrono::milliseconds(coordinator_->nowMs());
}
void DigitalTwin::setTelemetryEnabled(bool enabled) { coordinator_->telemetry = enabled; }
bool DigitalTwin::telemetryEnabled() const { return coordinator_->telemetry; }
const DigitalTwin::Statistics& DigitalTwin::statistics() const { return coordinator_->stats; }

TwinActionTicket DigitalTwin::requestAction(TwinAction action) {
    return coordinator_->requests.request(std::move(action));
}
bool DigitalTwin::withdrawAction(std::uint64_t ticketId) { return coordinator_->requests.withdraw(ticketId); }

std::optional<TwinNodeView> DigitalTwin::nodeView(const std::string& name) const {
    return coordinator_->publisher->nodeView(name);
}
std::optional<TwinJobView> DigitalTwin::jobView(const std::string& name) const {
    return coordinator_->publisher->jobView(name);
}
std::optional<TwinRackView> DigitalTwin::rackView(const std::string& name) const {
    return coordinator_->publisher->rackView(name);
}

std::optional<TwinRepairView> DigitalTwin::repairView(const std::string& handle) const {
    return coordinator_->repairs->view(handle);
}
double DigitalTwin::expectedRepairSeconds(watchfloor::v1::ActionType type, std::uint32_t diagnosticLevel) {
    return TwinRepairs::meanSeconds(type, diagnosticLevel);
}

std::unique_ptr<DigitalTwin> DigitalTwin::create(const SimConfig& config, ConfigError* error) {
    auto coordinator = TwinCoordinator::create(config, error);
    if (!coordinator) return nullptr;
    return std::unique_ptr<DigitalTwin>(new DigitalTwin(std::move(coordinator)));
}

void DigitalTwin::advanceTo(UnixTime until, FleetChanges& out) { coordinator_->advanceTo(until, out); }

}  // namespace watchfloor::server::sim
