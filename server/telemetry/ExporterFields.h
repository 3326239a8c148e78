#pragma once
// The metric families real GPU sites export, and how each maps onto watchfloor.v1.Metric:
// dcgm-exporter's default field set (etc/default-counters.csv, 24 numeric fields + the driver
// version label) and the node_exporter families fleetd reads (InfiniBand port counters, hwmon
// temperatures). One table serves both directions: the twin's exporters write exactly these
// names, types, HELP texts and units; the Prometheus and scrape sources read them back.
// Sources and units: docs/real-telemetry.md.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace watchfloor::server::telemetry {

enum class PromType { Gauge, Counter };

struct ExporterField {
    std::string_view name;  // exposition metric name, e.g. "DCGM_FI_DEV_GPU_TEMP"
    PromType type;
    std::string_view help;          // HELP text as the exporter writes it
    watchfloor::v1::Metric metric;  // where the value lands in fleetd
    double toProto;                 // proto value = exporter value x toProto
    // A link-entity series (nvlink="<i>" beside the GPU's labels): lands on that NVLINK entity.
    bool perLink = false;
};

// dcgm-exporter's 25 numeric default fields, in default-counters.csv order. Labels on every
// series: gpu, UUID, pci_bus_id, device, modelName, Hostname (renamed hostname in exporter 4.8:
// read both), DCGM_FI_DRIVER_VERSION; the XID gauge adds err_code and err_msg.
std::span<const ExporterField> dcgmDefaultFields();
const ExporterField* findDcgmField(std::string_view name);

// The NVLink5 link-health fields a site adds to the CSV it gives dcgm-exporter (-f), each under
// both the names DCGM 4.6 gives them and the older ones go-dcgm still pins (a store keeps whatever
// the site's CSV said; docs/domain/link-health.md "NVLink5: DCGM and dcgm-exporter"): per GPU,
// summed over its links (1211-1219), and per link (583-588, 1508 link state). A link series is
// rendered NAME{nvlink,gpu,gpu_uuid,pci_bus_id,device,model_name,hostname}. The first entry of
// each metric is the spelling of the documented CSV (the older one, which the exporters sites run
// know), which the twin's exporter writes; the second the DCGM 4.6 name.
std::span<const ExporterField> dcgmNvlinkFields();

// DCGM writes this in place of a value it does not have (DCGM_INT64_BLANK and the rest of the
// family, NOT_FOUND/NOT_SUPPORTED/NOT_PERMISSIONED = BLANK + 1..3, sit at and just above these;
// docs/domain/dcgm-fields.md): a value at or above the threshold is "blank", never a reading.
// Float fields use 140737488355328 (DCGM_FP64_BLANK) and up.
inline constexpr double kDcgmInt64BlankThreshold = 9223372036854775792.0;  // DCGM_INT64_BLANK
inline constexpr double kDcgmFp64BlankThreshold = 140737488355328.0;       // DCGM_FP64_BLANK
inline bool isDcgmBlank(double value) { return value >= kDcgmFp64BlankThreshold; }
// The value DCGM writes for a blank int64 field (DCGM_INT64_BLANK).
inline constexpr std::int64_t kDcgmInt64Blank = 0x7ffffffffffffff0LL;

// node_exporter's infiniband collector (labels device, port) and hwmon (labels chip, sensor).
struct NodeFamily {
    std::string_view name;  // e.g. "node_infiniband_link_downed_total"
    PromType type;
    std::string_view help;
    watchfloor::v1::Metric metric;  // METRIC_UNSPECIFIED: read for a derived value only
    double toProto;
};
std::span<const NodeFamily> nodeInfinibandFamilies();
const NodeFamily* findNodeFamily(std::string_view name);
inline constexpr std::string_view kHwmonTempFamily = "node_hwmon_temp_celsius";
// node_infiniband_port_data_*_bytes_total: octets counted; fleetd derives Gb/s from two polls.
inline constexpr std::string_view kIbTxBytesFamily = "node_infiniband_port_data_transmitted_bytes_total";
inline constexpr std::string_view kIbRxBytesFamily = "node_infiniband_port_data_received_bytes_total";

// IB PortInfo states as node_exporter reports them, and the proto's IB_PHY_STATE values.
inline constexpr int kIbPhysicalStateLinkUp = 5;    // physical_state_id 5 = LinkUp
inline constexpr int kIbPhysicalStateDisabled = 3;  // 3 = Disabled

}  // namespace watchfloor::server::telemetry
