#include "NodeExposition.h"

#include "ExporterFields.h"
#include "ExpositionFormat.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace watchfloor::server::exporters {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::string_view kStateIdFamily = "node_infiniband_state_id";
constexpr std::string_view kRateFamily = "node_infiniband_rate_bytes_per_second";
constexpr int kIbStateActive = 4;
constexpr int kIbStateDown = 1;

struct Series {
    std::string first, second;  // label values in label-name order
    double value;
};

struct Family {
    std::string_view name, help;
    telemetry::PromType type;
    std::string_view firstLabel, secondLabel;
    std::vector<Series> series;
};

void appendFamily(std::string& page, Family& family) {
    if (family.series.empty()) return;
    std::sort(family.series.begin(), family.series.end(), [](const Series& a, const Series& b) {
        return std::tie(a.first, a.second) < std::tie(b.first, b.second);
    });
    appendFamilyHeader(page, family.name, family.help, family.type);
    for (const auto& s : family.series) {
        page += family.name;
        page += '{';
        page += family.firstLabel;
        page += "=\"";
        appendLabelValue(page, s.first);
        page += "\",";
        page += family.secondLabel;
        page += "=\"";
        appendLabelValue(page, s.second);
        page += "\"} ";
        appendGoShortest(page, s.value);
        page += '\n';
    }
}

std::uint64_t seriesKey(std::uint32_t entity, v1::Metric metric) {
    return (std::uint64_t(entity) << 32) | std::uint32_t(metric);
}

}  // namespace

std::string NodeExposition::deviceOf(const v1::NicPort& port) {
    return port.host_device().empty() ? "mlx5_" + std::to_string(port.port_id()) : port.host_device();
}

std::uint32_t NodeExposition::portOf(const v1::NicPort& port) { return port.host_port() == 0 ? 1 : port.host_port(); }

std::string NodeExposition::render(const TrayHost& host) {
    const std::int64_t nowMs = toUnixMs(store_.lastSampleTime());
    auto reading = [&](std::uint32_t entity, v1::Metric metric) -> std::optional<double> {
        const auto latest = store_.latest(entity, metric);
        if (!latest || std::isnan(latest->value)) return std::nullopt;
        return latest->value;
    };

    std::vector<Family> families;
    for (const auto& f : telemetry::nodeInfinibandFamilies()) {
        Family family{f.name, f.help, f.type, "device", "port", {}};
        const bool octets = f.name == telemetry::kIbTxBytesFamily || f.name == telemetry::kIbRxBytesFamily;
        for (const v1::NicPort* port : host.nicPorts) {
            const double phyState =
                reading(port->index(), v1::IB_PHY_STATE).value_or(telemetry::kIbPhysicalStateLinkUp);
            double value = 0;
            if (octets) {
                // Gb/s x ms = 1e6 bits = 125,000 octets.
                const double gbps = reading(port->index(), f.metric).value_or(0.0);
                const double total = octets_.advance(seriesKey(port->index(), f.metric), nowMs, gbps * 125'000.0);
                value = 4.0 * std::floor(total / 4.0);
            } else if (f.name == kStateIdFamily) {
                value = phyState == telemetry::kIbPhysicalStateLinkUp ? kIbStateActive : kIbStateDown;
            } else if (f.name == kRateFamily) {
                value = port->link_rate_gbps() * 1e9 / 8;
            } else if (f.metric == v1::IB_PHY_STATE) {
                value = phyState;
            } else {
                value = reading(port->index(), f.metric).value_or(0.0) / f.toProto;
            }
            family.series.push_back({deviceOf(*port), std::to_string(portOf(*port)), value});
        }
        families.push_back(std::move(family));
    }
    Family hwmon{telemetry::kHwmonTempFamily, kHwmonTempHelp, telemetry::PromType::Gauge, "chip", "sensor", {}};
    for (std::size_t c = 0; c < host.cpus.size(); ++c)
        if (const auto temp = reading(host.cpus[c]->index(), v1::DCGM_FI_DEV_CPU_TEMP_CELSIUS))
            hwmon.series.push_back(
                {"thermal_thermal_zone" + std::to_string(c), "temp1", std::round(*temp * 1000) / 1000});
    families.push_back(std::move(hwmon));

    std::sort(families.begin(), families.end(), [](const Family& a, const Family& b) { return a.name < b.name; });
    std::string page;
    page.reserve(4096);
    for (auto& family : families) appendFamily(page, family);
    return page;
}

}  // namespace watchfloor::server::exporters
