#pragma once
// One compute tray's dcgm-exporter page (GET :9400/metrics): the default field set for the
// tray's GPUs, as dcgm-exporter 3.x/4.x renders it, plus the NVLink5 link-health lines a site adds
// to its CSV (docs/domain/link-health.md; values from NvlinkFieldValues): per-GPU series with the
// GPU labels below, per-link series as NAME{nvlink,gpu,gpu_uuid,pci_bus_id,device,model_name,
// hostname} (render_metrics.go's link-entity labels).
//
// - Families come in ascending DCGM field id order (the exporter ranges over a Go map keyed by
//   its Counter struct, whose first member is the field id; Go templates visit map keys
//   sorted), each with "# HELP" and "# TYPE", GPUs in id order, no timestamps.
// - Labels, in this order: gpu, UUID, pci_bus_id, device ("nvidia<gpu>"), modelName, Hostname,
//   then DCGM_FI_DRIVER_VERSION (the default set's one label field); the XID gauge adds err_code
//   and err_msg (the exporter's own text for the code).
//   dcgm-exporter's newest commit (after 4.5.3-4.8.2) renamed Hostname to hostname; every
//   released 3.x and 4.x exporter writes Hostname, so the twin does too.
// - Values: DCGM int64 fields with Go's %d, the four DCGM_FT_DOUBLE fields (POWER_USAGE and the
//   GR_ENGINE/TENSOR/DRAM activity ratios) with %f.
// - Blanks: dcgm-exporter drops a value equal to a DCGM blank sentinel (and a family left
//   without values), which is the default here. BlankValues::Sentinel writes the sentinel
//   instead (DCGM_INT64_BLANK / DCGM_FP64_BLANK), as other DCGM readers pass it on, so a
//   consumer's blank handling can be exercised.

#include "DcgmFieldValues.h"
#include "FleetStateStore.h"
#include "NvlinkFieldValues.h"
#include "TrayDirectory.h"

#include <string>
#include <vector>

namespace watchfloor::server::exporters {

enum class BlankValues { Omit, Sentinel };

struct DcgmPageOptions {
    std::string driverVersion = "570.133.20";  // a GB200 production branch [A]
    BlankValues blanks = BlankValues::Omit;
};

class DcgmExposition {
public:
    DcgmExposition(const service::FleetStateStore& store, DcgmPageOptions options = {});

    // Reads the store under its shared lock only. Advances the energy integrals to the store's
    // newest sample time.
    std::string render(const TrayHost& host);

private:
    const service::FleetStateStore& store_;
    DcgmPageOptions options_;
    // The NVLink5 families of the documented CSV (dcgmNvlinkFields()), each with its field id.
    void renderNvlink(const TrayHost& host, const std::vector<std::string>& gpuLabels, std::int64_t nowMs,
                      std::vector<std::pair<int, std::string>>& families);

    std::vector<std::size_t> fieldOrder_;  // dcgmDefaultFields() positions by DCGM field id
    DcgmFieldValues values_;
    NvlinkFieldValues nvlinkValues_;
};

// dcgm-exporter's err_msg for an Xid code (its table, for the codes the twin can raise);
// "Unknown Error" for a code it does not know.
std::string_view xidErrorText(long long code);
// The PCI bus id DCGM reports for GPU `localId` of a GB200 compute tray [A].
std::string gb200PciBusId(std::uint32_t localId);

}  // namespace watchfloor::server::exporters
