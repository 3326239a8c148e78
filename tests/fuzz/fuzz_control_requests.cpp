// Every ControlService method of fleetd (WhoAmI, PreviewAction, ExecuteAction, ApproveOperation,
// GetOperation, ListOperations, WatchOperations, ListAuditEntries): the input's first byte picks
// the method and the caller (no token, viewer, two operators, admin; FuzzCall.h), the rest is the
// request as sent on the wire, parsed by the service's own handler in an in-process fleetd whose
// actions take effect on a 2-rack twin and are audited.
#include "InProcessFleetd.h"

#include "watchfloor/v1/control.pb.h"

using namespace watchfloor::fuzz;

namespace {

// Who may do what, whatever the request says (server/control/README.md).
void checkAccess(const FuzzCall& call, const grpc::Status& status) {
    if (!status.ok()) return;
    const std::string& method = call.method->name();
    const std::string where = call.method->full_name() + " as " + callerName(call.caller);
    FUZZ_CHECK(call.caller != Caller::Anonymous, where + " answered OK without a token");
    if (call.caller == Caller::Viewer)
        FUZZ_CHECK(method != "ExecuteAction" && method != "ApproveOperation" && method != "ListAuditEntries",
                   where + " answered OK to a viewer");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto& service = serviceNamed("watchfloor.v1.ControlService");
    FuzzCall call;
    if (!decodeCall(service, data, size, &call)) return 0;
    const auto answer = InProcessFleetd::instance().call(call);
    checkAnswer(call, answer);
    checkAccess(call, answer.status);
    return 0;
}
