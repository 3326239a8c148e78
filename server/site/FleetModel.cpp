#include "FleetModel.h"

#include "Rng.h"

#include <cstdio>
#include <cstdlib>

namespace watchfloor::server {
namespace {

using namespace watchfloor::v1;

constexpr std::uint32_t kTraysPerLeaf = 32;  // rail-optimised leaf: 32 downlinks of one rail

std::string twoDigits(std::uint32_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "%02u", value);
    return text;
}

std::string gpuUuid(std::uint32_t gpuOrdinal) {
    std::uint64_t state = 0x6A09E667F3BCC909ull + gpuOrdinal;
    const std::uint64_t a = splitmix64(state);
    const std::uint64_t b = splitmix64(state);
    char text[48];
    std::snprintf(text, sizeof text, "GPU-%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                  static_cast<unsigned>((a >> 16) & 0xFFFF), static_cast<unsigned>(a & 0xFFFF),
                  static_cast<unsigned>(b >> 48), static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
    return text;
}

// Parses "-<prefix><digits>" at `pos`; returns the number and advances `pos`.
std::optional<std::uint32_t> takeField(const std::string& name, std::size_t& pos, const char* prefix) {
    const std::string expected = std::string("-") + prefix;
    if (name.compare(pos, expected.size(), expected) != 0) return std::nullopt;
    std::size_t i = pos + expected.size();
    const std::size_t digitsStart = i;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
    if (i == digitsStart || i - digitsStart > 6) return std::nullopt;
    pos = i;
    return static_cast<std::uint32_t>(std::strtoul(name.substr(digitsStart, i - digitsStart).c_str(), nullptr, 10));
}

}  // namespace

FleetModel::FleetModel(const FleetSpec& spec, std::uint32_t jobCount) {
    regionCount_ = static_cast<std::uint32_t>(spec.regions.size());
    rackCount_ = static_cast<std::uint32_t>(spec.racks.size());
    std::uint32_t next = 1;  // 0 is the fleet
    auto block = [&next](std::uint32_t count) {
        const std::uint32_t base = next;
        next += count;
        return base;
    };
    regionBase_ = block(regionCount_);
    rackBase_ = block(rackCount_);
    loopBase_ = block(rackCount_);
    shelfBase_ = block(rackCount_ * kPowerShelvesPerRack);
    switchBase_ = block(rackCount_ * kSwitchTraysPerRack);
    trayBase_ = block(trays());
    cpuBase_ = block(cpus());
    gpuBase_ = block(gpus());
    nicBase_ = block(nics());
    linkBase_ = block(links());
    jobBase_ = block(jobCount);

    auto& topo = topology_;
    topo.set_fleet_name(spec.fleetName);
    topo.set_fleet_index(fleetIndex());
    for (const auto& domain : spec.hostDomains) topo.add_host_domains(domain);
    topo.mutable_regions()->Reserve(static_cast<int>(regionCount_));
    topo.mutable_racks()->Reserve(static_cast<int>(rackCount_));
    topo.mutable_cooling_loops()->Reserve(static_cast<int>(rackCount_));
    topo.mutable_power_shelves()->Reserve(static_cast<int>(rackCount_ * kPowerShelvesPerRack));
    topo.mutable_nvswitch_trays()->Reserve(static_cast<int>(rackCount_ * kSwitchTraysPerRack));
    topo.mutable_nodes()->Reserve(static_cast<int>(trays()));
    topo.mutable_cpus()->Reserve(static_cast<int>(cpus()));
    topo.mutable_gpus()->Reserve(static_cast<int>(gpus()));
    topo.mutable_nic_ports()->Reserve(static_cast<int>(nics()));
    topo.mutable_nvlinks()->Reserve(static_cast<int>(links()));

    for (std::uint32_t r = 0; r < regionCount_; ++r) {
        auto* region = topo.add_regions();
        region->set_index(regionIndex(r));
        region->set_name(spec.regions[r].name);
        regionByName_[spec.regions[r].name] = r;
    }

    std::map<std::string, std::uint32_t> cduByName;
    std::vector<std::uint32_t> traysInRegion(regionCount_, 0);
    for (std::uint32_t r = 0; r < rackCount_; ++r) {
        const RackSpec& rs = spec.racks[r];
        rackByName_[rs.name] = r;
        rackRegion_.push_back(rs.region);
        topo.mutable_regions(static_cast<int>(rs.region))->add_rack_indexes(rackIndex(r));
        const std::string& regionName = spec.regions[rs.region].name;
        // The fleet file may name the CDU as the facility's Redfish service does (cdu=).
        const std::string cdu =
            rs.cdu.empty() ? "cdu-" + regionName + "-" + rs.hall + "-row" + twoDigits(rs.row) : rs.cdu;
        const auto [cduIt, added] = cduByName.emplace(cdu, static_cast<std::uint32_t>(cduNames_.size()));
        if (added) cduNames_.push_back(cdu);
        rackCdu_.push_back(cduIt->second);

        auto* rack = topo.add_racks();
        rack->set_index(rackIndex(r));
        rack->set_name(rs.name);
        rack->set_region_index(regionIndex(rs.region));
        rack->set_hall(rs.hall);
        rack->set_row(rs.row);
        rack->set_position(rs.position);
        rack->set_cooling_loop_index(loopIndex(r));
        rack->set_design_power_kw(rs.designPowerKw);

        auto* loop = topo.add_cooling_loops();
        loop->set_index(loopIndex(r));
        loop->set_name(rs.name + "-loop");
        loop->set_rack_index(rackIndex(r));
        loop->set_cdu_name(cdu);
        loop->set_supply_setpoint_c(rs.supplySetpointC);
        loop->set_design_flow_lpm(kFlowLpmPerKw * rs.designPowerKw);
        loop->set_leak_sensor_count(kLeakSensorsPerLoop);

        for (std::uint32_t p = 0; p < kPowerShelvesPerRack; ++p) {
            const std::uint32_t ordinal = r * kPowerShelvesPerRack + p;
            auto* shelf = topo.add_power_shelves();
            shelf->set_index(shelfBase_ + ordinal);
            shelf->set_name(rs.name + "-ps" + std::to_string(p + 1));
            shelf->set_rack_index(rackIndex(r));
            shelf->set_capacity_kw(kPowerShelfCapacityKw);
            rack->add_power_shelf_indexes(shelfBase_ + ordinal);
        }
        for (std::uint32_t s = 0; s < kSwitchTraysPerRack; ++s) {
            const std::uint32_t ordinal = r * kSwitchTraysPerRack + s;
            auto* sw = topo.add_nvswitch_trays();
            sw->set_index(switchBase_ + ordinal);
            sw->set_name(rs.name + "-s" + std::to_string(s + 1));
            sw->set_rack_index(rackIndex(r));
            sw->set_slot(s + 1);
            rack->add_nvswitch_tray_indexes(switchBase_ + ordinal);
        }
        for (std::uint32_t slot = 0; slot < kTraysPerRack; ++slot) {
            const std::uint32_t t = r * kTraysPerRack + slot;
            const std::string trayName = rs.name + "-n" + twoDigits(slot + 1);
            auto* node = topo.add_nodes();
            node->set_index(trayIndex(t));
            node->set_name(trayName);
            node->set_hostname(rs.hosts.empty() ? trayName : rs.hosts[slot]);
            if (!rs.addresses.empty()) node->set_address(rs.addresses[slot]);
            if (!rs.bmcs.empty()) node->set_bmc(rs.bmcs[slot]);
            node->set_rack_index(rackIndex(r));
            node->set_slot(slot + 1);
            rack->add_node_indexes(trayIndex(t));
            for (std::uint32_t c = 0; c < kCpusPerTray; ++c) {
                const std::uint32_t ordinal = t * kCpusPerTray + c;
                auto* cpu = topo.add_cpus();
                cpu->set_index(cpuIndex(ordinal));
                cpu->set_name(trayName + "-c" + std::to_string(c));
                cpu->set_node_index(trayIndex(t));
                node->add_cpu_indexes(cpuIndex(ordinal));
            }
            const std::uint32_t trayInRegion = traysInRegion[rs.region]++;
            for (std::uint32_t k = 0; k < kGpusPerTray; ++k) {
                const std::uint32_t g = t * kGpusPerTray + k;
                const std::string gpuName = trayName + "-g" + std::to_string(k);
                auto* gpu = topo.add_gpus();
                gpu->set_index(gpuIndex(g));
                gpu->set_name(gpuName);
                gpu->set_node_index(trayIndex(t));
                gpu->set_local_id(k);
                gpu->set_dcgm_gpu_index(rs.layout.dcgmGpuIndex[k]);
                gpu->set_uuid(gpuUuid(g));
                gpu->set_model_name("NVIDIA GB200");
                gpu->set_slowdown_temp_c(87.0);
                gpu->set_shutdown_temp_c(92.0);
                gpu->set_power_limit_w(1200.0);
                node->add_gpu_indexes(gpuIndex(g));
                const std::uint32_t gpuInRack = slot * kGpusPerTray + k;
                for (std::uint32_t l = 0; l < kLinksPerGpu; ++l) {
                    const std::uint32_t ordinal = g * kLinksPerGpu + l;
                    auto* link = topo.add_nvlinks();
                    link->set_index(linkIndex(ordinal));
                    link->set_name(gpuName + "-l" + twoDigits(l));
                    link->set_gpu_index(gpuIndex(g));
                    link->set_link_id(l);
                    // Two links of every GPU land on each switch tray, one per NVSwitch chip:
                    // 72 GPUs x 2 = 144 ports per tray.
                    link->set_nvswitch_tray_index(switchBase_ + r * kSwitchTraysPerRack + l / 2);
                    link->set_switch_port(gpuInRack * 2 + l % 2 + 1);
                    gpu->add_nvlink_indexes(linkIndex(ordinal));
                }
                const std::uint32_t n = t * kNicPortsPerTray + k;
                auto* nic = topo.add_nic_ports();
                nic->set_index(nicIndex(n));
                nic->set_name(trayName + "-ib" + std::to_string(k));
                nic->set_node_index(trayIndex(t));
                nic->set_port_id(k);
                nic->set_rail(k);
                nic->set_switch_name("leaf-" + regionName + "-rail" + std::to_string(k) + "-" +
                                     twoDigits(trayInRegion / kTraysPerLeaf + 1));
                nic->set_switch_port(trayInRegion % kTraysPerLeaf + 1);
                nic->set_link_rate_gbps(400.0);
                nic->set_host_device(rs.layout.nics[k].device);
                nic->set_host_port(rs.layout.nics[k].port);
                node->add_nic_port_indexes(nicIndex(n));
            }
        }
    }
}

std::optional<EntityRef> FleetModel::find(const std::string& name) const {
    if (name == "fleet") return EntityRef{ENTITY_KIND_FLEET, 0};
    if (const auto it = regionByName_.find(name); it != regionByName_.end())
        return EntityRef{ENTITY_KIND_REGION, it->second};
    const auto dash = name.find('-');
    const auto rackIt = rackByName_.find(name.substr(0, dash));
    if (rackIt == rackByName_.end()) return std::nullopt;
    const std::uint32_t r = rackIt->second;
    if (dash == std::string::npos) return EntityRef{ENTITY_KIND_RACK, r};
    std::size_t pos = dash;
    if (name.compare(pos, std::string::npos, "-loop") == 0) return EntityRef{ENTITY_KIND_COOLING_LOOP, r};
    const auto slot = takeField(name, pos, "n");
    if (!slot || *slot < 1 || *slot > kTraysPerRack) return std::nullopt;
    const std::uint32_t t = r * kTraysPerRack + *slot - 1;
    if (pos == name.size()) return EntityRef{ENTITY_KIND_NODE, t};
    std::size_t nicPos = pos;
    if (const auto port = takeField(name, nicPos, "ib"); port && nicPos == name.size() && *port < kNicPortsPerTray)
        return EntityRef{ENTITY_KIND_NIC_PORT, t * kNicPortsPerTray + *port};
    std::size_t cpuPos = pos;
    if (const auto c = takeField(name, cpuPos, "c"); c && cpuPos == name.size() && *c < kCpusPerTray)
        return EntityRef{ENTITY_KIND_CPU, t * kCpusPerTray + *c};
    const auto k = takeField(name, pos, "g");
    if (!k || *k >= kGpusPerTray) return std::nullopt;
    const std::uint32_t g = t * kGpusPerTray + *k;
    if (pos == name.size()) return EntityRef{ENTITY_KIND_GPU, g};
    const auto l = takeField(name, pos, "l");
    if (!l || *l >= kLinksPerGpu || pos != name.size()) return std::nullopt;
    return EntityRef{ENTITY_KIND_NVLINK, g * kLinksPerGpu + *l};
}

std::vector<std::string> FleetModel::rackNames() const {
    std::vector<std::string> names;
    for (const auto& rack : topology_.racks()) names.push_back(rack.name());
    return names;
}

std::vector<std::string> FleetModel::trayNames() const {
    std::vector<std::string> names;
    for (const auto& node : topology_.nodes()) names.push_back(node.name());
    return names;
}

}  // namespace watchfloor::server
