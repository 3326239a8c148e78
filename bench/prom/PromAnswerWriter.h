#pragma once
// Writes instant-query answers as Prometheus serializes them, for benchmarks that need a whole
// fleet's answer without running a store: labels sorted by name, the evaluation time in seconds
// with milliseconds, values as shortest round-trip decimal strings ("NaN", "+Inf" for the rest).
// Series carry the labels the exporters write plus the instance and job the scrape adds, so the
// decoder and the mapping see what a real site sends. prom_decode_bench and store_poll_bench
// share it so both measure the same bytes.

#include "PromClient.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace watchfloor::bench {

// A site's GPU UUID, unlike the ones the fleet model invents: fleetd learns a real site's.
inline void appendSiteGpuUuid(std::string& out, std::uint32_t host, int gpu) {
    char text[64];
    const int n = std::snprintf(text, sizeof text, "GPU-%08x-%04x-%04x-%04x-%012x", host * 7919u, unsigned(gpu),
                                host & 0xffffu, unsigned(gpu) * 31u, host * 104729u);
    out.append(text, std::size_t(n));
}

class InstantAnswerWriter {
public:
    // Starts an answer in `out` (cleared; its capacity is kept, as a client's buffer is).
    InstantAnswerWriter(std::string& out, std::int64_t evalTimeMs) : out_(out) {
        out_.clear();
        out_ += R"({"status":"success","data":{"resultType":"vector","result":[)";
        char text[32];
        const int n = std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(evalTimeMs / 1000),
                                    static_cast<long long>(evalTimeMs % 1000));
        time_.assign(text, std::size_t(n));
    }

    // One dcgm-exporter series of the GPU with DCGM index `gpu` on `host` (its ordinal `hostOrdinal`
    // makes the UUID). `name` empty: a timestamp() answer, which drops __name__.
    void dcgm(std::string_view name, std::string_view host, std::uint32_t hostOrdinal, int gpu, double value) {
        open();
        out_ += R"("DCGM_FI_DRIVER_VERSION":"570.124.06","Hostname":")";
        out_ += host;
        out_ += R"(","UUID":")";
        appendSiteGpuUuid(out_, hostOrdinal, gpu);
        if (!name.empty()) {
            out_ += R"(","__name__":")";
            out_ += name;
        }
        out_ += R"(","device":"nvidia)";
        appendInt(gpu);
        out_ += R"(","gpu":")";
        appendInt(gpu);
        out_ += R"(","instance":")";
        out_ += host;
        out_ += R"(:9400","job":"dcgm-exporter","modelName":"NVIDIA GB200","pci_bus_id":"00000000:)";
        char bus[3];
        std::snprintf(bus, sizeof bus, "%02X", unsigned(0x18 + gpu * 0x20) & 0xffu);
        out_.append(bus, 2);
        out_ += R"(:00.0"})";
        close(value);
    }

    // One node_exporter infiniband series (port "1" of `device`). `name` empty: a timestamp() answer.
    void infiniband(std::string_view name, std::string_view host, std::string_view device, double value) {
        open();
        if (!name.empty()) {
            out_ += R"("__name__":")";
            out_ += name;
            out_ += R"(",)";
        }
        out_ += R"("device":")";
        out_ += device;
        out_ += R"(","instance":")";
        out_ += host;
        out_ += R"(:9100","job":"node-exporter","port":"1"})";
        close(value);
    }

    // One series of an aggregate `by (instance)` over node_exporter's targets.
    void byInstance(std::string_view host, double value) {
        open();
        out_ += R"("instance":")";
        out_ += host;
        out_ += R"(:9100"})";
        close(value);
    }

    // Closes the answer; `out` then has PromClient's kJsonPadding spare bytes for decodeInstantPadded.
    std::string_view finish() {
        out_ += "]}}";
        out_.reserve(out_.size() + server::prom::kJsonPadding);
        return out_;
    }

private:
    void open() {
        out_ += first_ ? R"({"metric":{)" : R"(,{"metric":{)";
        first_ = false;
    }
    void close(double value) {
        out_ += R"(,"value":[)";
        out_ += time_;
        out_ += R"(,")";
        if (std::isnan(value)) {
            out_ += "NaN";
        } else if (std::isinf(value)) {
            out_ += value > 0 ? "+Inf" : "-Inf";
        } else {
            char text[64];
            const auto end = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed).ptr;
            out_.append(text, end);
        }
        out_ += R"("]})";
    }
    void appendInt(int value) {
        char text[16];
        out_.append(text, std::to_chars(text, text + sizeof text, value).ptr);
    }

    std::string& out_;
    std::string time_;
    bool first_ = true;
};

}  // namespace watchfloor::bench
