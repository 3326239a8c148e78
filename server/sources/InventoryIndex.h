#pragma once
// The inventory as the real sources need it: which topology entity a series' labels name.
// dcgm-exporter labels a GPU by its host (Hostname, renamed hostname in exporter 4.8; or the
// scrape target's instance) and DCGM's gpu index; NVLink-entity series name their GPU by
// gpu_uuid, which this index learns from the GPU series that carry both. node_exporter series
// carry no host label of their own: their host is the instance ("gb200-r01-n07:9100").
//
// Sites name a host in many ways, and a series names it as its exporter or scrape target does.
// A name (port stripped, any letter case) finds the tray whose
//   1. host name (hosts=) or address (addresses=, an IP or a DNS name) it is;
//   2. host name qualified by a listed domain (inventory domains=cluster.example:
//      "node01.cluster.example" for host node01), or, the other way, the short name of an
//      inventory host in a listed domain ("node01" for host node01.cluster.example); two listed
//      domains of one short name are the same host;
//   3. with no domain list: for a qualified name, the host named by its first DNS label; for a
//      short name, the one inventory host whose first DNS label it is (a foreign domain is
//      never matched to another: "node01.a.example" does not name "node01.b.example").
// A short name that more than one tray could have names none of them (ambiguities() lists
// them): a series is never mapped onto a tray it may not be about. IP addresses are matched
// whole, never by a first label.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::sources {

class InventoryIndex {
public:
    explicit InventoryIndex(const watchfloor::v1::Topology& topology);
    // slotOfGpu_ points into nodeByHost_'s nodes: a move keeps them, a copy would not.
    InventoryIndex(const InventoryIndex&) = delete;
    InventoryIndex& operator=(const InventoryIndex&) = delete;
    InventoryIndex(InventoryIndex&&) = default;
    InventoryIndex& operator=(InventoryIndex&&) = default;

    std::optional<std::uint32_t> node(std::string_view host) const;
    std::optional<std::uint32_t> gpu(std::string_view host, std::uint32_t dcgmGpuIndex) const;
    std::optional<std::uint32_t> nicPort(std::string_view host, std::string_view device, std::uint32_t port) const;
    std::optional<std::uint32_t> nvlink(std::uint32_t gpu, std::uint32_t linkId) const;
    std::optional<std::uint32_t> rackOfNode(std::uint32_t node) const;

    // GPU UUIDs as the site reports them (learned from series that carry host, gpu and UUID).
    void learnUuid(std::string_view uuid, std::uint32_t gpu);
    // gpu(host, index), then learnUuid(uuid, gpu) when found. Every field of a GPU carries its
    // UUID, so a poll reports each one ~25 times: the UUID a GPU reported last is kept beside it
    // and an unchanged one costs a string compare, not a hash lookup.
    std::optional<std::uint32_t> gpuReporting(std::string_view host, std::uint32_t dcgmGpuIndex, std::string_view uuid);
    std::optional<std::uint32_t> gpuByUuid(std::string_view uuid) const;

    // "gb200-r01-n07:9100" → "gb200-r01-n07"; "[::1]:9100" → "::1"; no port → unchanged.
    static std::string_view hostOfInstance(std::string_view instance);

    std::size_t hostCount() const { return nodeByHost_.size(); }

    // A PromQL regular expression (RE2, which PromQL anchors at both ends; case-insensitive)
    // matching every name under which this index finds the tray of `host`, without a port, so a
    // store query selects its series however the site labelled them. Empty for an unknown host.
    std::string hostRegex(std::string_view host) const;
    // "node01: node01.a.example, node01.b.example": a short name two or more trays could have.
    const std::vector<std::string>& ambiguities() const { return ambiguities_; }
    // The trays a short name could be ("node01.a.example, node01.b.example") when it is ambiguous.
    std::optional<std::string> ambiguity(std::string_view host) const;
    // An IPv4 address (dotted quad) or an IPv6 one (has a ':'), as opposed to a DNS name.
    static bool isAddress(std::string_view name);

    // The entities one host's exporters report on: its node, GPUs and NIC ports. False for a host
    // the inventory does not list.
    struct HostEntities {
        std::uint32_t node = 0;
        std::vector<std::uint32_t> gpus, nicPorts;
    };
    bool hostEntities(std::string_view host, HostEntities& out) const;

private:
    // Lookups by string_view without building a std::string: a poll maps millions of series.
    struct TransparentHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
    };
    template <typename Value>
    using ByName = std::unordered_map<std::string, Value, TransparentHash, std::equal_to<>>;

    struct Gpu {
        std::uint32_t dcgmIndex;
        std::uint32_t entity;
        // Nothing (size 0), or a UUID that gpuByUuid_ maps to this GPU (learnUuid forgets it when
        // that changes). Inline, so checking it touches no memory beyond the host's GPU list; a
        // longer UUID than fits is simply never kept here.
        std::uint8_t learnedSize = 0;
        char learned[47] = {};
        bool hasLearned(std::string_view uuid) const {
            return learnedSize && uuid.size() == learnedSize && uuid.compare(0, uuid.size(), learned, learnedSize) == 0;
        }
        void remember(std::string_view uuid) {
            learnedSize = uuid.size() <= sizeof learned ? static_cast<std::uint8_t>(uuid.size()) : 0;
            if (learnedSize) uuid.copy(learned, learnedSize);
        }
    };
    struct HostParts {
        std::uint32_t node = 0;
        std::vector<Gpu> gpus;
        struct Nic {
            std::string device;
            std::uint32_t port;
            std::uint32_t entity;
        };
        std::vector<Nic> nics;
        std::vector<std::string> names;  // lower-cased names it is found by (hostRegex)
        bool anyDomain = false;          // a short host name with no domain list: any qualified name of it
    };
    const HostParts* host(std::string_view name) const;
    HostParts* host(std::string_view name) {
        return const_cast<HostParts*>(static_cast<const InventoryIndex*>(this)->host(name));
    }

    ByName<HostParts> nodeByHost_;
    // Lower-cased names beyond the host name (address, name.domain; nullptr: names two trays),
    // and the short names of qualified inventory names (step 2/3 above).
    ByName<HostParts*> aliases_, shortNames_;
    std::vector<std::string> domains_;
    std::vector<std::string> ambiguities_;
    std::unordered_map<std::string, std::string> traysOfAmbiguous_;  // short name → its trays
    std::unordered_map<std::uint32_t, std::uint32_t> rackOfNode_;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> linksOfGpu_;  // by link id
    ByName<std::uint32_t> gpuByUuid_;
    // gpuReporting's last host: a GPU field's answer lists a host's GPUs one after another.
    std::string lastHostName_;
    HostParts* lastHost_ = nullptr;
    std::unordered_map<std::uint32_t, Gpu*> slotOfGpu_;  // into nodeByHost_'s values, which never move
};

}  // namespace watchfloor::server::sources
