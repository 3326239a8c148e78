#include "XidCatalog.h"

#include <algorithm>
#include <iterator>

namespace watchfloor::server {
namespace {

using namespace watchfloor::v1;
using R = GpuRecoveryAction;

constexpr const char* kNvlink5Policy =
    "Decode intrInfo/errorStatus; reset the GPU; on NVL72 check the rack's NVLink domain and "
    "switch trays if several GPUs report it";

// Sorted by Xid (binary search). Policies: docs/domain/xid-catalogue.md (NVIDIA action + fleet practice).
constexpr XidInfo kXids[] = {
    {13, "GR_EXCEPTION", XID_ACTION_RESTART_APP, false, R::None,
     "Application fault: restart the job; repeats on the same TPC/GPC mean hardware, run DCGM diag"},
    {31, "FIFO_ERROR_MMU_ERR_FLT", XID_ACTION_RESTART_APP, false, R::None,
     "Usually the application: restart; repeats on the same GPU across jobs mean hardware"},
    {43, "RESETCHANNEL_VERIF_ERROR", XID_ACTION_IGNORE, false, R::None, "Sympathetic: follow the preceding Xid"},
    {45, "PREEMPTIVE_REMOVAL", XID_ACTION_IGNORE, false, R::None,
     "Secondary cleanup: trace the primary Xid (usually 48 or 79)"},
    {46, "GPU_TIMEOUT_ERROR", XID_ACTION_RESET_GPU, true, R::GpuReset,
     "Drain, reset the GPU; service the tray if it recurs"},
    {48, "GPU_ECC_DBE", XID_ACTION_WORKFLOW_XID_48, true, R::GpuReset,
     "Drain and reset; check the SRAM threshold flag and run fielddiag; RMA if persistent"},
    {62, "PMU_HALT_ERROR", XID_ACTION_RESET_GPU, true, R::GpuReset, "Drain and reset the GPU"},
    {63, "INFOROM_DRAM_RETIREMENT_EVENT", XID_ACTION_IGNORE, false, R::None,
     "Count it; a reset activates the row remap; repeats are a replace signal"},
    {64, "INFOROM_DRAM_RETIREMENT_FAILURE", XID_ACTION_RESET_GPU, true, R::GpuReset, "Row remap failed: RMA the GPU"},
    {74, "NVLINK_ERROR", XID_ACTION_WORKFLOW_NVLINK_ERR, true, R::GpuReset,
     "Reset the GPU or reboot; repeats on the same link: replace; many nodes: suspect NVSwitch/FM"},
    {79, "GPU_HAS_FALLEN_OFF_THE_BUS", XID_ACTION_RESTART_BM, true, R::NodeReboot,
     "Drain, then power-cycle the node; repeats: RMA the GPU or slot"},
    {92, "EXCESSIVE_SBE_INTERRUPTS", XID_ACTION_IGNORE, false, R::None, "Monitor; escalation to Xid 48 means hardware"},
    {94, "CONTAINED_ERROR", XID_ACTION_RESTART_APP, false, R::None, "Restart the application; the GPU survives"},
    {95, "UNCONTAINED_ERROR", XID_ACTION_RESET_GPU, true, R::GpuReset, "Drain and reset; node reboot if it persists"},
    {109, "CTXSW_TIMEOUT_ERROR", XID_ACTION_RESET_GPU, true, R::GpuReset, "Drain and reset the GPU"},
    {119, "GSP_RPC_TIMEOUT", XID_ACTION_RESET_GPU, true, R::GpuReset, "Reset; if it recurs update firmware or driver"},
    {120, "GSP_ERROR", XID_ACTION_RESET_GPU, true, R::GpuReset, "Reset; if it recurs update firmware or driver"},
    {136, "ALI_TRAINING_FAIL", XID_ACTION_RESET_GPU, true, R::GpuReset,
     "Reset; check mechanicals and signal integrity"},
    {140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", XID_ACTION_RESET_GPU, true, R::GpuReset, "Reset; RMA if it recurs"},
    {143, "GPU_INIT_ERROR", XID_ACTION_RESET_GPU, true, R::GpuReset, "Reset; RMA if persistent"},
    {144, "NVLINK_SAW", XID_ACTION_WORKFLOW_NVLINK5_ERR, true, R::DrainAndReset, kNvlink5Policy},
    {145, "NVLINK_RLW", XID_ACTION_WORKFLOW_NVLINK5_ERR, true, R::DrainAndReset, kNvlink5Policy},
    {146, "NVLINK_TLW", XID_ACTION_WORKFLOW_NVLINK5_ERR, true, R::DrainAndReset, kNvlink5Policy},
    {147, "NVLINK_TREX", XID_ACTION_WORKFLOW_NVLINK5_ERR, true, R::DrainAndReset, kNvlink5Policy},
    {148, "NVLINK_NVLPW_CTRL", XID_ACTION_WORKFLOW_NVLINK5_ERR, true, R::DrainAndReset, kNvlink5Policy},
    {149, "NVLINK_NETIR", XID_ACTION_WORKFLOW_NVLINK5_ERR, true, R::DrainAndReset, kNvlink5Policy},
    {150, "NVLINK_MSE", XID_ACTION_WORKFLOW_NVLINK5_ERR, true, R::DrainAndReset, kNvlink5Policy},
    {154, "GPU_RECOVERY_ACTION_CHANGED", XID_ACTION_IGNORE, false, R::None, "Follow the guidance for the linked Xid"},
    {155, "NVLINK_SW_DEFINED", XID_ACTION_RESET_GPU, true, R::GpuReset, "Drain and reset the GPU"},
    {156, "RESOURCE_RETIREMENT_EVENT", XID_ACTION_RESET_GPU, true, R::GpuReset, "Drain and reset the GPU"},
    {158, "GPU_FATAL_TIMEOUT", XID_ACTION_RESET_GPU, true, R::GpuReset, "Drain and reset the GPU"},
};

}  // namespace

const XidInfo* findXid(std::uint32_t xid) {
    const auto it = std::lower_bound(std::begin(kXids), std::end(kXids), xid,
                                     [](const XidInfo& info, std::uint32_t value) { return info.xid < value; });
    return it != std::end(kXids) && it->xid == xid ? &*it : nullptr;
}

void fillXidDetail(const XidInfo& info, XidDetail& detail) {
    detail.set_xid(info.xid);
    detail.set_mnemonic(info.mnemonic);
    detail.set_recommended_action(info.action);
    detail.set_fatal(info.fatal);
    detail.set_fleet_policy(info.fleetPolicy);
}

Severity xidSeverity(const XidInfo& info) {
    return info.fatal ? SEVERITY_CRITICAL : info.action == XID_ACTION_IGNORE ? SEVERITY_INFO : SEVERITY_WARNING;
}

}  // namespace watchfloor::server
