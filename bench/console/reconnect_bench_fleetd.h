#pragma once
// fleetd for reconnect_bench: a child process that is killed, terminated and started again on the
// same loopback port, as on a real host, without ever blocking the caller's event loop (the
// console under test runs on it). The moment fleetd listens is taken when its "listening on" line
// is read.

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

namespace watchfloor::bench {

using SteadyClock = std::chrono::steady_clock;

class RestartableFleetd : public QObject {
    Q_OBJECT
public:
    RestartableFleetd(QString program, QStringList arguments, int port, QObject* parent = nullptr);
    ~RestartableFleetd() override;

    // Starts fleetd; listenedAt() is set once it prints its listening line.
    void start();
    // SIGKILL (a crash, a power cut) or SIGTERM (a restart); returns once it has exited.
    void kill();
    void terminate();
    bool running() const { return m_process.state() != QProcess::NotRunning; }
    std::optional<SteadyClock::time_point> listenedAt() const { return m_listenedAt; }
    QString target() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }
    // fleetd's last lines, for messages when it fails.
    QString lastOutput() const { return QString::fromUtf8(m_tail); }

private:
    void readOutput();
    void waitForExit();

    QString m_program;
    QStringList m_arguments;
    int m_port;
    QProcess m_process;
    QByteArray m_pending;
    QByteArray m_tail;
    std::optional<SteadyClock::time_point> m_listenedAt;
};

// A loopback port nobody listens on right now.
int freePort();

}  // namespace watchfloor::bench
