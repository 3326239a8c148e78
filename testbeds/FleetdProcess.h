#pragma once
// The real fleetd (FLEETD_BIN) as a child process of a test: started on a free port (it is given
// port 0 and its "listening on HOST:PORT" line says which port it got, so parallel tests never
// race for a port), killed with the test if the test dies (PR_SET_PDEATHSIG), and terminated,
// killed or restarted on demand. stderr is collected for assertions and failure messages.

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <string>

namespace watchfloor::testing {

class FleetdProcess {
public:
    FleetdProcess() = default;
    ~FleetdProcess();
    FleetdProcess(const FleetdProcess&) = delete;
    FleetdProcess& operator=(const FleetdProcess&) = delete;

    static QString binary();  // $FLEETD_BIN

    // For the next start(): fleetd's environment (default: the test's).
    void setEnvironment(const QProcessEnvironment& environment) { process_.setProcessEnvironment(environment); }

    // Starts `fleetd --listen <listen> <args>` and waits for its listening line. On failure
    // errorString() says why, with fleetd's own output.
    bool start(const QStringList& args, const QString& listen = QStringLiteral("127.0.0.1:0"), int timeoutMs = 60'000);
    // Starts again with the same arguments and listen address (a new port when it was 0).
    bool restart(int timeoutMs = 60'000);
    // Starts again with the same arguments on the port it listened on: a client that keeps its
    // target sees a fleetd restart, as on a real host. Stops the running one first (SIGKILL).
    bool restartOnSamePort(int timeoutMs = 60'000);

    QString errorString() const { return error_; }
    int port() const { return port_; }
    QString host() const { return host_; }
    std::string address() const;  // "HOST:PORT" as listened on, for a gRPC target
    qint64 pid() const { return process_.processId(); }
    bool running() const { return process_.state() != QProcess::NotRunning; }

    QByteArray log();  // stderr so far
    // Waits until stderr matches; the match, or an empty one on timeout or exit.
    QRegularExpressionMatch waitForLog(const QRegularExpression& pattern, int timeoutMs);

    // SIGTERM and wait; the exit code, or -1 when it had to be killed or crashed.
    int terminate(int timeoutMs = 15'000);
    void kill();  // SIGKILL and wait for the corpse

    struct Exit {
        int code = -1;  // -1 timed out or crashed
        QString stdErr;
        QString stdOut;
    };
    // Runs fleetd to completion (bad command lines, --help) with the same death signal.
    static Exit run(const QStringList& args, int timeoutMs = 30'000);

private:
    static void configure(QProcess& process);

    QProcess process_;
    QStringList args_;
    QString listen_;
    QByteArray log_;
    QString error_;
    QString host_;
    int port_ = 0;
};

// A loopback TCP port nobody listens on right now (bound, read, released): for "unreachable
// endpoint" tests. Another process may take it later; tests only need it closed for a moment.
int freeLoopbackPort();

}  // namespace watchfloor::testing
