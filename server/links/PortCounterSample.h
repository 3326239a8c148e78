#pragma once
// One port's InfiniBand counters at one scrape, as node_exporter's infiniband collector publishes
// them (docs/domain/link-health.md section 1). Every field may be absent: a sysfs file that cannot
// be read is not exported, and a series that vanishes is missing, not zero. Kept flat (a presence
// mask, no std::optional) so that a poll's samples for 260,000 ports fit one reused array.

#include <cstdint>

namespace watchfloor::server {

enum class PortField : std::uint16_t {
    SymbolErrors = 1 << 0,          // symbol_error_total
    LinkDowned = 1 << 1,            // link_downed_total
    LinkErrorRecovery = 1 << 2,     // link_error_recovery_total
    ReceiveErrors = 1 << 3,         // port_errors_received_total
    RemotePhysicalErrors = 1 << 4,  // port_receive_remote_physical_errors_total (EBP packets)
    PacketsReceived = 1 << 5,       // port_packets_received_total
    State = 1 << 6,                 // state_id (4 = active)
    Rate = 1 << 7,                  // rate_bytes_per_second
    ModuleTemperature = 1 << 8,     // not in node_exporter; a source that has it (UFM, the twin) sets it
};

struct PortCounterSample {
    std::int64_t timeMs = 0;  // the scrape's timestamp, one per port
    std::uint64_t symbolErrors = 0;
    std::uint64_t linkDowned = 0;
    std::uint64_t linkErrorRecovery = 0;
    std::uint64_t receiveErrors = 0;
    std::uint64_t remotePhysicalErrors = 0;
    std::uint64_t packetsReceived = 0;
    double rateBytesPerSecond = 0;
    float moduleTemperatureC = 0;
    bool active = false;
    std::uint16_t fields = 0;

    bool has(PortField field) const { return (fields & static_cast<std::uint16_t>(field)) != 0; }
    void clear(std::int64_t atMs) { *this = PortCounterSample{}, timeMs = atMs; }

    PortCounterSample& setSymbolErrors(std::uint64_t v) { return put(symbolErrors, v, PortField::SymbolErrors); }
    PortCounterSample& setLinkDowned(std::uint64_t v) { return put(linkDowned, v, PortField::LinkDowned); }
    PortCounterSample& setLinkErrorRecovery(std::uint64_t v) {
        return put(linkErrorRecovery, v, PortField::LinkErrorRecovery);
    }
    PortCounterSample& setReceiveErrors(std::uint64_t v) { return put(receiveErrors, v, PortField::ReceiveErrors); }
    PortCounterSample& setRemotePhysicalErrors(std::uint64_t v) {
        return put(remotePhysicalErrors, v, PortField::RemotePhysicalErrors);
    }
    PortCounterSample& setPacketsReceived(std::uint64_t v) {
        return put(packetsReceived, v, PortField::PacketsReceived);
    }
    PortCounterSample& setActive(bool v) { return put(active, v, PortField::State); }
    PortCounterSample& setRate(double bytesPerSecond) {
        return put(rateBytesPerSecond, bytesPerSecond, PortField::Rate);
    }
    PortCounterSample& setModuleTemperature(float celsius) {
        return put(moduleTemperatureC, celsius, PortField::ModuleTemperature);
    }

private:
    template <typename T>
    PortCounterSample& put(T& slot, T value, PortField field) {
        slot = value;
        fields |= static_cast<std::uint16_t>(field);
        return *this;
    }
};

}  // namespace watchfloor::server
