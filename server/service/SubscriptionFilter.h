#pragma once
// What one subscriber asked to see: a detail tier and, optionally, a set of racks (named racks
// plus every rack of the named regions). Resolved once per Subscribe; applied per value.

#include "TopologyLookup.h"

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::server::service {

// Lists longer than this are refused: they are typos or abuse, not a console's filter.
inline constexpr int kMaxFilterNames = 2048;

struct FilterError {
    enum class Kind { InvalidArgument, NotFound } kind = Kind::InvalidArgument;
    std::string message;
};

class SubscriptionFilter {
public:
    // Everything at the given tier.
    static SubscriptionFilter everything(DetailTier tier = DetailTier::Full);
    // Fails (returns false, fills `error`) for unknown names or oversized lists.
    static bool resolve(const TopologyLookup& index, const std::vector<std::string>& regionNames,
                        const std::vector<std::string>& rackNames, watchfloor::v1::DetailLevel detail,
                        SubscriptionFilter* out, FilterError* error);

    DetailTier tier() const { return tier_; }
    bool allRacks() const { return allRacks_; }
    // Identifies equal filters, so deltas are filtered and encoded once per distinct filter.
    const std::string& key() const { return key_; }

    // Rack filter only: does this entity belong to the selection? Entities above rack level
    // (fleet, jobs) always do; regions do when they hold a selected rack.
    bool selectsEntity(const TopologyLookup& index, std::uint32_t entity) const;
    // Rack filter and detail tier: should this entity's values be sent?
    bool wantsValuesOf(const TopologyLookup& index, std::uint32_t entity) const {
        return detailTierOf(index.kind(entity)) <= tier_ && selectsEntity(index, entity);
    }
    bool wantsEvent(const TopologyLookup& index, const watchfloor::v1::Event& event) const;
    bool passesEverything() const { return allRacks_ && tier_ == DetailTier::Full; }

private:
    DetailTier tier_ = DetailTier::Full;
    bool allRacks_ = true;
    std::vector<bool> rackSelected_;      // by entity index
    std::vector<std::uint32_t> regions_;  // regions holding a selected rack
    std::string key_;
};

}  // namespace watchfloor::server::service
