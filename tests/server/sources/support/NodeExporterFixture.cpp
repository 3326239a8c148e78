#include "NodeExporterFixture.h"

#include "FleetdProcess.h"  // freeLoopbackPort

#include <httplib.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QStandardPaths>

#include <sys/prctl.h>
#include <unistd.h>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <map>

namespace watchfloor::testing {

namespace {

constexpr int kBindAttempts = 5;
constexpr int kReadyTimeoutMs = 15'000;
constexpr int kStopTimeoutMs = 5'000;

QString binary() {
    const QString fromEnv = qEnvironmentVariable("NODE_EXPORTER_BIN");
    return fromEnv.isEmpty() ? QStandardPaths::findExecutable(QStringLiteral("prometheus-node-exporter")) : fromEnv;
}

// The kernel's rate_show(): the number, then lane count and per-lane speed, which node_exporter
// ignores but a reader of the tree expects.
QByteArray rateText(double gbps) {
    static const std::map<double, const char*> speeds{{2.5, ""},    {5, " DDR"},  {10, " QDR"},  {14, " FDR"},
                                                      {25, " EDR"}, {50, " HDR"}, {100, " NDR"}, {200, " XDR"}};
    QByteArray lanes = " (4X)";
    for (const int width : {4, 1, 2, 8, 12}) {
        const auto speed = speeds.find(gbps / width);
        if (speed != speeds.end()) {
            lanes = " (" + QByteArray::number(width) + 'X' + speed->second + ')';
            break;
        }
    }
    return QByteArray::number(gbps, 'g', 12) + " Gb/sec" + lanes + '\n';
}

QByteArray line(std::uint64_t value) { return QByteArray::number(static_cast<qulonglong>(value)) + '\n'; }

bool writeFile(const QString& path, const QByteArray& content, QString& error) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(content) != content.size()) {
        error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool makeDir(const QString& path, QString& error) {
    if (QDir().mkpath(path)) return true;
    error = QStringLiteral("cannot create %1").arg(path);
    return false;
}

}  // namespace

NodeExporterFixture::NodeExporterFixture(std::vector<IbPortCounters> ports, std::vector<HwmonSensor> sensors) {
    if (!dir_.isValid()) {
        error_ = QStringLiteral("cannot create a temporary folder: %1").arg(dir_.errorString());
        return;
    }
    if (writeTree(ports, sensors)) start();
}

NodeExporterFixture::~NodeExporterFixture() { stop(); }

QString NodeExporterFixture::target() const { return QStringLiteral("127.0.0.1:%1").arg(port_); }

void NodeExporterFixture::update(const std::vector<IbPortCounters>& ports, const std::vector<HwmonSensor>& sensors) {
    writeTree(ports, sensors);
}

// Each call writes a whole new generation of the tree and then swings the `sys` symlink the
// exporter was given onto it: rename() replaces the link atomically, so a concurrent scrape sees
// either tree complete. The previous generation stays until the next update for a scrape still in it.
bool NodeExporterFixture::writeTree(const std::vector<IbPortCounters>& ports, const std::vector<HwmonSensor>& sensors) {
    const QString name = QStringLiteral("gen-%1").arg(++generation_);
    const QString root = dir_.filePath(name);

    // The exporter needs the folder it is given to exist even when it holds nothing to report.
    if (!makeDir(root + QStringLiteral("/class"), error_)) return false;

    std::map<std::string, int> devices;  // device → its index, for a distinct node_guid
    for (const auto& p : ports) {
        const QString device = root + QStringLiteral("/class/infiniband/") + QString::fromStdString(p.device);
        if (devices.emplace(p.device, static_cast<int>(devices.size())).second) {
            const QByteArray guid =
                "a088:c203:00" + QByteArray::number(devices[p.device], 16).rightJustified(2, '0') + ":9f40\n";
            // procfs fails the whole collector when fw_ver (and, in 1.5.0's, board_id) is
            // missing; hca_type and node_guid are optional but mlx5 has them.
            if (!makeDir(device, error_) || !writeFile(device + QStringLiteral("/fw_ver"), "28.39.1002\n", error_) ||
                !writeFile(device + QStringLiteral("/board_id"), "MT_0000000838\n", error_) ||
                !writeFile(device + QStringLiteral("/hca_type"), "MT4129\n", error_) ||
                !writeFile(device + QStringLiteral("/node_guid"), guid, error_))
                return false;
        }
        const QString port = device + QStringLiteral("/ports/") + QString::number(p.port);
        const QString counters = port + QStringLiteral("/counters");
        // The kernel counts port_*_data in 4-octet words; procfs multiplies them back.
        const std::pair<const char*, QByteArray> files[] = {
            {"state", p.active ? "4: ACTIVE\n" : "1: DOWN\n"},
            {"phys_state", p.active ? "5: LinkUp\n" : "3: Disabled\n"},
            {"rate", rateText(p.rateGbps)},
            {"link_layer", "InfiniBand\n"},  // required by newer procfs
            {"counters/link_downed", line(p.linkDowned)},
            {"counters/symbol_error", line(p.symbolErrors)},
            {"counters/link_error_recovery", line(p.linkErrorRecovery)},
            {"counters/port_rcv_errors", line(p.rcvErrors)},
            {"counters/port_xmit_discards", line(p.xmitDiscards)},
            {"counters/port_xmit_wait", line(p.xmitWait)},
            {"counters/port_xmit_data", line(p.xmitDataOctets / 4)},
            {"counters/port_rcv_data", line(p.rcvDataOctets / 4)},
        };
        if (!makeDir(counters, error_)) return false;
        for (const auto& [file, content] : files)
            if (!writeFile(port + '/' + QLatin1String(file), content, error_)) return false;
    }

    for (const auto& s : sensors) {
        const QString chip = root + QStringLiteral("/class/hwmon/") + QString::fromStdString(s.chip);
        const auto millidegrees = static_cast<long long>(std::llround(s.celsius * 1000));
        if (!makeDir(chip, error_) ||
            !writeFile(chip + QStringLiteral("/name"), QByteArray::fromStdString(s.name) + '\n', error_) ||
            !writeFile(chip + QStringLiteral("/temp%1_input").arg(s.index), QByteArray::number(millidegrees) + '\n',
                       error_))
            return false;
    }

    const QByteArray next = QFile::encodeName(dir_.filePath(QStringLiteral("sys.next")));
    const QByteArray link = QFile::encodeName(dir_.filePath(QStringLiteral("sys")));
    ::unlink(next.constData());
    if (::symlink(QFile::encodeName(name).constData(), next.constData()) != 0 ||
        ::rename(next.constData(), link.constData()) != 0) {
        error_ = QStringLiteral("cannot point %1 at %2: %3")
                     .arg(QFile::decodeName(link), name, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    if (generation_ > 2) QDir(dir_.filePath(QStringLiteral("gen-%1").arg(generation_ - 2))).removeRecursively();
    return true;
}

bool NodeExporterFixture::start() {
    const QString program = binary();
    if (program.isEmpty()) {
        error_ = QStringLiteral(
            "prometheus-node-exporter not found in PATH (install the Debian package or set NODE_EXPORTER_BIN)");
        return false;
    }
    const pid_t parent = ::getpid();
    // Runs in the child between fork and exec: a test killed by CTest's timeout or a crash takes
    // its exporter with it instead of leaving it serving on a port.
    process_.setChildProcessModifier([parent] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);  // the test died before prctl took effect
    });
    process_.setProcessChannelMode(QProcess::MergedChannels);
    // A file rather than a pipe: nobody drains a pipe between scrapes, and a full one would block
    // the exporter's logging and with it the scrape.
    process_.setStandardOutputFile(dir_.filePath(QStringLiteral("node_exporter.log")), QIODevice::Append);

    for (int attempt = 1; attempt <= kBindAttempts; ++attempt) {
        port_ = freeLoopbackPort();
        const qsizetype logBefore = log().size();
        process_.start(program, {QStringLiteral("--path.sysfs=%1").arg(dir_.filePath(QStringLiteral("sys"))),
                                 QStringLiteral("--collector.disable-defaults"),
                                 QStringLiteral("--collector.infiniband"), QStringLiteral("--collector.hwmon"),
                                 QStringLiteral("--collector.time"), QStringLiteral("--web.disable-exporter-metrics"),
                                 QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port_)});
        if (!process_.waitForStarted(kStopTimeoutMs)) {
            error_ = QStringLiteral("cannot start %1: %2").arg(program, process_.errorString());
            return false;
        }
        QElapsedTimer timer;
        timer.start();
        bool exited = false;
        while (!exited && timer.elapsed() < kReadyTimeoutMs) {
            if (!scrape().isEmpty()) return true;
            // Also the pause between tries: without an event loop, only waitFor* notices an exit.
            exited = process_.waitForFinished(50);
        }
        if (!exited) {
            stop();
            error_ = QStringLiteral("node_exporter did not answer /metrics on port %1 within %2 ms; its output:\n%3")
                         .arg(port_)
                         .arg(kReadyTimeoutMs)
                         .arg(QString::fromUtf8(log()));
            return false;
        }
        // Another process took the port between freeLoopbackPort() and the exporter's bind.
        if (log().mid(logBefore).contains("address already in use") && attempt < kBindAttempts) continue;
        error_ = QStringLiteral("node_exporter exited (code %1); its output:\n%2")
                     .arg(process_.exitCode())
                     .arg(QString::fromUtf8(log()));
        return false;
    }
    return false;
}

void NodeExporterFixture::stop() {
    if (process_.state() == QProcess::NotRunning) return;
    process_.terminate();
    if (!process_.waitForFinished(kStopTimeoutMs)) {
        process_.kill();
        process_.waitForFinished(kStopTimeoutMs);
    }
}

QByteArray NodeExporterFixture::scrape() const {
    if (port_ == 0) return {};
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(2);
    client.set_read_timeout(10);
    const auto result = client.Get("/metrics");
    if (!result || result->status != 200) return {};
    return QByteArray::fromStdString(result->body);
}

QByteArray NodeExporterFixture::log() const {
    QFile file(dir_.filePath(QStringLiteral("node_exporter.log")));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace watchfloor::testing
