#include "TransportSecurity.h"

#include <grpcpp/security/auth_context.h>

#include <sys/stat.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace watchfloor::server::control {
namespace {

bool readFile(const std::string& path, const char* what, std::string& contents, std::string& error) {
    std::ifstream file(path);
    if (!file) {
        error = std::string("cannot read the ") + what + " " + path + ": " + std::strerror(errno);
        return false;
    }
    std::stringstream text;
    text << file.rdbuf();
    contents = text.str();
    if (contents.find("-----BEGIN") == std::string::npos) {
        error = std::string("the ") + what + " " + path + " is not PEM";
        return false;
    }
    return true;
}

std::string firstProperty(const grpc::ServerContext& context, const char* name) {
    const auto auth = context.auth_context();
    if (!auth) return {};
    const auto values = auth->FindPropertyValues(name);
    return values.empty() ? std::string() : std::string(values.front().data(), values.front().size());
}

}  // namespace

ServerCredentialsResult makeServerCredentials(const TlsFiles& files) {
    ServerCredentialsResult result;
    if (files.certPath.empty() && files.keyPath.empty()) {
        if (!files.clientCaPath.empty()) {
            result.error = "--tls-client-ca needs --tls-cert and --tls-key";
            return result;
        }
        result.credentials = grpc::InsecureServerCredentials();
        result.description = "plaintext";
        return result;
    }
    if (files.certPath.empty() || files.keyPath.empty()) {
        result.error = "TLS needs both --tls-cert and --tls-key";
        return result;
    }
    struct stat info {};
    if (::stat(files.keyPath.c_str(), &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        result.error =
            "the TLS key " + files.keyPath + " is accessible by group or other users; run: chmod 600 " + files.keyPath;
        return result;
    }
    grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
    if (!readFile(files.keyPath, "TLS key", pair.private_key, result.error) ||
        !readFile(files.certPath, "TLS certificate", pair.cert_chain, result.error))
        return result;
    grpc::SslServerCredentialsOptions options;
    options.pem_key_cert_pairs.push_back(std::move(pair));
    if (!files.clientCaPath.empty()) {
        if (!readFile(files.clientCaPath, "client CA", options.pem_root_certs, result.error)) return result;
        options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
        result.description = "TLS with client certificates (mTLS)";
    } else {
        options.client_certificate_request = GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE;
        result.description = "TLS";
    }
    result.credentials = grpc::SslServerCredentials(options);
    return result;
}

bool isSecureChannel(const grpc::ServerContext& context) {
    return firstProperty(context, GRPC_TRANSPORT_SECURITY_TYPE_PROPERTY_NAME) == "ssl";
}

std::string clientCertificateName(const grpc::ServerContext& context) {
    const auto auth = context.auth_context();
    if (!auth || !auth->IsPeerAuthenticated()) return {};
    return firstProperty(context, GRPC_X509_CN_PROPERTY_NAME);
}

}  // namespace watchfloor::server::control
