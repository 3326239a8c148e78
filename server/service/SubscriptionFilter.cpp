#include "SubscriptionFilter.h"

#include <algorithm>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;

namespace {
std::string quotedList(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "\"" : ", \"") + n + "\"";
    return out;
}
}  // namespace

SubscriptionFilter SubscriptionFilter::everything(DetailTier tier) {
    SubscriptionFilter f;
    f.tier_ = tier;
    f.key_ = "d" + std::to_string(static_cast<int>(tier)) + ":all";
    return f;
}

bool SubscriptionFilter::resolve(const TopologyLookup& index, const std::vector<std::string>& regionNames,
                                 const std::vector<std::string>& rackNames, v1::DetailLevel detail,
                                 SubscriptionFilter* out, FilterError* error) {
    if (regionNames.size() > kMaxFilterNames || rackNames.size() > kMaxFilterNames) {
        *error = {FilterError::Kind::InvalidArgument,
                  "too many filter entries: at most " + std::to_string(kMaxFilterNames) + " region names and " +
                      std::to_string(kMaxFilterNames) + " rack names (got " + std::to_string(regionNames.size()) +
                      " and " + std::to_string(rackNames.size()) + ")"};
        return false;
    }
    if (!v1::DetailLevel_IsValid(detail)) {
        *error = {FilterError::Kind::InvalidArgument, "unknown detail level " + std::to_string(detail)};
        return false;
    }
    SubscriptionFilter f = everything(detailTierOf(detail));
    if (regionNames.empty() && rackNames.empty()) {
        *out = std::move(f);
        return true;
    }
    std::vector<std::string> unknownRegions, unknownRacks;
    std::vector<std::uint32_t> racks;
    for (const auto& name : regionNames) {
        if (auto region = index.findRegion(name)) {
            const auto& rs = index.racksOfRegion(*region);
            racks.insert(racks.end(), rs.begin(), rs.end());
        } else {
            unknownRegions.push_back(name);
        }
    }
    for (const auto& name : rackNames) {
        if (auto rack = index.findRack(name))
            racks.push_back(*rack);
        else
            unknownRacks.push_back(name);
    }
    if (!unknownRegions.empty() || !unknownRacks.empty()) {
        std::string message;
        if (!unknownRegions.empty()) message = "unknown region " + quotedList(unknownRegions);
        if (!unknownRacks.empty())
            message += (message.empty() ? "" : "; ") + std::string("unknown rack ") + quotedList(unknownRacks);
        *error = {FilterError::Kind::NotFound, message};
        return false;
    }
    std::sort(racks.begin(), racks.end());
    racks.erase(std::unique(racks.begin(), racks.end()), racks.end());
    f.allRacks_ = false;
    f.rackSelected_.assign(index.indexLimit(), false);
    f.key_ = "d" + std::to_string(static_cast<int>(f.tier_)) + ":";
    for (std::uint32_t rack : racks) {
        f.rackSelected_[rack] = true;
        f.key_ += std::to_string(rack) + ",";
        const std::uint32_t region = index.regionOf(rack);
        if (region != TopologyLookup::kNone &&
            std::find(f.regions_.begin(), f.regions_.end(), region) == f.regions_.end())
            f.regions_.push_back(region);
    }
    *out = std::move(f);
    return true;
}

bool SubscriptionFilter::selectsEntity(const TopologyLookup& index, std::uint32_t entity) const {
    if (allRacks_) return true;
    const std::uint32_t rack = index.rackOf(entity);
    if (rack != TopologyLookup::kNone) return rack < rackSelected_.size() && rackSelected_[rack];
    if (index.kind(entity) == v1::ENTITY_KIND_REGION)
        return std::find(regions_.begin(), regions_.end(), entity) != regions_.end();
    return true;  // fleet, jobs: fleet-wide context every view needs
}

bool SubscriptionFilter::wantsEvent(const TopologyLookup& index, const v1::Event& event) const {
    if (allRacks_) return true;
    auto inSelection = [&](std::uint32_t e) {
        return index.rackOf(e) != TopologyLookup::kNone ? selectsEntity(index, e) : false;
    };
    if (inSelection(event.entity_index())) return true;
    for (std::uint32_t related : event.related_entity_indexes())
        if (inSelection(related)) return true;
    // Events about fleet-wide things (a job, the fleet) with no rack in another selection.
    if (index.rackOf(event.entity_index()) != TopologyLookup::kNone) return false;
    for (std::uint32_t related : event.related_entity_indexes())
        if (index.rackOf(related) != TopologyLookup::kNone) return false;
    return selectsEntity(index, event.entity_index());
}

}  // namespace watchfloor::server::service
