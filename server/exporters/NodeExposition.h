#pragma once
// One compute tray's node_exporter page (GET :9100/metrics), limited to the families fleetd
// reads: the infiniband collector for the tray's NIC ports (labels device, port) and
// node_hwmon_temp_celsius for its Grace CPUs (labels chip, sensor). Rendered like client_golang:
// families sorted by name, series by label values, floats in Go's shortest form, no timestamps.
//
// Where the values come from:
// - error counters (link_downed, link_error_recovery, symbol_error, port_errors_received,
//   port_discards_transmitted, port_transmit_wait): the twin's IB counters, 0 until first sent
//   (the twin sends them on change; it models no discards or congestion waits, so those stay 0);
// - physical_state_id: IB_PHY_STATE (5 LinkUp, 3 Disabled; a port never reported is up);
//   state_id: 4 (Active) while the physical link is up, else 1 (Down);
// - rate_bytes_per_second: the port's link_rate_gbps as bytes per second;
// - port_data_{transmitted,received}_bytes_total: the twin's Gb/s rates integrated over
//   simulated time, in whole multiples of 4 octets (the hardware counts 4-octet words);
// - node_hwmon_temp_celsius{chip="thermal_thermal_zone<c>",sensor="temp1"}: CPU c's
//   DCGM_FI_DEV_CPU_TEMP_CELSIUS at sysfs's millidegree resolution (one ACPI thermal zone per
//   Grace socket [A]); a CPU never reported has no series, as a sensor that fails to read.

#include "FleetStateStore.h"
#include "RateIntegrator.h"
#include "TrayDirectory.h"

#include <string>

namespace watchfloor::server::exporters {

inline constexpr std::string_view kHwmonTempHelp = "Hardware monitor for temperature (input)";

class NodeExposition {
public:
    explicit NodeExposition(const service::FleetStateStore& store) : store_(store) {}

    // Reads the store under its shared lock only. Advances the octet integrals to the store's
    // newest sample time.
    std::string render(const TrayHost& host);

    // The labels node_exporter gives a port: the inventory's device/port, else mlx5_<k> port 1.
    static std::string deviceOf(const watchfloor::v1::NicPort& port);
    static std::uint32_t portOf(const watchfloor::v1::NicPort& port);

private:
    const service::FleetStateStore& store_;
    RateIntegrator octets_;
};

}  // namespace watchfloor::server::exporters
