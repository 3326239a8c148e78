// proto/TopologyEntities, the entity index fleetd's incident grouping and the console both stand
// on: every question on a small hand-built fleet (two regions, three racks, every kind of entity),
// the answers a parent walk gives for every entity, a STANDARD topology that lists links it omits,
// NVLinks out of index order, malformed topologies (an index used twice, one out of range: the
// fault named, the rest still indexed), the fleet index never shadowing a real entity, a borrowed
// topology left uncopied, and entities a subclass places outside the topology (the console's jobs).
// A plain test (no Qt): proto/ is Qt-free.

#include "TopologyEntities.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace v1 = watchfloor::v1;
using watchfloor::proto::TopologyEntities;
constexpr std::uint32_t kNone = TopologyEntities::kNone;

int failures = 0;

void check(bool ok, const std::string& what) {
    std::cout << (ok ? "PASS: " : "FAIL: ") << what << std::endl;
    failures += ok ? 0 : 1;
}

template <typename T>
void same(const T& got, const T& want, const std::string& what) {
    check(got == want, what);
}

using Indexes = std::vector<std::uint32_t>;

// Fleet 500 "testfleet"; regions 1 (r01, r02) and 2 (r03); racks 10 + r, loops 20 + r, power
// shelves 30 + r, switch trays 40 + r; two trays per rack, 100 + 2r + t; one GPU per tray, 200 +
// tray slot; one CPU per tray, 300 + tray slot; one NIC port per tray, 400 + tray slot; two
// NVLinks per GPU, 1000 + 2 * GPU slot + l, listed in `linkOrder` (highest index first when
// reversed); NIC ports and NVLinks only when `full` (DETAIL_LEVEL_FULL).
v1::Topology makeFleet(bool full, bool reversedLinks = false) {
    v1::Topology t;
    t.set_fleet_name("testfleet");
    t.set_fleet_index(500);
    for (std::uint32_t g = 1; g <= 2; ++g) {
        auto* region = t.add_regions();
        region->set_index(g);
        region->set_name(g == 1 ? "us-east" : "us-west");
    }
    std::vector<v1::NvLink> links;
    for (std::uint32_t r = 0; r < 3; ++r) {
        const std::string rackName = "r0" + std::to_string(r + 1);
        auto* rack = t.add_racks();
        rack->set_index(10 + r);
        rack->set_name(rackName);
        rack->set_region_index(r < 2 ? 1 : 2);
        rack->set_cooling_loop_index(20 + r);
        t.mutable_regions(r < 2 ? 0 : 1)->add_rack_indexes(10 + r);
        auto* loop = t.add_cooling_loops();
        loop->set_index(20 + r);
        loop->set_name(rackName + "-loop");
        loop->set_rack_index(10 + r);
        auto* shelf = t.add_power_shelves();
        shelf->set_index(30 + r);
        shelf->set_name(rackName + "-ps1");
        shelf->set_rack_index(10 + r);
        rack->add_power_shelf_indexes(30 + r);
        auto* sw = t.add_nvswitch_trays();
        sw->set_index(40 + r);
        sw->set_name(rackName + "-s1");
        sw->set_rack_index(10 + r);
        rack->add_nvswitch_tray_indexes(40 + r);
        for (std::uint32_t k = 0; k < 2; ++k) {
            const std::uint32_t tray = 2 * r + k;
            auto* node = t.add_nodes();
            node->set_index(100 + tray);
            node->set_name(rackName + "-n0" + std::to_string(k + 1));
            node->set_rack_index(10 + r);
            rack->add_node_indexes(100 + tray);
            auto* gpu = t.add_gpus();
            gpu->set_index(200 + tray);
            gpu->set_name(node->name() + "-g0");
            gpu->set_node_index(100 + tray);
            node->add_gpu_indexes(200 + tray);
            auto* cpu = t.add_cpus();
            cpu->set_index(300 + tray);
            cpu->set_name(node->name() + "-c0");
            cpu->set_node_index(100 + tray);
            node->add_cpu_indexes(300 + tray);
            node->add_nic_port_indexes(400 + tray);
            if (full) {
                auto* port = t.add_nic_ports();
                port->set_index(400 + tray);
                port->set_name(node->name() + "-ib0");
                port->set_node_index(100 + tray);
            }
            for (std::uint32_t l = 0; l < 2; ++l) {
                v1::NvLink link;
                link.set_index(1000 + 2 * tray + l);
                link.set_name(gpu->name() + "-l0" + std::to_string(l));
                link.set_gpu_index(gpu->index());
                link.set_nvswitch_tray_index(40 + r);
                gpu->add_nvlink_indexes(link.index());
                links.push_back(link);
            }
        }
    }
    if (reversedLinks) std::reverse(links.begin(), links.end());
    if (full)
        for (const auto& link : links) *t.add_nvlinks() = link;
    return t;
}

std::shared_ptr<const v1::Topology> shared(v1::Topology t) {
    return std::make_shared<const v1::Topology>(std::move(t));
}

void everyQuestion() {
    TopologyEntities e;
    std::string error;
    check(e.rebuild(shared(makeFleet(true)), &error), "the fleet indexes " + error);

    same(e.kind(500), v1::ENTITY_KIND_FLEET, "500 is the fleet");
    same(e.kind(2), v1::ENTITY_KIND_REGION, "2 is a region");
    same(e.kind(11), v1::ENTITY_KIND_RACK, "11 is a rack");
    same(e.kind(21), v1::ENTITY_KIND_COOLING_LOOP, "21 is a loop");
    same(e.kind(31), v1::ENTITY_KIND_POWER_SHELF, "31 is a power shelf");
    same(e.kind(41), v1::ENTITY_KIND_NVSWITCH_TRAY, "41 is a switch tray");
    same(e.kind(103), v1::ENTITY_KIND_NODE, "103 is a tray");
    same(e.kind(203), v1::ENTITY_KIND_GPU, "203 is a GPU");
    same(e.kind(303), v1::ENTITY_KIND_CPU, "303 is a CPU");
    same(e.kind(403), v1::ENTITY_KIND_NIC_PORT, "403 is a NIC port");
    same(e.kind(1007), v1::ENTITY_KIND_NVLINK, "1007 is an NVLink");
    same(e.kind(0), v1::ENTITY_KIND_UNSPECIFIED, "0 is nothing");
    same(e.kind(999), v1::ENTITY_KIND_UNSPECIFIED, "999 is nothing");
    same(e.kind(kNone), v1::ENTITY_KIND_UNSPECIFIED, "kNone is nothing");
    check(e.known(203) && !e.known(999) && e.find(999) == nullptr, "known and find agree");

    same(e.count(v1::ENTITY_KIND_RACK), 3u, "3 racks");
    same(e.count(v1::ENTITY_KIND_NODE), 6u, "6 trays");
    same(e.count(v1::ENTITY_KIND_NVLINK), 12u, "12 NVLinks");
    same(e.count(v1::ENTITY_KIND_FLEET), 1u, "1 fleet");
    same(e.count(v1::ENTITY_KIND_JOB), 0u, "no jobs");
    same(e.entries().size(), std::size_t(1012), "one entry per index up to the highest");

    same(std::uint32_t(e.find(203)->slot), 3u, "the 4th GPU is at slot 3");
    same(e.find(203)->rackSlot, 1u, "the 4th GPU is in the 2nd rack");
    same(e.find(1007)->rackSlot, 1u, "its links too");
    same(e.find(2)->rackSlot, kNone, "a region is in no rack");
    same(e.find(500)->rackSlot, kNone, "nor is the fleet");

    same(e.name(500), std::string("testfleet"), "the fleet's name is the topology's fleet_name");
    same(e.name(2), std::string("us-west"), "a region's name");
    same(e.name(1007), std::string("r02-n02-g0-l01"), "an NVLink's name");
    same(e.name(403), std::string("r02-n02-ib0"), "a NIC port's name");
    same(e.name(999), std::string(), "no name for nothing");

    same(e.parent(2), 500u, "a region's parent is the fleet");
    same(e.parent(11), 1u, "a rack's parent is its region");
    same(e.parent(21), 11u, "a loop's parent is its rack");
    same(e.parent(203), 103u, "a GPU's parent is its tray");
    same(e.parent(1007), 203u, "an NVLink's parent is its GPU");
    same(e.parent(500), kNone, "the fleet has no parent");

    same(e.gpuOf(203), 203u, "a GPU is its own GPU");
    same(e.gpuOf(1007), 203u, "an NVLink's GPU");
    same(e.gpuOf(103), kNone, "a tray has no single GPU");

    same(e.trayOf(103), 103u, "a tray is its own tray");
    same(e.trayOf(203), 103u, "a GPU's tray");
    same(e.trayOf(303), 103u, "a CPU's tray");
    same(e.trayOf(403), 103u, "a NIC port's tray");
    same(e.trayOf(1007), 103u, "an NVLink's tray, through its GPU");
    same(e.trayOf(11), kNone, "a rack is in no tray");
    same(e.trayOf(41), kNone, "nor is a switch tray");

    same(e.rackOf(11), 11u, "a rack is its own rack");
    same(e.rackOf(21), 11u, "a loop's rack");
    same(e.rackOf(31), 11u, "a power shelf's rack");
    same(e.rackOf(41), 11u, "a switch tray's rack");
    same(e.rackOf(1007), 11u, "an NVLink's rack");
    same(e.rackOf(2), kNone, "a region is in no rack");
    same(e.rackOf(999), kNone, "nothing is in no rack");

    same(e.regionOf(2), 2u, "a region is its own region");
    same(e.regionOf(12), 2u, "a rack's region");
    same(e.regionOf(1011), 2u, "an NVLink's region, through its rack");
    same(e.regionOf(500), kNone, "the fleet is in no region");

    same(e.rackIndexAt(2), 12u, "the 3rd rack is 12");
    same(e.indexAt(v1::ENTITY_KIND_GPU, 3), 203u, "GPU slot 3 is 203");
    same(e.indexAt(v1::ENTITY_KIND_NVLINK, 7), 1007u, "NVLink slot 7 is 1007");
    same(e.indexAt(v1::ENTITY_KIND_FLEET, 0), 500u, "the fleet's index");
    same(e.indexAt(v1::ENTITY_KIND_RACK, 3), kNone, "no 4th rack");
    same(e.indexAt(v1::ENTITY_KIND_JOB, 0), kNone, "no jobs in a topology");

    same(e.children(500), Indexes{1, 2}, "the fleet holds its regions");
    same(e.children(1), Indexes{10, 11}, "a region holds its racks");
    same(e.children(11), Indexes{102, 103, 41, 31, 21}, "a rack holds trays, switch tray, shelf and loop");
    same(e.children(103), Indexes{203, 303, 403}, "a tray holds its GPU, CPU and NIC port");
    same(e.children(203), Indexes{1006, 1007}, "a GPU holds its NVLinks");
    same(e.children(1007), Indexes{}, "an NVLink holds nothing");

    check(e.rack(11) && e.rack(11)->name() == "r02", "the record of rack 11");
    check(e.node(103) && e.node(103)->name() == "r02-n02", "the record of tray 103");
    check(e.gpu(203) && e.gpu(203)->node_index() == 103, "the record of GPU 203");
    check(e.nvlink(1007) && e.nvlink(1007)->nvswitch_tray_index() == 41, "the record of NVLink 1007");
    check(!e.rack(103) && !e.node(11) && !e.gpu(1007) && !e.nvlink(203) && !e.rack(999),
          "no record for another kind or nothing");
}

// What the table answers must be what walking the parents answers, for every entity.
void agreesWithParentWalk() {
    TopologyEntities e;
    std::string error;
    check(e.rebuild(shared(makeFleet(true)), &error), "the fleet indexes " + error);
    auto walkTo = [&e](std::uint32_t index, v1::EntityKind kind) {
        for (std::uint32_t at = index; at != kNone; at = e.parent(at))
            if (e.kind(at) == kind) return at;
        return kNone;
    };
    int checked = 0, wrong = 0;
    for (std::uint32_t index = 0; index < e.entries().size(); ++index) {
        if (!e.known(index)) continue;
        ++checked;
        wrong += e.rackOf(index) != walkTo(index, v1::ENTITY_KIND_RACK);
        wrong += e.regionOf(index) != walkTo(index, v1::ENTITY_KIND_REGION);
        wrong += e.trayOf(index) != walkTo(index, v1::ENTITY_KIND_NODE);
        wrong += e.gpuOf(index) != walkTo(index, v1::ENTITY_KIND_GPU);
        wrong += e.indexAt(e.kind(index), e.find(index)->slot) != index;
        for (std::uint32_t child : e.children(index)) wrong += e.parent(child) != index;
    }
    check(checked == 51 && wrong == 0, "rack, region, tray, GPU, slot and children agree with the parents for " +
                                           std::to_string(checked) + " entities (" + std::to_string(wrong) + " wrong)");
}

void standardTopology() {
    TopologyEntities e;
    std::string error;
    check(e.rebuild(shared(makeFleet(false)), &error), "a STANDARD topology indexes " + error);
    same(e.kind(1007), v1::ENTITY_KIND_UNSPECIFIED, "it has no NVLinks");
    same(e.children(203), Indexes{}, "a GPU lists links the topology omits: none are children");
    same(e.children(103), Indexes{203, 303}, "nor NIC ports");
    same(e.entries().size(), std::size_t(501), "the table ends at the fleet, the highest index listed");
}

void linksOutOfOrder() {
    TopologyEntities e;
    std::string error;
    check(e.rebuild(shared(makeFleet(true, true)), &error), "NVLinks listed highest index first " + error);
    same(e.indexAt(v1::ENTITY_KIND_NVLINK, 0), 1011u, "slot 0 is the first listed, 1011");
    same(std::uint32_t(e.find(1000)->slot), 11u, "1000 is the last listed");
    same(e.trayOf(1000), 100u, "its tray");
    same(e.rackOf(1011), 12u, "and 1011's rack");
    same(e.name(1000), std::string("r01-n01-g0-l00"), "and its name");
}

void malformed() {
    {
        v1::Topology t = makeFleet(true);
        t.mutable_cpus(1)->set_index(203);  // a GPU's index
        TopologyEntities e;
        std::string error;
        check(!e.rebuild(shared(std::move(t)), &error), "an index used twice is refused");
        same(error, std::string("entity index 203 is used twice"), "and named: " + error);
        same(e.kind(203), v1::ENTITY_KIND_GPU, "the first entity keeps the index");
        same(e.trayOf(203), 103u, "and its place");
        same(e.kind(304), v1::ENTITY_KIND_CPU, "the entities after the fault are indexed all the same");
        same(e.rackOf(1011), 12u, "with their racks");
    }
    {
        v1::Topology t = makeFleet(false);
        t.mutable_gpus(0)->set_index(64u * 1024u * 1024u);
        TopologyEntities e;
        std::string error;
        check(!e.rebuild(shared(std::move(t)), &error), "an index past the span is refused");
        same(error, std::string("entity index 67108864 is out of range"), "and named: " + error);
        same(e.entries().size(), std::size_t(501), "without a table to match it");
        same(e.rackOf(201), 10u, "the other GPUs keep their racks");
    }
}

void fleetNeverShadows() {
    v1::Topology t = makeFleet(false);
    t.set_fleet_index(11);  // a rack's index, as a minimal topology leaves it unset at 0
    TopologyEntities e;
    std::string error;
    check(e.rebuild(shared(std::move(t)), &error), "a fleet index a rack holds is no fault " + error);
    same(e.kind(11), v1::ENTITY_KIND_RACK, "the rack keeps it");
    same(e.count(v1::ENTITY_KIND_FLEET), 0u, "and no fleet is counted");
}

void borrowedTopology() {
    const v1::Topology t = makeFleet(true);
    TopologyEntities e;
    std::string error;
    check(e.rebuild(TopologyEntities::borrowed(t), &error), "a borrowed topology indexes " + error);
    check(&e.topology() == &t, "and is read where it is, not copied");
    check(&e.name(1007) == &t.nvlinks(7).name(), "names are the topology's own strings");
}

// The console places its jobs, from Job messages, in the same table.
class WithJobs : public TopologyEntities {
public:
    bool addJob(std::uint32_t index, std::uint32_t slot) { return place(index, v1::ENTITY_KIND_JOB, slot, nullptr); }
    void dropJobs(const Indexes& indexes) { unplace(v1::ENTITY_KIND_JOB, indexes); }
};

void placedOutsideTheTopology() {
    WithJobs e;
    std::string error;
    check(e.rebuild(shared(makeFleet(false)), &error), "the fleet indexes " + error);
    check(e.addJob(600, 0) && e.addJob(2000, 1), "two jobs placed, one past the table's end");
    check(!e.addJob(203, 2), "not over a GPU");
    same(e.kind(2000), v1::ENTITY_KIND_JOB, "2000 is a job");
    same(e.count(v1::ENTITY_KIND_JOB), 2u, "2 jobs");
    same(e.parent(600), 500u, "a job's parent is the fleet");
    same(e.rackOf(600), kNone, "a job is in no rack");
    same(e.name(600), std::string(), "a job's name is not the topology's");
    e.dropJobs({600, 2000, 203});
    same(e.kind(600), v1::ENTITY_KIND_UNSPECIFIED, "dropped jobs are gone");
    same(e.kind(203), v1::ENTITY_KIND_GPU, "a GPU among them stays");
    same(e.count(v1::ENTITY_KIND_JOB), 0u, "no jobs counted");
    check(e.rebuild(shared(makeFleet(false)), &error) && e.kind(2000) == v1::ENTITY_KIND_UNSPECIFIED,
          "a rebuild starts from the topology alone");
}

}  // namespace

int main() {
    everyQuestion();
    agreesWithParentWalk();
    standardTopology();
    linksOutOfOrder();
    malformed();
    fleetNeverShadows();
    borrowedTopology();
    placedOutsideTheTopology();
    std::cout << (failures == 0 ? "all passed" : std::to_string(failures) + " failed") << std::endl;
    return failures == 0 ? 0 : 1;
}
