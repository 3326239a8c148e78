#include "ChannelSecurity.h"

#include <QFile>
#include <QStringList>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/client_interceptor.h>
#include <grpcpp/support/interceptor.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <utility>
#include <vector>

namespace watchfloor::client {
namespace {

bool isLoopbackHost(QString host) {
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']'))) {
        host = host.mid(1, host.size() - 2);
    }
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0) {
        return true;
    }
    const QByteArray text = host.toLatin1();
    in_addr v4{};
    if (inet_pton(AF_INET, text.constData(), &v4) == 1) {
        return (ntohl(v4.s_addr) >> 24) == 127;
    }
    in6_addr v6{};
    if (inet_pton(AF_INET6, text.constData(), &v6) == 1) {
        if (std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0) {
            return true;
        }
        // ::ffff:127.x.y.z — an IPv4 loopback address written as IPv6.
        static const unsigned char mappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        return std::memcmp(v6.s6_addr, mappedPrefix, sizeof mappedPrefix) == 0 && v6.s6_addr[12] == 127;
    }
    return false;
}

// "host:port", "[v6]:port", or a bare host (an IPv6 address has more than one colon).
QString hostOf(const QString& address) {
    if (address.startsWith(QLatin1Char('['))) {
        const qsizetype close = address.indexOf(QLatin1Char(']'));
        return close < 0 ? address : address.left(close + 1);
    }
    if (address.count(QLatin1Char(':')) == 1) {
        return address.left(address.indexOf(QLatin1Char(':')));
    }
    return address;
}

struct FileOrError {
    std::string contents;
    QString error;
};

FileOrError readPem(const QString& path, const char* what) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return {{}, QStringLiteral("Cannot read the %1 %2: %3").arg(QLatin1String(what), path, file.errorString())};
    }
    const QByteArray data = file.readAll();
    if (!data.contains("-----BEGIN ")) {
        return {{}, QStringLiteral("The %1 %2 is not a PEM file (no -----BEGIN line)").arg(QLatin1String(what), path)};
    }
    return {data.toStdString(), {}};
}

// Adds the bearer token to every call's initial metadata. An interceptor (rather than call
// credentials) because gRPC only attaches call credentials on secure channels, and a token to a
// loopback fleetd in plaintext is legitimate.
class BearerTokenInterceptor final : public grpc::experimental::Interceptor {
public:
    explicit BearerTokenInterceptor(std::string header) : m_header(std::move(header)) {}

    void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
        if (methods->QueryInterceptionHookPoint(
                grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
            if (auto* metadata = methods->GetSendInitialMetadata()) {
                metadata->emplace("authorization", m_header);
            }
        }
        methods->Proceed();
    }

private:
    const std::string m_header;
};

class BearerTokenInterceptorFactory final : public grpc::experimental::ClientInterceptorFactoryInterface {
public:
    explicit BearerTokenInterceptorFactory(const QString& token) : m_header("Bearer " + token.toStdString()) {}

    grpc::experimental::Interceptor* CreateClientInterceptor(grpc::experimental::ClientRpcInfo*) override {
        return new BearerTokenInterceptor(m_header);
    }

private:
    std::string m_header;
};

}  // namespace

QString ChannelSecurity::describe() const {
    QString text = !usesTls()                ? QStringLiteral("plaintext")
                   : usesClientCertificate() ? QStringLiteral("TLS with a client certificate (mTLS)")
                                             : QStringLiteral("TLS");
    if (!bearerToken.isEmpty()) {
        text += QStringLiteral(", bearer token");
    }
    return text;
}

bool isLoopbackTarget(const QString& target) {
    QString rest = target.trimmed();
    if (rest.startsWith(QLatin1String("unix:")) || rest.startsWith(QLatin1String("unix-abstract:"))) {
        return true;  // never leaves the machine
    }
    if (rest.startsWith(QLatin1String("dns:"))) {
        rest = rest.mid(4);
        if (rest.startsWith(QLatin1String("//"))) {
            const qsizetype hostStart = rest.indexOf(QLatin1Char('/'), 2);  // skip "//authority/"
            rest = hostStart < 0 ? QString() : rest.mid(hostStart + 1);
        }
    }
    QStringList addresses{rest};
    if (rest.startsWith(QLatin1String("ipv4:")) || rest.startsWith(QLatin1String("ipv6:"))) {
        addresses = rest.mid(5).split(QLatin1Char(','), Qt::SkipEmptyParts);  // the scheme allows a list
    }
    if (addresses.isEmpty()) {
        return false;
    }
    for (const QString& address : addresses) {
        if (!isLoopbackHost(hostOf(address.trimmed()))) {
            return false;
        }
    }
    return true;
}

QString securityProblem(const QString& target, const ChannelSecurity& security) {
    if (security.clientCertFile.isEmpty() != security.clientKeyFile.isEmpty()) {
        return QStringLiteral("A client certificate needs both --client-cert and --client-key");
    }
    if (security.usesClientCertificate() && !security.usesTls()) {
        return QStringLiteral(
            "A client certificate (mTLS) needs TLS: give the CA that signed fleetd's certificate "
            "with --ca-cert");
    }
    if (!security.bearerToken.isEmpty() && !security.usesTls() && !isLoopbackTarget(target)) {
        return QStringLiteral(
                   "Refusing to send the bearer token in plaintext to %1, which is not on this machine: "
                   "use TLS (--ca-cert with fleetd's CA), or connect to fleetd on loopback")
            .arg(target);
    }
    return {};
}

ChannelOrError makeChannel(const QString& target, const ChannelSecurity& security, grpc::ChannelArguments args) {
    if (QString problem = securityProblem(target, security); !problem.isEmpty()) {
        return {nullptr, problem};
    }
    std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
    if (security.usesTls()) {
        grpc::SslCredentialsOptions options;
        auto ca = readPem(security.caCertFile, "CA certificate");
        if (!ca.error.isEmpty()) {
            return {nullptr, ca.error};
        }
        options.pem_root_certs = std::move(ca.contents);
        if (security.usesClientCertificate()) {
            auto cert = readPem(security.clientCertFile, "client certificate");
            if (!cert.error.isEmpty()) {
                return {nullptr, cert.error};
            }
            auto key = readPem(security.clientKeyFile, "client key");
            if (!key.error.isEmpty()) {
                return {nullptr, key.error};
            }
            options.pem_cert_chain = std::move(cert.contents);
            options.pem_private_key = std::move(key.contents);
        }
        credentials = grpc::SslCredentials(options);
    }
    std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> interceptors;
    if (!security.bearerToken.isEmpty()) {
        interceptors.push_back(std::make_unique<BearerTokenInterceptorFactory>(security.bearerToken));
    }
    return {grpc::experimental::CreateCustomChannelWithInterceptors(target.toStdString(), credentials, args,
                                                                    std::move(interceptors)),
            {}};
}

}  // namespace watchfloor::client
