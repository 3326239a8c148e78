#include "ControlErrorText.h"

#include <array>
#include <utility>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

QString statusCodeWord(grpc::StatusCode code) {
    // Indexed by the numeric code (0..16), as gRPC defines them.
    static constexpr std::array<const char*, 17> names = {
        "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
        "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
        "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
        "DATA_LOSS", "UNAUTHENTICATED"};
    const int index = int(code);
    return index >= 0 && index < int(names.size()) ? QLatin1String(names[std::size_t(index)])
                                                   : QStringLiteral("status %1").arg(index);
}

QString roleWord(v1::Role role) {
    switch (role) {
    case v1::ROLE_VIEWER: return QStringLiteral("viewer");
    case v1::ROLE_OPERATOR: return QStringLiteral("operator");
    case v1::ROLE_ADMIN: return QStringLiteral("admin");
    default: return QStringLiteral("unknown");
    }
}

QString actionVerbPhrase(v1::ActionType type) {
    switch (type) {
    case v1::ACTION_TYPE_DRAIN_NODE: return QStringLiteral("drain nodes");
    case v1::ACTION_TYPE_RESUME_NODE: return QStringLiteral("resume nodes");
    case v1::ACTION_TYPE_RESTART_JOB: return QStringLiteral("restart jobs");
    case v1::ACTION_TYPE_ISOLATE_RACK: return QStringLiteral("isolate racks");
    case v1::ACTION_TYPE_RESTORE_RACK: return QStringLiteral("restore racks");
    case v1::ACTION_TYPE_ACKNOWLEDGE_EVENT: return QStringLiteral("acknowledge alerts");
    case v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER: return QStringLiteral("reset the automation circuit breaker");
    case v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT: return QStringLiteral("acknowledge incidents");
    case v1::ACTION_TYPE_MITIGATE_INCIDENT: return QStringLiteral("mitigate incidents");
    case v1::ACTION_TYPE_RESOLVE_INCIDENT: return QStringLiteral("resolve incidents");
    case v1::ACTION_TYPE_NOTE_INCIDENT: return QStringLiteral("add notes to incidents");
    case v1::ACTION_TYPE_SCHEDULE_MAINTENANCE: return QStringLiteral("schedule maintenance");
    case v1::ACTION_TYPE_CANCEL_MAINTENANCE: return QStringLiteral("cancel maintenance");
    case v1::ACTION_TYPE_SET_LIFECYCLE: return QStringLiteral("set tray lifecycles");
    case v1::ACTION_TYPE_POST_HANDOFF: return QStringLiteral("post shift handoffs");
    case v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF: return QStringLiteral("acknowledge shift handoffs");
    default: return QStringLiteral("act");
    }
}

QString actionTargetPhrase(const v1::ActionRequest& action) {
    const auto text = [](const std::string& s) { return QString::fromStdString(s); };
    switch (action.type()) {
    case v1::ACTION_TYPE_DRAIN_NODE:
    case v1::ACTION_TYPE_RESUME_NODE: return QStringLiteral("node %1").arg(text(action.node_name()));
    case v1::ACTION_TYPE_RESTART_JOB: return QStringLiteral("job %1").arg(text(action.job_name()));
    case v1::ACTION_TYPE_ISOLATE_RACK:
    case v1::ACTION_TYPE_RESTORE_RACK: return QStringLiteral("rack %1").arg(text(action.rack_name()));
    case v1::ACTION_TYPE_ACKNOWLEDGE_EVENT: return QStringLiteral("alert %1").arg(action.event_id());
    case v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER: return QStringLiteral("the automation circuit breaker");
    case v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT:
    case v1::ACTION_TYPE_MITIGATE_INCIDENT:
    case v1::ACTION_TYPE_RESOLVE_INCIDENT:
    case v1::ACTION_TYPE_NOTE_INCIDENT: return QStringLiteral("incident %1").arg(action.incident_id());
    case v1::ACTION_TYPE_SCHEDULE_MAINTENANCE:
        return QStringLiteral("maintenance of %1").arg(text(action.maintenance().scope_name()));
    case v1::ACTION_TYPE_CANCEL_MAINTENANCE:
        return QStringLiteral("maintenance window %1").arg(text(action.maintenance_window_id()));
    case v1::ACTION_TYPE_SET_LIFECYCLE: return QStringLiteral("node %1").arg(text(action.node_name()));
    case v1::ACTION_TYPE_POST_HANDOFF: return QStringLiteral("the shift handoff");
    case v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF: return QStringLiteral("handoff %1").arg(text(action.handoff_id()));
    default: return QStringLiteral("the target");
    }
}

QString describeControlFailure(const ControlFailure& f) {
    const QString server = f.serverMessage.isEmpty() ? statusCodeWord(f.code) : f.serverMessage;
    const QString rpc = QLatin1String(f.rpcName);
    switch (f.code) {
    case grpc::StatusCode::PERMISSION_DENIED:
        if (f.action) {
            return QStringLiteral("Your role (%1) cannot %2.")
                .arg(roleWord(f.callerRole), actionVerbPhrase(f.action->type()));
        }
        if (rpc == QLatin1String("ListAuditEntries")) {
            return QStringLiteral("Your role (%1) cannot read the audit trail.").arg(roleWord(f.callerRole));
        }
        return QStringLiteral("Refused: %1.").arg(server);
    case grpc::StatusCode::ABORTED:
        if (f.action) {
            return QStringLiteral("Refused: %1 changed since the preview (%2). Preview again.")
                .arg(actionTargetPhrase(*f.action), server);
        }
        return QStringLiteral("Refused: %1. Look again and retry.").arg(server);
    case grpc::StatusCode::UNAUTHENTICATED:
        return QStringLiteral(
                   "fleetd at %1 did not accept your credentials (%2). Start the console with "
                   "--token-file holding a token listed in fleetd's --tokens file.")
            .arg(f.target, server);
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::INVALID_ARGUMENT: return QStringLiteral("Refused: %1.").arg(server);
    case grpc::StatusCode::NOT_FOUND: return QStringLiteral("Not found on fleetd at %1: %2.").arg(f.target, server);
    case grpc::StatusCode::UNIMPLEMENTED:
        return QStringLiteral("fleetd at %1 does not offer %2 — it may be older than this console (%3).")
            .arg(f.target, rpc, server);
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED: {
        QString text = f.code == grpc::StatusCode::UNAVAILABLE
                           ? QStringLiteral("Cannot reach fleetd at %1 (%2)").arg(f.target, server)
                           : QStringLiteral("fleetd at %1 did not answer %2 within %3 s")
                                 .arg(f.target, rpc, QString::number(double(f.deadline.count()) / 1000.0, 'f', 1));
        if (f.attempts > 1) {
            text += QStringLiteral(" after %1 attempts").arg(f.attempts);
        }
        if (f.action && rpc == QLatin1String("ExecuteAction")) {
            text += QStringLiteral(
                        ". The action may have reached fleetd: the Operations dock shows it if it did "
                        "(request id %1); executing it again with that id cannot act twice.")
                        .arg(QString::fromStdString(f.action->request_id()));
        } else {
            text += QLatin1Char('.');
        }
        return text;
    }
    default:
        return QStringLiteral("%1 on fleetd at %2 failed (%3: %4).").arg(rpc, f.target, statusCodeWord(f.code), server);
    }
}

}  // namespace watchfloor::client
