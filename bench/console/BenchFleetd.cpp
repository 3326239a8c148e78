#include "BenchFleetd.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTextStream>

#include <cstdio>

namespace watchfloor::bench {

QString twinRackName(int ordinal, int rackCount) {
    const int width = std::max(2, int(QString::number(rackCount).size()));
    return QStringLiteral("r%1").arg(ordinal, width, 10, QLatin1Char('0'));
}

std::vector<ScheduledFault> planFaults(const FaultPlan& plan, int rackCount) {
    std::vector<ScheduledFault> faults;
    const auto span = std::chrono::duration_cast<std::chrono::milliseconds>(plan.last - plan.first);
    const int count = std::min(rackCount, int(span / plan.every) + 1);
    if (count <= 0 || span.count() < 0) return faults;
    // Evenly strided over the fleet: distinct racks in every region, hall and row.
    const int stride = std::max(1, rackCount / count);
    for (int i = 0; i < count; ++i) {
        const int ordinal = 1 + (i * stride + stride / 2) % rackCount;
        const auto offset = std::chrono::duration_cast<std::chrono::seconds>(plan.first + i * plan.every);
        faults.push_back({twinRackName(ordinal, rackCount), offset,
                          i % 2 == 0 ? QStringLiteral("leak") : QStringLiteral("isolate")});
    }
    return faults;
}

QString writeScenario(const QString& path, const std::vector<ScheduledFault>& faults) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return QStringLiteral("cannot write the scenario %1: %2").arg(path, file.errorString());
    QTextStream out(&file);
    out << "# console_e2e_bench: rack isolations at known offsets (each turns a Health tile to Isolated)\n";
    for (const ScheduledFault& f : faults)
        out << "at " << f.offset.count() << "s " << f.verb << " rack=" << f.rack << "\n";
    out.flush();
    return file.error() == QFile::NoError ? QString()
                                          : QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
}

FleetdProcess::~FleetdProcess() { stop(); }

QString FleetdProcess::start(const QString& program, const QStringList& arguments, std::chrono::seconds timeout) {
    QElapsedTimer clock;
    clock.start();
    m_process.setProgram(program);
    m_process.setArguments(arguments);
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    m_process.setStandardOutputFile(QProcess::nullDevice());
    m_process.start();
    if (!m_process.waitForStarted(10000))
        return QStringLiteral("cannot start fleetd (%1): %2. Set FLEETD_BIN or pass --fleetd PATH.")
            .arg(program, m_process.errorString());
    while (m_port == 0 && clock.elapsed() < std::chrono::milliseconds(timeout).count()) {
        if (m_process.state() != QProcess::Running)
            return QStringLiteral("fleetd exited during start-up (exit code %1); see its messages above")
                .arg(m_process.exitCode());
        m_process.waitForReadyRead(200);
        m_pending += m_process.readAllStandardError();
        echoStderr();
    }
    if (m_port == 0) return QStringLiteral("fleetd did not report a listening port within %1 s").arg(timeout.count());
    m_startup = std::chrono::milliseconds(clock.elapsed());
    QObject::connect(&m_process, &QProcess::readyReadStandardError, [this] {
        m_pending += m_process.readAllStandardError();
        echoStderr();
    });
    return {};
}

void FleetdProcess::echoStderr() {
    static const QRegularExpression listening(QStringLiteral("listening on [^ ]*:(\\d+)"));
    for (qsizetype end = m_pending.indexOf('\n'); end >= 0; end = m_pending.indexOf('\n')) {
        const QByteArray line = m_pending.left(end);
        if (m_port == 0) {
            const QRegularExpressionMatch match = listening.match(QString::fromUtf8(line));
            if (match.hasMatch()) m_port = match.captured(1).toInt();
        }
        std::fprintf(stderr, "  [%s] %s\n", m_label.constData(), line.constData());
        m_pending.remove(0, end + 1);
    }
}

void FleetdProcess::stop() {
    if (m_process.state() == QProcess::NotRunning) return;
    m_process.disconnect();
    m_process.terminate();
    if (!m_process.waitForFinished(5000)) {
        m_process.kill();
        m_process.waitForFinished(2000);
    }
}

}  // namespace watchfloor::bench
