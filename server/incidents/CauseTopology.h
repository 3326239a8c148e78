#pragma once
// The topology as incident grouping walks it: which tray, rack, region, loop and CDU an entity
// belongs to, which leaf switch a NIC port ends on, which NVLink switch tray a link ends on, and
// the reverse lists (a tray's GPUs, a rack's trays). Flat arrays by entity index: grouping runs
// on the tick thread for every event, thousands a tick when a row's CDU fails.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::server::incidents {

class CauseTopology {
public:
    static constexpr std::uint32_t kNone = UINT32_MAX;

    // Keeps a reference for NVLinks (2.3 M at 1,800 racks, looked up by binary search rather than
    // copied): the topology must outlive this (a FleetSource's is stable for its life).
    explicit CauseTopology(const watchfloor::v1::Topology& topology);

    watchfloor::v1::EntityKind kind(std::uint32_t entity) const;  // UNSPECIFIED for jobs and unknown
    bool known(std::uint32_t entity) const { return kind(entity) != watchfloor::v1::ENTITY_KIND_UNSPECIFIED; }
    std::uint32_t gpuOf(std::uint32_t entity) const;     // a GPU itself, an NVLink's GPU; else kNone
    std::uint32_t trayOf(std::uint32_t entity) const;    // compute tray of a GPU, CPU, NVLink, NIC port, tray
    std::uint32_t rackOf(std::uint32_t entity) const;    // rack of anything at or below rack level
    std::uint32_t regionOf(std::uint32_t entity) const;  // region of a rack or anything inside, or the region
    std::uint32_t loopOfRack(std::uint32_t rack) const;
    std::uint32_t cduOfRack(std::uint32_t rack) const;           // interned CDU id (see cduName)
    std::uint32_t leafOfPort(std::uint32_t nicPort) const;       // interned leaf id, kNone if not a port
    std::uint32_t switchTrayOfLink(std::uint32_t nvlink) const;  // NVLink switch tray, kNone if not a link
    const std::vector<std::uint32_t>& gpusOfTray(std::uint32_t tray) const;
    const std::vector<std::uint32_t>& traysOfRack(std::uint32_t rack) const;
    const std::vector<std::uint32_t>& shelvesOfRack(std::uint32_t rack) const;

    const std::string& name(std::uint32_t entity) const;  // empty for unknown
    const std::string& cduName(std::uint32_t cdu) const;
    const std::string& leafName(std::uint32_t leaf) const;

private:
    struct Entry {
        watchfloor::v1::EntityKind kind = watchfloor::v1::ENTITY_KIND_UNSPECIFIED;
        std::uint32_t gpu = kNone, tray = kNone, rack = kNone, region = kNone;
        std::uint32_t extra = kNone;  // rack: its loop; NIC port: leaf id; NVLink: switch tray
        std::uint32_t list = kNone;   // tray: its GPU list; rack: its tray list (into lists_)
        std::uint32_t cdu = kNone;    // rack: its CDU id
        std::uint32_t list2 = kNone;  // rack: its power shelf list
    };
    const Entry& at(std::uint32_t entity) const;
    const watchfloor::v1::NvLink* link(std::uint32_t entity) const;
    Entry& slot(std::uint32_t entity);
    std::uint32_t intern(std::vector<std::string>& names, const std::string& name);

    const watchfloor::v1::Topology& topology_;
    std::vector<std::uint32_t> linkOrder_;  // positions of NVLinks by index, only if the list is not sorted
    std::vector<Entry> entries_;
    std::vector<std::string> names_;
    std::vector<std::vector<std::uint32_t>> lists_;
    std::vector<std::string> cduNames_;
    std::vector<std::string> leafNames_;
};

}  // namespace watchfloor::server::incidents
