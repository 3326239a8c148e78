// Every TelemetryService method of fleetd (Subscribe, GetHistory, ListEvents, GetTopology,
// ListIncidents, GetStepTimeHeatmap, GetStateAsOf): the input's first byte picks the method
// (FuzzCall.h), the rest is the request as sent on the wire, parsed by the service's own handler
// in an in-process fleetd on a 2-rack twin.
#include "InProcessFleetd.h"

#include "watchfloor/v1/fleet.pb.h"

using namespace watchfloor::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto& service = serviceNamed("watchfloor.v1.TelemetryService");
    FuzzCall call;
    if (!decodeCall(service, data, size, &call)) return 0;
    checkAnswer(call, InProcessFleetd::instance().call(call));
    return 0;
}
