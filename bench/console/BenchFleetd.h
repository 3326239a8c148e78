#pragma once
// The real fleetd for the console benchmarks: a child process on a free loopback port; for
// console_e2e_bench, fed a generated scenario of rack isolations at known simulated offsets.

#include <QProcess>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>
#include <vector>

namespace watchfloor::bench {

// One scripted fault that turns a rack's Health tile to "Isolated".
struct ScheduledFault {
    QString rack;                    // e.g. "r0042"
    std::chrono::seconds offset{0};  // simulated time after fleetd's start
    QString verb;                    // "leak" or "isolate"
};

struct FaultPlan {
    std::chrono::seconds first{20};  // after the console's start-up (snapshot, first frame)
    std::chrono::milliseconds every{1500};
    std::chrono::seconds last{57};
};

// Rack names as the twin generates them: "r" + ordinal, zero-padded to the rack count (≥ 2 digits).
QString twinRackName(int ordinal, int rackCount);

// Faults spread over the fleet (distinct racks), alternating leaks and manual isolations.
std::vector<ScheduledFault> planFaults(const FaultPlan& plan, int rackCount);

// Writes the scenario; returns an error an operator can act on, or empty on success.
QString writeScenario(const QString& path, const std::vector<ScheduledFault>& faults);

class FleetdProcess {
public:
    ~FleetdProcess();

    // What its echoed stderr lines start with (default "fleetd"), when a bench runs several.
    void setLabel(const QString& label) { m_label = label.toUtf8(); }

    // Starts fleetd listening on 127.0.0.1:0 and waits until it prints its port (start-up
    // builds the twin and runs its first tick, so this can take a while at 1,800 racks).
    // Returns an error or empty.
    QString start(const QString& program, const QStringList& arguments, std::chrono::seconds timeout);
    int port() const { return m_port; }
    std::chrono::milliseconds startupTime() const { return m_startup; }
    // SIGTERM, then SIGKILL after a grace period.
    void stop();

private:
    void echoStderr();

    QProcess m_process;
    QByteArray m_pending;
    QByteArray m_label = "fleetd";
    int m_port = 0;
    std::chrono::milliseconds m_startup{0};
};

}  // namespace watchfloor::bench
