#pragma once
// fleetd's listening credentials: plaintext (tokens then only accepted from loopback peers),
// TLS, or TLS that requires and verifies a client certificate (mTLS). gRPC's default server
// options do not ask for a client certificate, so mTLS is set explicitly here.

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_context.h>

#include <memory>
#include <string>

namespace watchfloor::server::control {

struct TlsFiles {
    std::string certPath;      // --tls-cert
    std::string keyPath;       // --tls-key (must not be readable by group or others)
    std::string clientCaPath;  // --tls-client-ca: require client certificates signed by this CA
};

struct ServerCredentialsResult {
    std::shared_ptr<grpc::ServerCredentials> credentials;  // null on error
    std::string error;
    std::string description;  // "plaintext", "TLS" or "TLS with client certificates (mTLS)"
};

ServerCredentialsResult makeServerCredentials(const TlsFiles& files);

// Whether this call arrived over TLS (the AuthContext is the only trustworthy source).
bool isSecureChannel(const grpc::ServerContext& context);

// The verified client certificate's common name under mTLS, else "".
std::string clientCertificateName(const grpc::ServerContext& context);

}  // namespace watchfloor::server::control
