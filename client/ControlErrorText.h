#pragma once
// Control-call failures in an operator's words: what was refused, why, and what to do next.
// Pure functions, so every wording is tested without a server. What an action and its target are
// called comes from the console's table of actions (ActionWords.h).

#include "watchfloor/v1/control.pb.h"

#include <QString>

#include <grpcpp/support/status.h>

#include <chrono>

namespace watchfloor::client {

QString statusCodeWord(grpc::StatusCode code);  // "PERMISSION_DENIED"
QString roleWord(watchfloor::v1::Role role);    // "viewer", …, "unknown"

struct ControlFailure {
    QString target;            // fleetd "host:port"
    const char* rpcName = "";  // "ExecuteAction"
    grpc::StatusCode code = grpc::StatusCode::UNKNOWN;
    QString serverMessage;
    watchfloor::v1::Role callerRole = watchfloor::v1::ROLE_UNSPECIFIED;
    const watchfloor::v1::ActionRequest* action = nullptr;  // for PreviewAction / ExecuteAction
    std::chrono::milliseconds deadline{0};
    int attempts = 1;  // > 1 when execute() retried
};

// e.g. PERMISSION_DENIED → "Your role (viewer) cannot drain nodes.";
// ABORTED → "Refused: node r01-n03 changed since the preview (…). Preview again."
QString describeControlFailure(const ControlFailure& failure);

}  // namespace watchfloor::client
