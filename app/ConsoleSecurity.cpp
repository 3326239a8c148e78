#include "ConsoleSecurity.h"

#include <QFile>
#include <QFileInfo>

#include <sys/stat.h>

namespace watchfloor::app {

namespace {

struct TokenOrError {
    QString token;
    QString error;
};

TokenOrError readTokenFile(const QString& path) {
    struct stat info {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return {{}, QStringLiteral("--token-file %1: no such file").arg(path)};
    if (!S_ISREG(info.st_mode)) return {{}, QStringLiteral("--token-file %1 is not a regular file").arg(path)};
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        return {{},
                QStringLiteral("--token-file %1 is readable or writable by group or others (mode %2); the token "
                               "acts as you. Run: chmod 600 %1")
                    .arg(path)
                    .arg(info.st_mode & 0777, 4, 8, QLatin1Char('0'))};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {{}, QStringLiteral("--token-file %1: %2").arg(path, file.errorString())};
    const QList<QByteArray> lines = file.readAll().split('\n');
    for (const QByteArray& raw : lines) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) continue;
        if (line.contains(QLatin1Char(' ')) || line.contains(QLatin1Char('\t')))
            return {{}, QStringLiteral("--token-file %1: the token must be one word on one line").arg(path)};
        return {line, {}};
    }
    return {{}, QStringLiteral("--token-file %1 holds no token").arg(path)};
}

QString unreadable(const char* flag, const QString& path) {
    const QFileInfo info(path);
    if (!info.exists()) return QStringLiteral("--%1 %2: no such file").arg(QLatin1String(flag), path);
    if (!info.isReadable()) return QStringLiteral("--%1 %2 is not readable").arg(QLatin1String(flag), path);
    return {};
}

}  // namespace

ChannelSecurityOutcome loadChannelSecurity(const LaunchOptions& options, const QStringList& endpoints) {
    ChannelSecurityOutcome outcome;
    client::ChannelSecurity& security = outcome.security;
    security.caCertFile = options.caCertFile;
    security.clientCertFile = options.clientCertFile;
    security.clientKeyFile = options.clientKeyFile;
    for (auto [flag, path] :
         {std::pair{"ca-cert", &options.caCertFile}, std::pair{"client-cert", &options.clientCertFile},
          std::pair{"client-key", &options.clientKeyFile}}) {
        if (path->isEmpty()) continue;
        if (QString problem = unreadable(flag, *path); !problem.isEmpty()) {
            outcome.error = problem;
            return outcome;
        }
    }
    if (!options.tokenFile.isEmpty()) {
        TokenOrError token = readTokenFile(options.tokenFile);
        if (!token.error.isEmpty()) {
            outcome.error = token.error;
            return outcome;
        }
        security.bearerToken = token.token;
    }
    for (const QString& endpoint : endpoints) {
        if (QString problem = client::securityProblem(endpoint, security); !problem.isEmpty()) {
            outcome.error = problem;
            security.bearerToken.clear();  // an unusable outcome never carries the secret further
            return outcome;
        }
    }
    return outcome;
}

}  // namespace watchfloor::app
