#pragma once
// A throw-away Slurm cluster for a test (scripts/slurm-loopback): started in a folder, stopped by
// pid file when the test ends, and Slurm's own client programs run against it.

#include <QProcess>
#include <QString>
#include <QStringList>

#include <unistd.h>

namespace slurm_test {

// stdout + stderr of a Slurm client program run with SLURM_CONF=slurmConf.
inline QString runText(const QString& program, const QStringList& args, const QString& slurmConf) {
    QProcess process;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("SLURM_CONF", slurmConf);
    process.setProcessEnvironment(env);
    process.start(program, args);
    process.waitForFinished(30000);
    return QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
}

class LoopbackCluster {
public:
    LoopbackCluster() = default;
    LoopbackCluster(const LoopbackCluster&) = delete;
    LoopbackCluster& operator=(const LoopbackCluster&) = delete;
    ~LoopbackCluster() { stop(); }

    // `options`: slurm-loopback's (--racks, --trays, --slurmd). False with skipReason() when this
    // machine cannot run Slurm (not root, packages missing), or with error() when it did not start.
    bool start(const QString& dir, const QStringList& options) {
        if (::geteuid() != 0) {
            skipReason_ = "needs root: Slurm node updates need a Slurm administrator and slurmd runs jobs as root";
            return false;
        }
        dir_ = dir;
        QProcess start;
        // --owner: the cluster is stopped even when this test is killed before its destructor runs.
        start.start(script(), QStringList{"start", dir, "--owner", QString::number(::getpid())} + options);
        if (!start.waitForFinished(40000)) {
            error_ = "slurm-loopback start did not finish within 40 s";
            started_ = true;  // stop whatever it left a pid file for
            return false;
        }
        const QString err = QString::fromUtf8(start.readAllStandardError()).trimmed();
        if (start.exitCode() == 3) {
            skipReason_ = "Slurm packages absent (" + err + "); scripts/test installs them";
            return false;
        }
        started_ = true;
        if (start.exitCode() != 0) {
            error_ = "slurm-loopback start failed: " + err;
            return false;
        }
        slurmConf_ = QString::fromUtf8(start.readAllStandardOutput()).trimmed().section('=', 1);
        return true;
    }
    void stop() {
        if (started_) QProcess::execute(script(), {"stop", dir_});
        started_ = false;
    }
    bool stopController() { return QProcess::execute(script(), {"stop-ctld", dir_}) == 0; }
    bool startController() { return QProcess::execute(script(), {"start-ctld", dir_}) == 0; }

    QString run(const QString& program, const QStringList& args) const { return runText(program, args, slurmConf_); }
    const QString& slurmConf() const { return slurmConf_; }
    const QString& skipReason() const { return skipReason_; }
    const QString& error() const { return error_; }

private:
    static QString script() { return QStringLiteral(WATCHFLOOR_SCRIPTS_DIR "/slurm-loopback"); }

    QString dir_;
    QString slurmConf_;
    QString skipReason_;
    QString error_;
    bool started_ = false;
};

}  // namespace slurm_test
