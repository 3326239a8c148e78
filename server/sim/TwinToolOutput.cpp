#include "TwinToolOutput.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace watchfloor::server::sim {

namespace {

// A GB200 compute tray's GPUs (testbeds/break-fix/README.md).
constexpr std::array<const char*, 4> kBusIds{"00000008:01:00.0", "00000009:01:00.0", "00000018:01:00.0",
                                             "00000019:01:00.0"};

// dcgmi's 78-column box (Diag::HelperDisplayAsCli): a 26-character name and a 47-character value,
// a value longer than 45 characters cut into rows.
constexpr std::size_t kNameWidth = 26;
constexpr std::size_t kValueWidth = 47;
constexpr std::size_t kValuePiece = 45;

std::string padded(std::string_view text, std::size_t width) {
    std::string out(text);
    if (out.size() < width) out.append(width - out.size(), ' ');
    return out;
}

std::string row(std::string_view name, std::string_view value) {
    return "| " + padded(name, kNameWidth) + "| " + padded(value, kValueWidth) + "|\n";
}

std::string rule(char edge, char fill) {
    return std::string(1, edge) + std::string(kNameWidth + 1, fill) + edge + std::string(kValueWidth + 1, fill) + edge +
           "\n";
}

// "|-----  Metadata  ----------+-----...-----|"; the first two sections open with '|', the later
// ones with '+', as DCGM 4.6.0 prints them.
std::string sectionRule(std::string_view name, bool first) {
    const char edge = first ? '|' : '+';
    std::string left = "-----  " + std::string(name) + "  ";
    left.append(kNameWidth + 1 - std::min(left.size(), kNameWidth + 1), '-');
    return std::string(1, edge) + left + "+" + std::string(kValueWidth + 1, '-') + edge + "\n";
}

}  // namespace

std::string gpuBusId(std::uint32_t gpu) { return kBusIds[gpu % kBusIds.size()]; }

std::string nvidiaSmiResetDone(const std::vector<std::uint32_t>& gpus) {
    std::string out;
    for (const std::uint32_t gpu : gpus) out += "GPU " + gpuBusId(gpu) + " was successfully reset.\n";
    return out;
}

std::string nvidiaSmiGpuLost(std::uint32_t gpu) {
    // This message prints the bus id with a 4-digit domain ("0018:01:00.0"), as public transcripts show.
    return "Unable to determine the device handle for GPU " + gpuBusId(gpu).substr(4) +
           ": GPU is lost.  Reboot the system to recover this GPU\n";
}

std::vector<DiagnosticTestName> diagnosticTests(std::uint32_t level) {
    // FillTestVectors in nvvs/src/NvidiaValidationSuite.cpp, in the table's section order.
    std::vector<DiagnosticTestName> tests{{"Deployment", "software"}};
    if (level >= 2) tests.push_back({"Hardware", "memory"});
    if (level >= 3) tests.push_back({"Hardware", "diagnostic"});
    if (level >= 4) tests.push_back({"Hardware", "pulse_test"});
    if (level >= 2) tests.push_back({"Integration", "pcie"});
    if (level >= 3) {
        tests.push_back({"Stress", "memory_bandwidth"});
        tests.push_back({"Stress", "targeted_stress"});
        tests.push_back({"Stress", "targeted_power"});
    }
    if (level >= 4) tests.push_back({"Stress", "memtest"});
    return tests;
}

std::string dcgmiDiagTable(std::uint32_t level, const std::optional<DiagnosticFailure>& failure) {
    std::string out = "Successfully ran diagnostic for group.\n";
    out += rule('+', '-');
    out += row("Diagnostic", "Result");
    out += rule('+', '=');
    out += sectionRule("Metadata", true);
    out += row("DCGM Version", "4.6.0");
    out += row("Driver Version Detected", "580.82.07");
    out += row("GPU Device IDs Detected", "2941, 2941, 2941, 2941");
    std::string_view section;
    for (const auto& test : diagnosticTests(level)) {
        if (section != test.category) {
            section = test.category;
            out += sectionRule(section, section == "Deployment");
        }
        const bool failed = failure && failure->test == test.name;
        out += row(test.name, failed ? "Fail" : "Pass");
        for (std::uint32_t gpu = 0; gpu < kBusIds.size(); ++gpu) {
            const bool gpuFailed = failed && failure->gpu == gpu;
            out += row("", "GPU" + std::to_string(gpu) + (gpuFailed ? ": Fail" : ": Pass"));
            if (!gpuFailed) continue;
            const std::string& text = failure->warning;
            for (std::size_t at = 0; at < text.size(); at += kValuePiece)
                out += row(at == 0 ? "Warning: GPU" + std::to_string(gpu) : "", text.substr(at, kValuePiece));
        }
    }
    out += rule('+', '-');
    return out;
}

}  // namespace watchfloor::server::sim
