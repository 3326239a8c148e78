#pragma once
// The NVLink5 link-health values a site's dcgm-exporter publishes once its CSV lists them
// (telemetry::dcgmNvlinkFields(), docs/domain/link-health.md "NVLink5: DCGM and dcgm-exporter"),
// derived from what the twin models per link (its CRC, replay and recovery totals and link state)
// [A]. Per link:
//   GET_STATE (1508)                   the twin's link state; never reported: 1 (up).
//   PLR_RCV_CODES (586)                codewords received: 400 Gb/s / 5,440-bit RS(544,514)
//                                      codewords while the link is up, integrated over simulated
//                                      time from the first read of the link.
//   PLR_RCV_CODE_ERR (587)             the link's CRC flit errors (1525): each one a codeword the
//                                      PHY saw in error.
//   PLR_RCV_UNCORRECTABLE_CODE (588)   the link's replays (1527): codewords PLR did not correct.
//   PHYSICAL_LINK_DOWN_COUNTER (585),
//   PPCNT_RECOVERY_TOTAL_SUCCESSFUL_EVENTS (583)  the link's recoveries (1528): every twin flap
//                                      goes down and comes back.
// Per GPU, summed over its links as DCGM's 12xx fields are:
//   COUNT_RX_SYMBOL_ERRORS (1214), COUNT_EFFECTIVE_ERRORS (1219)   the sum of 587;
//   COUNT_LINK_RECOVERY_EVENTS (1213)                              the sum of 583;
//   COUNT_LINK_RECOVERY_FAILED_EVENTS (1212)                       0: every twin flap recovers;
//   COUNT_SYMBOL_BER_FLOAT (1216)      the largest of its links' twin BER (the twin's burst alarm),
//                                      DCGM's 1.5e-254 ("zero") when none.
// COUNT_EFFECTIVE_BER_FLOAT (1218) and the successful-recovery total (1211) are not modelled: left
// out, as dcgm-exporter leaves out a blank. A GPU that does not answer (its temperature blank),
// or has no NVLinks in the topology, has none of them.

#include "ExporterFields.h"
#include "FleetStateStore.h"
#include "RateIntegrator.h"

#include <map>
#include <vector>

namespace watchfloor::server::exporters {

// RS(544,514) over 10-bit symbols [A]; 400 Gb/s per direction per NVLink5 link [A].
inline constexpr double kNvlink5CodewordBits = 5'440;
inline constexpr double kNvlink5LinkBitsPerSecond = 400e9;
// DCGM's decoded 1216 for a clean link: mantissa 15, exponent 255 (docs/domain/link-health.md).
inline constexpr double kDcgmBerZero = 1.5e-254;

struct NvlinkValues {
    std::map<watchfloor::v1::Metric, double> gpu;                 // per-GPU families
    std::vector<std::map<watchfloor::v1::Metric, double>> links;  // by link id
};

class NvlinkFieldValues {
public:
    explicit NvlinkFieldValues(const service::FleetStateStore& store) : store_(store) {}

    // `nowMs` is the store's newest sample time: where the codeword integrals stop.
    NvlinkValues read(const watchfloor::v1::Gpu& gpu, std::int64_t nowMs);
    // Whether the twin models the field (the first spelling of each metric in dcgmNvlinkFields()).
    static bool modelled(watchfloor::v1::Metric metric);

private:
    const service::FleetStateStore& store_;
    RateIntegrator codewords_;
};

}  // namespace watchfloor::server::exporters
