#pragma once
// The stream filters', event queries' and history's view of a fleet topology: the shared entity
// index (kind, rack, region, parent by entity index, proto/TopologyEntities) plus entity names for
// the few calls that take names.

#include "TopologyEntities.h"
#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace watchfloor::server::service {

// How much detail a value needs before a subscriber sees it (DetailLevel without UNSPECIFIED).
enum class DetailTier : std::uint8_t { Summary = 1, Standard = 2, Full = 3 };

DetailTier detailTierOf(watchfloor::v1::DetailLevel level);  // UNSPECIFIED = Standard
DetailTier detailTierOf(watchfloor::v1::EntityKind kind);    // the tier an entity's values belong to

class TopologyLookup : public watchfloor::proto::TopologyEntities {
public:
    // Keeps a reference: the topology must outlive the index (a FleetSource's is stable). A
    // malformed topology is indexed as far as it goes (TopologyEntities::rebuild).
    explicit TopologyLookup(const watchfloor::v1::Topology& topology);

    std::uint32_t fleetIndex() const { return topology().fleet_index(); }
    // True when `entity` is `ancestor` or lies inside it (a GPU inside its node, rack, region).
    bool isInside(std::uint32_t entity, std::uint32_t ancestor) const;

    // Every topology entity by name; NVLinks ("r01-n07-g2-l05") are resolved through their GPU
    // so 2.3 M link names need no map of their own. "fleet" names the fleet entity.
    std::optional<std::uint32_t> findByName(std::string_view name) const;
    std::optional<std::uint32_t> findRack(std::string_view name) const;
    std::optional<std::uint32_t> findRegion(std::string_view name) const;
    // The region's racks as the topology lists them; none for anything else.
    const google::protobuf::RepeatedField<std::uint32_t>& racksOfRegion(std::uint32_t regionIndex) const;
    // The name a caller reads: "fleet" for the fleet, "#<index>" for an index the topology lacks.
    std::string nameOf(std::uint32_t index) const;

    std::uint32_t indexLimit() const { return static_cast<std::uint32_t>(entries().size()); }

private:
    // Views into the topology's own strings: no name is copied.
    std::unordered_map<std::string_view, std::uint32_t> byName_;
};

}  // namespace watchfloor::server::service
