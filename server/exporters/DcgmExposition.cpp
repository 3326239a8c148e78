#include "DcgmExposition.h"

#include "ExpositionFormat.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <utility>

namespace watchfloor::server::exporters {

namespace v1 = watchfloor::v1;

namespace {

// DCGM_FT_DOUBLE in DCGM's field table; the rest of the default set is DCGM_FT_INT64.
bool isDoubleField(v1::Metric metric) {
    return metric == v1::DCGM_FI_DEV_POWER_USAGE || metric == v1::DCGM_FI_PROF_GR_ENGINE_ACTIVE ||
           metric == v1::DCGM_FI_PROF_PIPE_TENSOR_ACTIVE || metric == v1::DCGM_FI_PROF_DRAM_ACTIVE ||
           metric == v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO || metric == v1::DCGM_FI_DEV_NVLINK_EFFECTIVE_BER_RATIO;
}

void appendValue(std::string& out, v1::Metric metric, double value) {
    if (isDoubleField(metric))
        appendGoFixed(out, value);
    else
        appendGoInt(out, std::llround(value));
}

void appendBlank(std::string& out, v1::Metric metric) {
    if (isDoubleField(metric))
        appendGoFixed(out, telemetry::kDcgmFp64BlankThreshold);  // DCGM_FP64_BLANK
    else
        appendGoInt(out, telemetry::kDcgmInt64Blank);
}

// Everything between "{" and the first per-field label, the same for every field of one GPU.
std::string gpuLabels(const TrayHost& host, const v1::Gpu& gpu, const std::string& driverVersion) {
    std::string labels = "gpu=\"";
    appendGoInt(labels, gpu.local_id());
    labels += "\",UUID=\"";
    appendLabelValue(labels, gpu.uuid());
    labels += "\",pci_bus_id=\"";
    appendLabelValue(labels, gb200PciBusId(gpu.local_id()));
    labels += "\",device=\"nvidia";
    appendGoInt(labels, gpu.local_id());
    labels += "\",modelName=\"";
    appendLabelValue(labels, gpu.model_name());
    // Hostname, not hostname: see the header.
    labels += "\",Hostname=\"";
    appendLabelValue(labels, host.hostname);
    labels += "\",DCGM_FI_DRIVER_VERSION=\"";
    appendLabelValue(labels, driverVersion);
    labels += '"';
    return labels;
}

// A link-entity series' labels (render_metrics.go): other spellings than the GPU series'.
std::string linkLabels(const TrayHost& host, const v1::Gpu& gpu, std::size_t linkId) {
    std::string labels = "nvlink=\"";
    appendGoInt(labels, static_cast<long long>(linkId));
    labels += "\",gpu=\"";
    appendGoInt(labels, gpu.local_id());
    labels += "\",gpu_uuid=\"";
    appendLabelValue(labels, gpu.uuid());
    labels += "\",pci_bus_id=\"";
    appendLabelValue(labels, gb200PciBusId(gpu.local_id()));
    labels += "\",device=\"nvidia";
    appendGoInt(labels, gpu.local_id());
    labels += "\",model_name=\"";
    appendLabelValue(labels, gpu.model_name());
    labels += "\",hostname=\"";
    appendLabelValue(labels, host.hostname);
    labels += '"';
    return labels;
}

void appendLine(std::string& page, std::string_view name, const std::string& labels, v1::Metric metric, double value) {
    page += name;
    page += '{';
    page += labels;
    page += "} ";
    appendValue(page, metric, value);
    page += '\n';
}

}  // namespace

std::string_view xidErrorText(long long code) {
    // dcgm-exporter's texts (internal/pkg/collector/xid_errors.go) for the codes of the twin's
    // Xid catalog and the Xids they trigger.
    static constexpr std::array<std::pair<int, std::string_view>, 33> kTexts{{
        {0, "No Error"},
        {13, "Graphics Engine Exception"},
        {31, "GPU memory page fault"},
        {43, "GPU stopped processing"},
        {45, "Preemptive cleanup, due to previous errors -- Most likely to see when running multiple cuda"},
        {46, "GPU stopped processing"},
        {48, "Double Bit ECC Error"},
        {61, "Internal micro-controller breakpoint/warning"},
        {62, "Internal micro-controller halt"},
        {63, "ECC page retirement or row remapping recording event"},
        {64, "ECC page retirement or row remapper recording failure"},
        {74, "NVLINK Error"},
        {79, "GPU has fallen off the bus"},
        {92, "High single-bit ECC error rate"},
        {94, "Contained ECC error"},
        {95, "Uncontained ECC error"},
        {109, "Context Switch Timeout Error"},
        {119, "GSP RPC Timeout"},
        {120, "GSP Error"},
        {136, "ALI Training Fail"},
        {140, "Unrecovered ECC Error"},
        {143, "GPU Initialization Failure"},
        {144, "NVLINK: Saw Error"},
        {145, "NVLINK: RLW Error"},
        {146, "NVLINK: TLW Error"},
        {147, "NVLINK: TREX Error"},
        {148, "NVLINK: NVLPW_CTRL Error"},
        {149, "NVLINK: NETIR Error"},
        {150, "NVLINK: MSE Error"},
        {154, "GPU Recovery Action Changed"},
        {155, "NVLINK: SW Defined Error"},
        {156, "Resource Retirement Event"},
        {158, "GPU Fatal Timeout"},
    }};
    for (const auto& [known, text] : kTexts)
        if (known == code) return text;
    return "Unknown Error";
}

std::string gb200PciBusId(std::uint32_t localId) {
    // A GB200 tray's two Grace sockets each own two GPUs, in PCI domains 0x8/0x9 and 0x18/0x19.
    static constexpr std::array<unsigned, 4> kDomains{0x8, 0x9, 0x18, 0x19};
    const unsigned domain = localId < kDomains.size() ? kDomains[localId] : 0x8 + localId;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%08X:01:00.0", domain);
    return buf;
}

DcgmExposition::DcgmExposition(const service::FleetStateStore& store, DcgmPageOptions options)
    : store_(store), options_(std::move(options)), values_(store), nvlinkValues_(store) {
    const auto fields = telemetry::dcgmDefaultFields();
    fieldOrder_.resize(fields.size());
    std::iota(fieldOrder_.begin(), fieldOrder_.end(), std::size_t{0});
    std::stable_sort(fieldOrder_.begin(), fieldOrder_.end(),
                     [&](std::size_t a, std::size_t b) { return fields[a].metric < fields[b].metric; });
}

std::string DcgmExposition::render(const TrayHost& host) {
    const std::int64_t nowMs = toUnixMs(store_.lastSampleTime());
    std::vector<std::string> labels;
    std::vector<std::vector<std::optional<double>>> values;
    for (const v1::Gpu* gpu : host.gpus) {
        labels.push_back(gpuLabels(host, *gpu, options_.driverVersion));
        values.push_back(values_.read(host, *gpu, nowMs));
    }
    const auto fields = telemetry::dcgmDefaultFields();
    // Each family's text by its field id: the default set and the NVLink5 lines interleave.
    std::vector<std::pair<int, std::string>> families;
    for (const std::size_t f : fieldOrder_) {
        const auto& field = fields[f];
        const bool anyValue =
            std::any_of(values.begin(), values.end(), [&](const auto& gpuValues) { return gpuValues[f].has_value(); });
        if (!anyValue && options_.blanks == BlankValues::Omit) continue;
        std::string& page = families.emplace_back(int(field.metric), std::string()).second;
        page.reserve(host.gpus.size() * 220);
        appendFamilyHeader(page, field.name, field.help, field.type);
        for (std::size_t g = 0; g < host.gpus.size(); ++g) {
            const auto& value = values[g][f];
            if (!value && options_.blanks == BlankValues::Omit) continue;
            page += field.name;
            page += '{';
            page += labels[g];
            if (field.metric == v1::DCGM_FI_DEV_XID_ERRORS) {
                // The exporter reads err_code from the value it prints, blank sentinel included.
                const long long code = value ? std::llround(*value) : telemetry::kDcgmInt64Blank;
                page += ",err_code=\"";
                page += std::to_string(code);
                page += "\",err_msg=\"";
                appendLabelValue(page, xidErrorText(code));
                page += '"';
            }
            page += "} ";
            if (value)
                appendValue(page, field.metric, *value);
            else
                appendBlank(page, field.metric);
            page += '\n';
        }
    }
    renderNvlink(host, labels, nowMs, families);
    std::stable_sort(families.begin(), families.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string page;
    page.reserve(fields.size() * host.gpus.size() * 220);
    for (const auto& family : families) page += family.second;
    return page;
}

void DcgmExposition::renderNvlink(const TrayHost& host, const std::vector<std::string>& gpuLabels, std::int64_t nowMs,
                                  std::vector<std::pair<int, std::string>>& families) {
    std::vector<NvlinkValues> values;
    for (const v1::Gpu* gpu : host.gpus) values.push_back(nvlinkValues_.read(*gpu, nowMs));
    std::vector<v1::Metric> written;
    for (const auto& field : telemetry::dcgmNvlinkFields()) {
        // The documented CSV's spelling of each metric, the first in the table.
        if (std::find(written.begin(), written.end(), field.metric) != written.end()) continue;
        written.push_back(field.metric);
        if (!NvlinkFieldValues::modelled(field.metric)) continue;
        std::string page;
        for (std::size_t g = 0; g < host.gpus.size(); ++g) {
            if (!field.perLink) {
                if (const auto v = values[g].gpu.find(field.metric); v != values[g].gpu.end())
                    appendLine(page, field.name, gpuLabels[g], field.metric, v->second);
                continue;
            }
            for (std::size_t l = 0; l < values[g].links.size(); ++l)
                if (const auto v = values[g].links[l].find(field.metric); v != values[g].links[l].end())
                    appendLine(page, field.name, linkLabels(host, *host.gpus[g], l), field.metric, v->second);
        }
        if (page.empty()) continue;  // a family without values is left out
        std::string& family = families.emplace_back(int(field.metric), std::string()).second;
        appendFamilyHeader(family, field.name, field.help, field.type);
        family += page;
    }
}

}  // namespace watchfloor::server::exporters
