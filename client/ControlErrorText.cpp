#include "ControlErrorText.h"

#include "ActionWords.h"

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

QString describeControlFailure(const ControlFailure& f) {
    const QString server = f.serverMessage.isEmpty() ? statusCodeWord(f.code) : f.serverMessage;
    const QString rpc = QLatin1String(f.rpcName);
    switch (f.code) {
    case grpc::StatusCode::PERMISSION_DENIED:
        if (f.action) {
            return QStringLiteral("Your role (%1) cannot %2.")
                .arg(roleWord(f.callerRole), actionPermission(f.action->type()));
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
