#pragma once
// Lookups over a fleet topology that the stream filters, the event queries and the history need
// at telemetry rates: kind, rack and parent of an entity by index (flat arrays, no hashing), and
// entity names for the few calls that take names.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace watchfloor::server::service {

// How much detail a value needs before a subscriber sees it (DetailLevel without UNSPECIFIED).
enum class DetailTier : std::uint8_t { Summary = 1, Standard = 2, Full = 3 };

DetailTier detailTierOf(watchfloor::v1::DetailLevel level);  // UNSPECIFIED = Standard
DetailTier detailTierOf(watchfloor::v1::EntityKind kind);    // the tier an entity's values belong to

class TopologyLookup {
public:
    static constexpr std::uint32_t kNone = UINT32_MAX;

    // Keeps a reference: the topology must outlive the index (a FleetSource's is stable).
    explicit TopologyLookup(const watchfloor::v1::Topology& topology);

    const watchfloor::v1::Topology& topology() const { return topology_; }
    std::uint32_t fleetIndex() const { return topology_.fleet_index(); }

    // ENTITY_KIND_UNSPECIFIED for indexes the topology does not know (jobs, unknown).
    watchfloor::v1::EntityKind kind(std::uint32_t index) const;
    std::uint32_t rackOf(std::uint32_t index) const;    // kNone above rack level or unknown
    std::uint32_t regionOf(std::uint32_t index) const;  // kNone for the fleet or unknown
    std::uint32_t parentOf(std::uint32_t index) const;  // kNone for the fleet or unknown
    // True when `entity` is `ancestor` or lies inside it (a GPU inside its node, rack, region).
    bool isInside(std::uint32_t entity, std::uint32_t ancestor) const;

    // Every topology entity by name; NVLinks ("r01-n07-g2-l05") are resolved through their GPU
    // so 2.3 M link names need no map of their own. "fleet" names the fleet entity.
    std::optional<std::uint32_t> findByName(std::string_view name) const;
    std::optional<std::uint32_t> findRack(std::string_view name) const;
    std::optional<std::uint32_t> findRegion(std::string_view name) const;
    const std::vector<std::uint32_t>& racksOfRegion(std::uint32_t regionIndex) const;
    std::string nameOf(std::uint32_t index) const;

    std::uint32_t indexLimit() const { return static_cast<std::uint32_t>(kind_.size()); }

private:
    void add(std::uint32_t index, watchfloor::v1::EntityKind kind, std::uint32_t parent, const std::string& name,
             std::uint32_t position);

    const watchfloor::v1::Topology& topology_;
    std::vector<std::uint8_t> kind_;
    std::vector<std::uint32_t> parent_;
    std::vector<std::uint32_t> rack_;
    std::vector<std::uint32_t> position_;  // position of the entity in its topology list
    std::unordered_map<std::string, std::uint32_t> byName_;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> racksOfRegion_;
};

}  // namespace watchfloor::server::service
