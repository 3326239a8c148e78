#include "CoolingMap.h"

#include <set>
#include <unordered_map>

namespace watchfloor::server::redfish {

namespace v1 = watchfloor::v1;

CoolingMap::CoolingMap(const v1::Topology& topology, const server::FleetSpec* spec) {
    std::unordered_map<std::string, const server::RackSpec*> specOf;
    if (spec)
        for (const auto& rack : spec->racks) specOf[rack.name] = &rack;
    std::unordered_map<std::uint32_t, const v1::CoolingLoop*> loopOf;
    for (const auto& loop : topology.cooling_loops()) loopOf[loop.rack_index()] = &loop;
    for (const auto& rack : topology.racks()) {
        const auto loop = loopOf.find(rack.index());
        if (loop == loopOf.end()) continue;
        RackCooling c;
        c.rackIndex = rack.index();
        c.loopIndex = loop->second->index();
        c.rackName = rack.name();
        c.cdu = loop->second->cdu_name();
        const auto s = specOf.find(rack.name());
        const server::RackSpec* rs = s == specOf.end() ? nullptr : s->second;
        c.connector = rs && !rs->coolantConnector.empty() ? rs->coolantConnector : rack.name();
        c.leakDetectors = rs && !rs->leakDetectors.empty()
                              ? rs->leakDetectors
                              : std::vector<std::string>{rack.name() + "-manifold", rack.name() + "-drip"};
        const std::size_t at = racks_.size();
        byConnector_.emplace(std::pair{c.cdu, c.connector}, at);
        for (const auto& d : c.leakDetectors) byDetector_.emplace(std::pair{c.cdu, d}, at);
        racks_.push_back(std::move(c));
    }
}

std::vector<std::string> CoolingMap::cdus() const {
    std::set<std::string> names;
    for (const auto& r : racks_) names.insert(r.cdu);
    return {names.begin(), names.end()};
}

std::vector<const RackCooling*> CoolingMap::racksOf(const std::string& cdu) const {
    std::vector<const RackCooling*> result;
    for (const auto& r : racks_)
        if (r.cdu == cdu) result.push_back(&r);
    return result;
}

const RackCooling* CoolingMap::byConnector(const std::string& cdu, const std::string& connector) const {
    const auto it = byConnector_.find({cdu, connector});
    return it == byConnector_.end() ? nullptr : &racks_[it->second];
}

const RackCooling* CoolingMap::byDetector(const std::string& cdu, const std::string& detector) const {
    const auto it = byDetector_.find({cdu, detector});
    return it == byDetector_.end() ? nullptr : &racks_[it->second];
}

}  // namespace watchfloor::server::redfish
