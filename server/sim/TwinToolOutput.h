#pragma once
// What the tools of a break/fix step print on a GB200 compute tray, in their own layout, for the
// twin's steps to report as a site's tools would (docs/domain/break-fix.md; the samples in
// testbeds/break-fix/ are what these must reproduce byte for byte): `nvidia-smi -r` and
// `dcgmi diag -r N`'s boxed table, which server/repair's readers parse.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::sim {

// The PCI bus id of a tray-local GPU (0-3), as nvidia-smi prints it: "00000018:01:00.0".
std::string gpuBusId(std::uint32_t gpu);

// `nvidia-smi -r [-i GPU]` that reset every GPU in `gpus`: one "GPU <bus id> was successfully
// reset." line each.
std::string nvidiaSmiResetDone(const std::vector<std::uint32_t>& gpus);
// The same on a GPU that has fallen off the bus (exit status 15): NVML cannot reach it.
std::string nvidiaSmiGpuLost(std::uint32_t gpu);
inline constexpr int kNvidiaSmiGpuLostExit = 15;

// One test's failure on one GPU, as a plugin reports it: the DCGM_FR_* message and its next step.
struct DiagnosticFailure {
    std::string test;  // "software", "memory", "diagnostic", ...
    std::uint32_t gpu = 0;
    std::string warning;
};

// The tests `dcgmi diag -r level` runs on a tray, in the order the table prints them, each with
// its category ("Deployment", "Hardware", "Integration", "Stress").
struct DiagnosticTestName {
    const char* category;
    const char* name;
};
std::vector<DiagnosticTestName> diagnosticTests(std::uint32_t level);

// `dcgmi diag -r level` on a tray's four GPUs: every test passes except `failure`'s test on its
// GPU. Exit status 0, or kDcgmiIsolateExit / kDcgmiFailExit when a test failed.
std::string dcgmiDiagTable(std::uint32_t level, const std::optional<DiagnosticFailure>& failure);
inline constexpr int kDcgmiIsolateExit = 205;  // DCGM_ST_NVVS_ISOLATE_ERROR (-51) modulo 256
inline constexpr int kDcgmiFailExit = 226;     // DCGM_ST_NVVS_ERROR (-30) modulo 256

}  // namespace watchfloor::server::sim
