#include "ExporterFields.h"

#include <algorithm>
#include <array>
#include <vector>

namespace watchfloor::server::telemetry {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::array<ExporterField, 25> kDcgmFields{{
    {"DCGM_FI_DEV_SM_CLOCK", PromType::Gauge, "SM clock frequency (in MHz).", v1::DCGM_FI_DEV_SM_CLOCK, 1.0},
    {"DCGM_FI_DEV_MEM_CLOCK", PromType::Gauge, "Memory clock frequency (in MHz).", v1::DCGM_FI_DEV_MEM_CLOCK, 1.0},
    {"DCGM_FI_DEV_MEMORY_TEMP", PromType::Gauge, "Memory temperature (in C).", v1::DCGM_FI_DEV_MEMORY_TEMP, 1.0},
    {"DCGM_FI_DEV_GPU_TEMP", PromType::Gauge, "GPU temperature (in C).", v1::DCGM_FI_DEV_GPU_TEMP, 1.0},
    {"DCGM_FI_DEV_POWER_USAGE", PromType::Gauge, "Power draw (in W).", v1::DCGM_FI_DEV_POWER_USAGE, 1.0},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", PromType::Counter, "Total energy consumption since boot (in mJ).",
     v1::DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, 1.0},
    {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", PromType::Counter, "Total number of PCIe retries.",
     v1::DCGM_FI_DEV_PCIE_REPLAY_COUNTER, 1.0},
    {"DCGM_FI_DEV_GPU_UTIL", PromType::Gauge, "GPU utilization (in %).", v1::DCGM_FI_DEV_GPU_UTIL, 1.0},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", PromType::Gauge, "Memory utilization (in %).", v1::DCGM_FI_DEV_MEM_COPY_UTIL, 1.0},
    {"DCGM_FI_DEV_ENC_UTIL", PromType::Gauge, "Encoder utilization (in %).", v1::DCGM_FI_DEV_ENC_UTIL, 1.0},
    {"DCGM_FI_DEV_DEC_UTIL", PromType::Gauge, "Decoder utilization (in %).", v1::DCGM_FI_DEV_DEC_UTIL, 1.0},
    {"DCGM_FI_DEV_XID_ERRORS", PromType::Gauge, "Value of the last XID error encountered.", v1::DCGM_FI_DEV_XID_ERRORS,
     1.0},
    {"DCGM_FI_DEV_FB_FREE", PromType::Gauge, "Framebuffer memory free (in MiB).", v1::DCGM_FI_DEV_FB_FREE, 1.0},
    {"DCGM_FI_DEV_FB_USED", PromType::Gauge, "Framebuffer memory used (in MiB).", v1::DCGM_FI_DEV_FB_USED, 1.0},
    {"DCGM_FI_DEV_FB_RESERVED", PromType::Gauge, "Framebuffer memory reserved (in MiB).", v1::DCGM_FI_DEV_FB_RESERVED,
     1.0},
    // Field 449 is an instantaneous rate in MB/s despite the exporter's "counter" type; the
    // proto carries GB/s.
    {"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", PromType::Counter,
     "Total number of NVLink bandwidth counters for all lanes.", v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL, 1e-3},
    {"DCGM_FI_DEV_VGPU_LICENSE_STATUS", PromType::Gauge, "vGPU License status", v1::DCGM_FI_DEV_VGPU_LICENSE_STATUS,
     1.0},
    {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", PromType::Counter, "Number of remapped rows for uncorrectable errors",
     v1::DCGM_FI_DEV_ROW_REMAP_UNCORRECTABLE_TOTAL, 1.0},
    {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", PromType::Counter, "Number of remapped rows for correctable errors",
     v1::DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS, 1.0},
    {"DCGM_FI_DEV_ROW_REMAP_FAILURE", PromType::Gauge, "Whether remapping of rows has failed",
     v1::DCGM_FI_DEV_ROW_REMAP_FAILURE, 1.0},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", PromType::Gauge, "Ratio of time the graphics engine is active.",
     v1::DCGM_FI_PROF_GR_ENGINE_ACTIVE, 1.0},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", PromType::Gauge, "Ratio of cycles the tensor (HMMA) pipe is active.",
     v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, 1.0},
    {"DCGM_FI_PROF_DRAM_ACTIVE", PromType::Gauge,
     "Ratio of cycles the device memory interface is active sending or receiving data.", v1::DCGM_FI_PROF_DRAM_ACTIVE,
     1.0},
    {"DCGM_FI_PROF_PCIE_TX_BYTES", PromType::Gauge,
     "The rate of data transmitted over the PCIe bus - including both protocol headers and data payloads - in "
     "bytes per second.",
     v1::DCGM_FI_PROF_PCIE_TX_BYTES, 1.0},
    {"DCGM_FI_PROF_PCIE_RX_BYTES", PromType::Gauge,
     "The rate of data received over the PCIe bus - including both protocol headers and data payloads - in bytes "
     "per second.",
     v1::DCGM_FI_PROF_PCIE_RX_BYTES, 1.0},
}};

struct NvlinkLine {
    std::string_view csvName, dcgm46Name;  // the documented CSV's (older) name; DCGM 4.6's, "" when the same
    PromType type;
    std::string_view help;
    v1::Metric metric;
    bool perLink;
};

// HELP texts: the CSV lines docs/domain/link-health.md gives a site.
constexpr std::array<NvlinkLine, 13> kNvlinkLines{{
    {"DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS", "DCGM_FI_DEV_NVLINK_RECOVERY_SUCCESSFUL_TOTAL",
     PromType::Counter, "NVLink5 successful link recoveries, all links.",
     v1::DCGM_FI_DEV_NVLINK_RECOVERY_SUCCESSFUL_TOTAL, false},
    {"DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS", "DCGM_FI_DEV_NVLINK_RECOVERY_FAILED_TOTAL",
     PromType::Counter, "NVLink5 failed recoveries (link declared down), all links.",
     v1::DCGM_FI_DEV_NVLINK_RECOVERY_FAILED_TOTAL, false},
    {"DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS", "DCGM_FI_DEV_NVLINK_RECOVERY_EVENT_TOTAL", PromType::Counter,
     "NVLink5 link recoveries, all links.", v1::DCGM_FI_DEV_NVLINK_RECOVERY_EVENT_TOTAL, false},
    {"DCGM_FI_DEV_NVLINK_COUNT_RX_SYMBOL_ERRORS", "DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL", PromType::Counter,
     "NVLink5 symbol errors (not corrected by FEC), all links.", v1::DCGM_FI_DEV_NVLINK_RX_SYMBOL_ERROR_TOTAL, false},
    {"DCGM_FI_DEV_NVLINK_COUNT_SYMBOL_BER_FLOAT", "DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO", PromType::Gauge,
     "NVLink5 symbol BER, all links.", v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO, false},
    {"DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER_FLOAT", "DCGM_FI_DEV_NVLINK_EFFECTIVE_BER_RATIO", PromType::Gauge,
     "NVLink5 effective BER, all links.", v1::DCGM_FI_DEV_NVLINK_EFFECTIVE_BER_RATIO, false},
    {"DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS", "DCGM_FI_DEV_NVLINK_EFFECTIVE_ERROR_TOTAL", PromType::Counter,
     "NVLink5 effective errors, all links.", v1::DCGM_FI_DEV_NVLINK_EFFECTIVE_ERROR_TOTAL, false},
    {"DCGM_FI_DEV_NVLINK_PPCNT_RECOVERY_TOTAL_SUCCESSFUL_EVENTS", "DCGM_FI_DEV_NVLINK_PPCNT_RECOVERY_SUCCESSFUL_TOTAL",
     PromType::Counter, "Successful link recoveries.", v1::DCGM_FI_DEV_NVLINK_PPCNT_RECOVERY_SUCCESSFUL_TOTAL, true},
    {"DCGM_FI_DEV_NVLINK_PPCNT_PHYSICAL_LINK_DOWN_COUNTER", "DCGM_FI_DEV_NVLINK_PPCNT_PHYSICAL_LINK_DOWN_TOTAL",
     PromType::Counter, "Physical link downs.", v1::DCGM_FI_DEV_NVLINK_PPCNT_PHYSICAL_LINK_DOWN_TOTAL, true},
    {"DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODES", "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_TOTAL", PromType::Counter,
     "PLR received codewords.", v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_TOTAL, true},
    {"DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_CODE_ERR", "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_ERROR_TOTAL", PromType::Counter,
     "PLR received codewords in error.", v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_ERROR_TOTAL, true},
    {"DCGM_FI_DEV_NVLINK_PPCNT_PLR_RCV_UNCORRECTABLE_CODE", "DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_UNCORRECTABLE_TOTAL",
     PromType::Counter, "PLR received uncorrectable codewords.",
     v1::DCGM_FI_DEV_NVLINK_PPCNT_PLR_RX_CODE_UNCORRECTABLE_TOTAL, true},
    {"DCGM_FI_DEV_NVLINK_GET_STATE", "", PromType::Gauge, "NVLink state (0 down, 1 up).",
     v1::DCGM_FI_DEV_NVLINK_GET_STATE, true},
}};

// node_exporter's infiniband collector (HELP texts as it writes them). Counters the proto keeps
// map 1:1; state_id/physical_state_id become IB_PHY_STATE; the data octet counters become rates.
constexpr std::array<NodeFamily, 11> kIbFamilies{{
    {"node_infiniband_link_downed_total", PromType::Counter,
     "Number of times the link failed to recover from an error state and went down", v1::IB_LINK_DOWNED_COUNTER, 1.0},
    {"node_infiniband_link_error_recovery_total", PromType::Counter,
     "Number of times the link successfully recovered from an error state", v1::IB_LINK_ERROR_RECOVERY_COUNTER, 1.0},
    {"node_infiniband_symbol_error_total", PromType::Counter,
     "Number of minor link errors detected on one or more physical lanes.", v1::IB_SYMBOL_ERROR_COUNTER, 1.0},
    {"node_infiniband_port_errors_received_total", PromType::Counter,
     "Number of packets containing an error that were received on this port", v1::IB_PORT_RCV_ERRORS, 1.0},
    {"node_infiniband_port_discards_transmitted_total", PromType::Counter,
     "Number of outbound packets discarded by the port because the port is down or congested",
     v1::IB_PORT_XMIT_DISCARDS, 1.0},
    {"node_infiniband_port_transmit_wait_total", PromType::Counter,
     "Number of ticks during which the port had data to transmit but no data was sent during the entire tick",
     v1::IB_PORT_XMIT_WAIT, 1.0},
    {"node_infiniband_physical_state_id", PromType::Gauge,
     "Physical state of the InfiniBand port (0: no change, 1: sleep, 2: polling, 3: disable, 4: shift, 5: link up, "
     "6: link error recover, 7: phytest)",
     v1::IB_PHY_STATE, 1.0},
    {"node_infiniband_state_id", PromType::Gauge,
     "State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed, 4: active, 5: act defer)",
     v1::METRIC_UNSPECIFIED, 1.0},
    // The kernel's "400 Gb/sec (4X NDR)" x 125,000,000: a port trained down reads what it runs at.
    {"node_infiniband_rate_bytes_per_second", PromType::Gauge, "Maximum signal transfer rate", v1::IB_LINK_RATE_GBPS,
     8e-9},
    {"node_infiniband_port_data_transmitted_bytes_total", PromType::Counter,
     "Number of data octets transmitted on all links", v1::IB_PORT_XMIT_DATA_GBPS, 8e-9},
    {"node_infiniband_port_data_received_bytes_total", PromType::Counter, "Number of data octets received on all links",
     v1::IB_PORT_RCV_DATA_GBPS, 8e-9},
}};

template <typename Table>
auto findByName(const Table& table, std::string_view name) -> decltype(&table[0]) {
    const auto it = std::find_if(table.begin(), table.end(), [&](const auto& f) { return f.name == name; });
    return it == table.end() ? nullptr : &*it;
}

}  // namespace

std::span<const ExporterField> dcgmDefaultFields() { return kDcgmFields; }
const ExporterField* findDcgmField(std::string_view name) { return findByName(kDcgmFields, name); }
std::span<const ExporterField> dcgmNvlinkFields() {
    static const std::vector<ExporterField> fields = [] {
        std::vector<ExporterField> out;
        for (const NvlinkLine& line : kNvlinkLines)
            for (const std::string_view name : {line.csvName, line.dcgm46Name})
                if (!name.empty()) out.push_back({name, line.type, line.help, line.metric, 1.0, line.perLink});
        return out;
    }();
    return fields;
}
std::span<const NodeFamily> nodeInfinibandFamilies() { return kIbFamilies; }
const NodeFamily* findNodeFamily(std::string_view name) { return findByName(kIbFamilies, name); }

}  // namespace watchfloor::server::telemetry
