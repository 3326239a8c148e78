#include "TwinActuator.h"

#include <future>

namespace watchfloor::server::sim {

namespace {

const char* verb(TwinActionType type) {
    switch (type) {
    case TwinActionType::DrainNode: return "drain";
    case TwinActionType::ResumeNode: return "resume";
    case TwinActionType::RequeueJob: return "requeue";
    case TwinActionType::IsolateRack: return "isolate";
    case TwinActionType::RestoreRack: return "restore";
    case TwinActionType::Repair: return "the break/fix step on";
    case TwinActionType::MendLink: return "the treatment of";
    }
    return "action";
}

}  // namespace

TwinActionResult TwinActuator::perform(TwinAction action) {
    const std::string what = std::string(verb(action.type)) + " " + action.target;
    TwinActionTicket ticket = twin_.requestAction(std::move(action));
    try {
        if (ticket.result.wait_for(timeout_) == std::future_status::ready) return ticket.result.get();
        if (twin_.withdrawAction(ticket.id))
            return {false,
                    "the digital twin did not get to " + what + " within " + std::to_string(timeout_.count()) +
                        " ms (is fleetd's tick loop running?); nothing was changed",
                    {}};
        return ticket.result.get();       // being applied right now
    } catch (const std::future_error&) {  // the twin went away with the request still queued
        return {false, "the digital twin shut down before it applied " + what, {}};
    }
}

}  // namespace watchfloor::server::sim
