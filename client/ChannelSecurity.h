#pragma once
// How the console dials a fleetd endpoint: plaintext or TLS (a CA file to trust), optionally with
// a client certificate (mTLS), and a bearer token that rides on every call as
// "authorization: Bearer <token>".
//
// A token is a password: it is only ever sent over TLS, or in plaintext to a loopback target
// (127.0.0.0/8, ::1, localhost, a unix socket), never in the clear across a network. makeChannel()
// refuses the other case with an error the operator can act on instead of leaking the token.

#include <QString>

#include <grpcpp/channel.h>
#include <grpcpp/support/channel_arguments.h>

#include <memory>

namespace watchfloor::client {

struct ChannelSecurity {
    QString caCertFile;      // PEM; set => TLS, trusting only this CA
    QString clientCertFile;  // PEM; with clientKeyFile => mTLS
    QString clientKeyFile;
    QString bearerToken;  // sent as "authorization: Bearer <token>" on control and telemetry calls

    bool usesTls() const { return !caCertFile.isEmpty(); }
    bool usesClientCertificate() const { return !clientCertFile.isEmpty(); }
    // "plaintext", "TLS" or "TLS with a client certificate (mTLS)", plus ", bearer token" when set.
    QString describe() const;
};

struct ChannelOrError {
    std::shared_ptr<grpc::Channel> channel;  // null when error is set
    QString error;                           // operator words, e.g. names the file or the flag to use
};

// Loopback: 127.0.0.0/8, ::1, localhost (any case), unix sockets; with or without a gRPC scheme
// ("ipv4:", "ipv6:", "dns:///") and port.
bool isLoopbackTarget(const QString& target);

// Checks without dialling: a client certificate without its key (or the reverse), a client
// certificate without TLS, a token over plaintext to a non-loopback target. "" when acceptable.
QString securityProblem(const QString& target, const ChannelSecurity& security);

// Dials `target` with `security`; `args` carries the caller's keepalive and size settings. Reads
// the PEM files now, so a missing or unreadable file is reported here rather than as a
// handshake failure later.
ChannelOrError makeChannel(const QString& target, const ChannelSecurity& security, grpc::ChannelArguments args);

}  // namespace watchfloor::client
