#pragma once
// Small measures the console benchmarks share: this process's RSS, the machine's load, percentiles.

#include <QFile>
#include <QString>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

namespace watchfloor::bench {

inline double residentMiB() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// The 1, 5 and 15 minute load averages, as /proc/loadavg has them.
inline QString loadAverage() {
    QFile file(QStringLiteral("/proc/loadavg"));
    if (!file.open(QIODevice::ReadOnly)) return QStringLiteral("unknown");
    return QString::fromLatin1(file.readLine()).section(QLatin1Char(' '), 0, 2);
}

template <class Duration>
double millis(Duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

// Nearest-rank percentile of an unsorted sample (copied; the inputs are small).
inline double percentile(std::vector<double> values, double p) {
    if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(values.begin(), values.end());
    const std::size_t rank = std::size_t(std::ceil(p / 100.0 * double(values.size())));
    return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace watchfloor::bench
