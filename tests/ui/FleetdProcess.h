#pragma once
// Starts the real fleetd (FLEETD_BIN) on a free loopback port for end-to-end console tests, and
// can kill and restart it on the same port.

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTest>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace watchfloor::testing {

// A port the kernel just handed out and released; good enough for a test on loopback.
inline int freeLoopbackPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

class FleetdProcess {
public:
    explicit FleetdProcess(QStringList extraArgs = {}) : m_port(freeLoopbackPort()), m_extra(std::move(extraArgs)) {}
    ~FleetdProcess() { stop(); }

    static QString binary() { return qEnvironmentVariable("FLEETD_BIN"); }
    QString endpoint() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }

    bool start()
    {
        m_process.setProgram(binary());
        m_process.setArguments(QStringList{QStringLiteral("--listen"), endpoint(), QStringLiteral("--seed"),
                                           QStringLiteral("11"), QStringLiteral("--speed"), QStringLiteral("60")}
                               + m_extra);
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start();
        return m_process.waitForStarted(5000);
    }
    void stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.kill();
        m_process.waitForFinished(5000);
    }

private:
    int m_port;
    QStringList m_extra;
    QProcess m_process;
};

}  // namespace watchfloor::testing
