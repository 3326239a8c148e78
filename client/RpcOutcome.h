#pragma once
// The result of a unary RPC as a value: either the response or an operator-readable error.

#include <QString>

#include <grpcpp/support/status.h>

#include <optional>
#include <utility>

namespace watchfloor::client {

template <typename Response>
class RpcOutcome {
public:
    static RpcOutcome success(Response r) {
        RpcOutcome o;
        o.m_response = std::move(r);
        return o;
    }
    static RpcOutcome failure(grpc::StatusCode code, QString message) {
        RpcOutcome o;
        o.m_code = code;
        o.m_error = std::move(message);
        return o;
    }

    bool ok() const { return m_response.has_value(); }
    const Response& value() const { return *m_response; }
    Response& value() { return *m_response; }
    grpc::StatusCode code() const { return m_code; }
    // e.g. "GetHistory on 10.0.0.5:7443 timed out after 5 s (DEADLINE_EXCEEDED)"
    const QString& error() const { return m_error; }

private:
    std::optional<Response> m_response;
    grpc::StatusCode m_code = grpc::StatusCode::OK;
    QString m_error;
};

}  // namespace watchfloor::client
