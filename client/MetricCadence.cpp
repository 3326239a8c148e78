#include "MetricCadence.h"

#include <algorithm>

namespace watchfloor::client {

using namespace watchfloor::v1;

MetricCadence metricCadence(Metric metric) {
    switch (metric) {
    // Counters, link state and the last-Xid gauge: sent on change only (bandwidth at 2.3 M links).
    case DCGM_FI_DEV_XID_ERRORS:
    case DCGM_FI_DEV_ECC_DBE_VOL_TOTAL:
    case DCGM_FI_DEV_ROW_REMAP_UNCORRECTABLE_TOTAL:
    case DCGM_FI_DEV_ROW_REMAP_FAILURE:
    case DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_TOTAL:
    case DCGM_FI_DEV_NVLINK_REPLAY_ERROR_TOTAL:
    case DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_TOTAL:
    case DCGM_FI_DEV_NVLINK_GET_STATE:
    case DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL:
    case DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL:
    case DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL:
    case DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO:
    case IB_SYMBOL_ERROR_COUNTER:
    case IB_LINK_ERROR_RECOVERY_COUNTER:
    case IB_LINK_DOWNED_COUNTER:
    case IB_PORT_RCV_ERRORS:
    case IB_FAR_SYMBOL_ERROR_COUNTER:
    case IB_FAR_LINK_ERROR_RECOVERY_COUNTER:
    case IB_FAR_LINK_DOWNED_COUNTER:
    case IB_FAR_PORT_RCV_ERRORS:
    case IB_PHY_STATE: return {MetricReporting::OnChange, std::chrono::milliseconds(0)};
    // Per-link throughput: each link once a minute, staggered.
    case DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK: return {MetricReporting::Periodic, std::chrono::seconds(60)};
    // CPUs and NIC-port rates: every 10 s, staggered by tray.
    case DCGM_FI_DEV_CPU_UTIL_TOTAL:
    case DCGM_FI_DEV_CPU_TEMP_CELSIUS:
    case DCGM_FI_DEV_CPU_POWER_WATTS:
    case IB_PORT_XMIT_DISCARDS:
    case IB_PORT_XMIT_WAIT:
    case IB_PORT_XMIT_DATA_GBPS:
    case IB_PORT_RCV_DATA_GBPS:
    case IB_EFFECTIVE_BER:
    case IB_LINK_RATE_GBPS:
    case IB_MODULE_TEMPERATURE_C: return {MetricReporting::Periodic, std::chrono::seconds(10)};
    // fleetd's NVLink5 verdicts: at each of its link polls (15 s); never sent is no data, not 0.
    case NVLINK5_SYMBOL_BER_VERDICT:
    case NVLINK5_SYMBOL_BER_POINT:
    case NVLINK5_SYMBOL_BER_LOWER:
    case NVLINK5_SYMBOL_BER_UPPER:
    case NVLINK5_PLR_CODE_ERROR_RATIO:
    case NVLINK5_PLR_UNCORRECTABLE_RATIO: return {MetricReporting::Periodic, std::chrono::seconds(15)};
    default: return {MetricReporting::Periodic, std::chrono::seconds(1)};
    }
}

SourceCadence SourceCadence::of(const Snapshot& snapshot) {
    SourceCadence cadence{std::chrono::milliseconds(std::max<std::int64_t>(0, snapshot.telemetry_period_ms())),
                          snapshot.counters_periodic()};
    cadence.learnDeliveryLag({snapshot.sources().begin(), snapshot.sources().end()});
    return cadence;
}

void SourceCadence::learnDeliveryLag(const std::vector<SourceStatus>& sources) {
    std::int64_t lag = 0;
    for (const SourceStatus& source : sources) lag = std::max(lag, source.delivery_lag_ms());
    deliveryLag = std::chrono::milliseconds(lag);
}

MetricCadence metricCadence(Metric metric, const SourceCadence& source) {
    MetricCadence cadence = metricCadence(metric);
    if (cadence.reporting == MetricReporting::OnChange) {
        if (!source.countersPeriodic) return cadence;
        // Re-read with every poll: a counter nobody re-sent is as old as its last poll, not 0.
        cadence = MetricCadence{};
    }
    if (source.period.count() > 0) cadence.period = source.period;
    cadence.deliveryLag = source.deliveryLag;
    return cadence;
}

}  // namespace watchfloor::client
