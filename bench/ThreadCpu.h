#pragma once
// What the fleetd-side benchmarks measure a per-poll or per-tick step by: this thread's CPU time
// (a loaded machine's preemption shows in wall time, not here) and a nearest-rank percentile.

#include <algorithm>
#include <ctime>
#include <vector>

namespace watchfloor::bench {

inline double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

// p in [0, 1]; 0 for an empty sample.
inline double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    return values[std::min(values.size() - 1, static_cast<std::size_t>(p * double(values.size())))];
}

}  // namespace watchfloor::bench
