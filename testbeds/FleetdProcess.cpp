#include "FleetdProcess.h"

#include <QElapsedTimer>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <csignal>

namespace watchfloor::testing {

QString FleetdProcess::binary() { return qEnvironmentVariable("FLEETD_BIN"); }

void FleetdProcess::configure(QProcess& process) {
    // Runs in the child between fork and exec: a test that crashes or is killed by CTest's
    // timeout takes its fleetd with it instead of leaving it serving on a port.
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
}

FleetdProcess::~FleetdProcess() { kill(); }

bool FleetdProcess::start(const QStringList& args, const QString& listen, int timeoutMs) {
    kill();
    args_ = args;
    listen_ = listen;
    log_.clear();
    error_.clear();
    port_ = 0;
    configure(process_);
    process_.setProgram(binary());
    process_.setArguments(QStringList{QStringLiteral("--listen"), listen} + args);
    process_.setProcessChannelMode(QProcess::SeparateChannels);
    process_.start();
    if (!process_.waitForStarted(10'000)) {
        error_ = QStringLiteral("cannot start %1: %2").arg(binary(), process_.errorString());
        return false;
    }
    // The whole line: read mid-line, the port could be cut short ("…:383" of 38323) and the rest of
    // the line (fleet, racks, seed) not there yet (tst_fleetd_process under ASan at 95b5750).
    static const QRegularExpression listening(QStringLiteral(R"(listening on (\S+):(\d+)[^\n]*\n)"));
    const auto match = waitForLog(listening, timeoutMs);
    if (!match.hasMatch()) {
        error_ =
            QStringLiteral("fleetd did not report listening within %1 ms (%2); its output:\n%3")
                .arg(timeoutMs)
                .arg(running() ? QStringLiteral("still running") : QStringLiteral("exited %1").arg(process_.exitCode()))
                .arg(QString::fromUtf8(log_));
        return false;
    }
    host_ = match.captured(1);
    port_ = match.captured(2).toInt();
    return true;
}

bool FleetdProcess::restart(int timeoutMs) { return start(args_, listen_, timeoutMs); }

bool FleetdProcess::restartOnSamePort(int timeoutMs) {
    if (port_ == 0) {
        error_ = QStringLiteral("restartOnSamePort: fleetd never listened, so there is no port to reuse");
        return false;
    }
    const QString listen = QString::fromStdString(address());
    const QString firstListen = listen_;
    const bool started = start(args_, listen, timeoutMs);
    listen_ = firstListen;  // restart() keeps meaning "as first started"
    return started;
}

std::string FleetdProcess::address() const {
    const QString host = host_.contains(':') && !host_.startsWith('[') ? '[' + host_ + ']' : host_;
    return (host + ':' + QString::number(port_)).toStdString();
}

QByteArray FleetdProcess::log() {
    if (process_.state() != QProcess::NotRunning || process_.bytesAvailable() > 0)
        log_ += process_.readAllStandardError();
    return log_;
}

QRegularExpressionMatch FleetdProcess::waitForLog(const QRegularExpression& pattern, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    for (;;) {
        log_ += process_.readAllStandardError();
        auto match = pattern.match(QString::fromUtf8(log_));
        if (match.hasMatch()) return match;
        if (timer.elapsed() >= timeoutMs || process_.state() == QProcess::NotRunning) return {};
        process_.waitForReadyRead(50);
    }
}

int FleetdProcess::terminate(int timeoutMs) {
    if (!running()) return process_.exitStatus() == QProcess::NormalExit ? process_.exitCode() : -1;
    process_.terminate();
    if (!process_.waitForFinished(timeoutMs)) {
        kill();
        return -1;
    }
    log_ += process_.readAllStandardError();
    return process_.exitStatus() == QProcess::NormalExit ? process_.exitCode() : -1;
}

void FleetdProcess::kill() {
    if (!running()) return;
    process_.kill();
    process_.waitForFinished(10'000);
    log_ += process_.readAllStandardError();
}

FleetdProcess::Exit FleetdProcess::run(const QStringList& args, int timeoutMs) {
    QProcess process;
    configure(process);
    process.start(binary(), args);
    Exit exit;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        exit.stdErr = QStringLiteral("timed out after %1 ms").arg(timeoutMs);
        return exit;
    }
    exit.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    exit.stdErr = QString::fromUtf8(process.readAllStandardError());
    exit.stdOut = QString::fromUtf8(process.readAllStandardOutput());
    return exit;
}

int freeLoopbackPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

}  // namespace watchfloor::testing
