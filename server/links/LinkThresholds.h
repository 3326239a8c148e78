#pragma once
// The lines a link is judged against and the window a verdict needs (docs/domain/link-health.md
// sections 2, 3 and 6). One place, so that the estimator, the forecaster and the benchmark agree.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace watchfloor::server {

// NVIDIA's field BER thresholds (PDR plugin, Field_BER_Thresholds.csv V05) for 7 nm NDR with
// RS-FEC + PLR, symbol BER; the same lines are taken for NVLink5 [A].
struct SymbolBerLines {
    double error = 1e-14;
    double warning = 5e-15;
    double normal = 1e-15;
};

// PDR's MAX_PDR: (receive errors + EBP-marked packets) / packets received.
inline constexpr double kPacketErrorLine = 1e-12;

// A link is called Normal only after a window carrying the bits in which BER `normal` expects
// three errors: 3 / 1e-15 = 3e15 bits, 125 min at 400 Gb/s, 250 min at 200 Gb/s.
inline constexpr double kJudgingWindowBits = 3.0 / 1e-15;

// IBTA PortCounters widths as Linux exports them (sysfs.c): the error counters saturate there.
inline constexpr std::uint64_t kSymbolErrorMax = 65'535;
inline constexpr std::uint64_t kReceiveErrorMax = 65'535;
inline constexpr std::uint64_t kRemotePhysicalErrorMax = 65'535;
inline constexpr std::uint64_t kLinkDownedMax = 255;
inline constexpr std::uint64_t kLinkErrorRecoveryMax = 255;

// The UFM PDR plugin's isolation budget, "max(10, 0.5 % of fabric)", with the 0.5 % computed
// from the fleet's links (the plugin's own code uses the bare 10).
inline std::size_t isolationBudget(std::size_t links) { return std::max<std::size_t>(10, links / 200); }

}  // namespace watchfloor::server
