// What the server-side benchmarks read of their own process (no Qt: these benchmarks link
// fleetd's libraries only).
#pragma once

#include <cstdio>

#include <unistd.h>

namespace watchfloor::bench {

// Resident set size of this process, from /proc/self/statm.
inline double rssMiB() {
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

}  // namespace watchfloor::bench
