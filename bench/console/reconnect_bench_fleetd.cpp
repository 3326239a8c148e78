#include "reconnect_bench_fleetd.h"

#include <QCoreApplication>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>

namespace watchfloor::bench {

RestartableFleetd::RestartableFleetd(QString program, QStringList arguments, int port, QObject* parent)
    : QObject(parent), m_program(std::move(program)), m_arguments(std::move(arguments)), m_port(port) {
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    m_process.setStandardOutputFile(QProcess::nullDevice());
    // fleetd dies with the bench, whatever ends it.
    m_process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    connect(&m_process, &QProcess::readyReadStandardError, this, &RestartableFleetd::readOutput);
}

RestartableFleetd::~RestartableFleetd() {
    if (running()) kill();
}

void RestartableFleetd::start() {
    m_listenedAt.reset();
    m_pending.clear();
    QStringList args{QStringLiteral("--listen"), target()};
    args << m_arguments;
    m_process.start(m_program, args);
}

void RestartableFleetd::readOutput() {
    m_pending += m_process.readAllStandardError();
    for (qsizetype nl = m_pending.indexOf('\n'); nl >= 0; nl = m_pending.indexOf('\n')) {
        const QByteArray line = m_pending.left(nl);
        m_pending.remove(0, nl + 1);
        if (!m_listenedAt && line.contains(" listening on ")) m_listenedAt = SteadyClock::now();
        m_tail = (m_tail + line + '\n').right(4000);
    }
}

void RestartableFleetd::kill() {
    m_process.kill();
    waitForExit();
}

void RestartableFleetd::terminate() {
    m_process.terminate();
    waitForExit();
}

void RestartableFleetd::waitForExit() {
    // Keeps the console's event loop turning: it must notice the outage as it would for real.
    while (running()) {
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
        m_process.waitForFinished(0);
    }
}

int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    if (fd >= 0) ::close(fd);
    return port;
}

}  // namespace watchfloor::bench
