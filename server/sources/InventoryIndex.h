#pragma once
// The inventory as the real sources need it: which topology entity a series' labels name.
// dcgm-exporter labels a GPU by its host (Hostname, renamed hostname in exporter 4.8; or the
// scrape target's instance) and DCGM's gpu index; NVLink-entity series name their GPU by
// gpu_uuid, which this index learns from the GPU series that carry both. node_exporter series
// carry no host label of their own: their host is the instance ("gb200-r01-n07:9100").

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
    };
    const HostParts* host(std::string_view name) const;
    HostParts* host(std::string_view name) {
        return const_cast<HostParts*>(static_cast<const InventoryIndex*>(this)->host(name));
    }

    ByName<HostParts> nodeByHost_;
    std::unordered_map<std::uint32_t, std::uint32_t> rackOfNode_;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> linksOfGpu_;  // by link id
    ByName<std::uint32_t> gpuByUuid_;
    // gpuReporting's last host: a GPU field's answer lists a host's GPUs one after another.
    std::string lastHostName_;
    HostParts* lastHost_ = nullptr;
    std::unordered_map<std::uint32_t, Gpu*> slotOfGpu_;  // into nodeByHost_'s values, which never move
};

}  // namespace watchfloor::server::sources
