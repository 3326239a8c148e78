#pragma once
// The 25 default dcgm-exporter values of one GPU, in the exporter's units, from what the twin
// reports. Fields the twin models are read from the store (the newest value; NaN = blank).
// Fields it does not model are derived, deterministically, from what it does:
//
//   MEM_CLOCK                 GB200 HBM3e clock, 3996 MHz, while the GPU answers at all [A].
//   TOTAL_ENERGY_CONSUMPTION  board power integrated over simulated time, W x ms = mJ, from the
//                             first read of the GPU (a driver reload restarts a real counter too).
//   PCIE_REPLAY_COUNTER       0: the twin has no PCIe faults (its link faults are NVLink and IB).
//   MEM_COPY_UTIL             45 % of GPU_UTIL, rounded: large-model training keeps HBM busy for
//                             about half the time its SMs are busy [A].
//   ENC_UTIL, DEC_UTIL        0: training uses no video engines.
//   FB_TOTAL (not exported)   189,471 MiB, what a GB200 reports for its ~185 GiB of HBM3e.
//   FB_RESERVED               640 MiB held by the driver and firmware [A].
//   FB_USED                   92 % of (total - reserved) while GPU_UTIL >= 20 % (a training or
//                             checkpointing job holds its memory); 0 when idle or recovering
//                             (the job's processes are gone).
//   FB_FREE                   total - reserved - used.
//   VGPU_LICENSE_STATUS       0: bare metal, no vGPU licence.
//   CORRECTABLE_REMAPPED_ROWS 0: the twin models uncorrectable HBM errors only.
//   GR_ENGINE_ACTIVE          GPU_UTIL / 100 (the twin's utilisation is graphics-engine time) [A].
//   DRAM_ACTIVE               MEM_COPY_UTIL / 100 before rounding.
//   PCIE_TX_BYTES, _RX_BYTES  the paired rail NIC's transmit / receive rate in bytes/s: with
//                             GPUDirect RDMA the scale-out traffic of GPU k crosses PCIe to NIC k.
//
// Counters and gauges the twin sends on change (XID_ERRORS, the row-remap values) are 0 until
// first sent, as the watchfloor.v1 contract says. Every derived value is blank when the GPU's
// own readings are blank (a GPU that fell off the bus answers nothing), and a gauge never
// reported is blank.

#include "ExporterFields.h"
#include "FleetStateStore.h"
#include "RateIntegrator.h"

#include <optional>
#include <vector>

namespace watchfloor::server::exporters {

struct TrayHost;

inline constexpr double kGb200MemClockMhz = 3996;
inline constexpr double kGb200FbTotalMiB = 189'471;
inline constexpr double kFbReservedMiB = 640;
inline constexpr double kFbUsedWhenBusy = 0.92;
inline constexpr double kBusyUtilPct = 20;
inline constexpr double kMemCopyPerGpuUtil = 0.45;

class DcgmFieldValues {
public:
    explicit DcgmFieldValues(const service::FleetStateStore& store) : store_(store) {}

    // values[i] belongs to telemetry::dcgmDefaultFields()[i]; nothing = blank. `nowMs` is the
    // store's newest sample time: where the energy integral stops.
    std::vector<std::optional<double>> read(const TrayHost& host, const watchfloor::v1::Gpu& gpu, std::int64_t nowMs);

private:
    const service::FleetStateStore& store_;
    RateIntegrator energyMj_;
};

}  // namespace watchfloor::server::exporters
