#include "FleetSpec.h"

#include "Hostlist.h"
#include "LineParser.h"
#include "TrainingModels.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace watchfloor::server {
namespace {

constexpr std::uint32_t kRacksPerRow = 10;
constexpr std::uint32_t kRowsPerHall = 20;
constexpr std::uint32_t kMaxRacks = 100'000;
constexpr std::size_t kTraysPerRackSpec = 18;  // NVL72: 18 compute trays (FleetModel's kTraysPerRack)

// "a,b,c" → {"a", "b", "c"}; an empty item stays (and is refused by the caller).
std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) return items;
        start = comma + 1;
    }
}

std::string regionName(std::uint32_t i) {
    static const char* const names[] = {"us-east",      "us-west",      "eu-central", "eu-west",
                                        "ap-northeast", "ap-southeast", "us-central", "sa-east"};
    if (i < std::size(names)) return names[i];
    return "region-" + std::to_string(i + 1);
}

std::string paddedRackName(std::size_t ordinal, std::size_t count) {
    const std::size_t width = std::max<std::size_t>(2, std::to_string(count).size());
    std::string digits = std::to_string(ordinal);
    return "r" + std::string(width - std::min(width, digits.size()), '0') + digits;
}

// Racks without a name get "r" + their ordinal, padded to the rack count; rows and positions
// not given are laid out 10 to a row within their region and hall.
bool finishRackLayout(FleetSpec& spec, ConfigError* error) {
    std::set<std::string> used;
    for (const auto& rack : spec.racks)
        if (!rack.name.empty()) used.insert(rack.name);
    std::size_t ordinal = 0;
    for (auto& rack : spec.racks) {
        ++ordinal;
        if (!rack.name.empty()) continue;
        rack.name = paddedRackName(ordinal, spec.racks.size());
        if (!used.insert(rack.name).second) {
            if (error)
                *error = {spec.sourceFile, 0, "generated rack name '" + rack.name + "' collides with a named rack"};
            return false;
        }
    }
    return true;
}

}  // namespace

FleetSpec generatedFleetSpec(std::uint32_t regions, std::uint32_t racks) {
    FleetSpec spec;
    regions = std::max<std::uint32_t>(1, regions);
    racks = std::clamp<std::uint32_t>(racks, 1, kMaxRacks);
    regions = std::min(regions, racks);
    for (std::uint32_t r = 0; r < regions; ++r) spec.regions.push_back({regionName(r)});
    for (std::uint32_t r = 0; r < regions; ++r) {
        // The first regions take the remainder: 7 racks over 2 regions = 4 + 3.
        const std::uint32_t count = racks / regions + (r < racks % regions ? 1 : 0);
        for (std::uint32_t k = 0; k < count; ++k) {
            RackSpec rack;
            rack.region = r;
            const std::uint32_t rowOrdinal = k / kRacksPerRow;
            rack.hall = "h" + std::to_string(rowOrdinal / kRowsPerHall + 1);
            rack.row = rowOrdinal % kRowsPerHall + 1;
            rack.position = k % kRacksPerRow + 1;
            spec.racks.push_back(rack);
        }
    }
    finishRackLayout(spec, nullptr);
    return spec;
}

std::optional<std::vector<std::string>> expandNameList(const std::string& text, const std::vector<std::string>& ordered,
                                                       std::string* problem) {
    auto position = [&](const std::string& name) -> std::optional<std::size_t> {
        const auto it = std::find(ordered.begin(), ordered.end(), name);
        if (it == ordered.end()) {
            if (problem) *problem = "unknown name '" + name + "'";
            return std::nullopt;
        }
        return static_cast<std::size_t>(it - ordered.begin());
    };
    std::vector<std::string> names;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (const auto dots = item.find(".."); dots != std::string::npos) {
            const auto first = position(item.substr(0, dots));
            const auto last = position(item.substr(dots + 2));
            if (!first || !last) return std::nullopt;
            if (*last < *first) {
                if (problem) *problem = "range '" + item + "' runs backwards";
                return std::nullopt;
            }
            for (std::size_t i = *first; i <= *last; ++i) names.push_back(ordered[i]);
        } else {
            if (!position(item)) return std::nullopt;
            names.push_back(item);
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return names;
}

namespace {

// "0,1,2,3" → four distinct DCGM indexes; "mlx5_0:1,..." → four distinct device:port names.
bool readHostLayout(OptionReader& options, HostLayout& layout) {
    if (auto gpus = options.text("gpus")) {
        const auto items = splitList(*gpus);
        std::set<std::uint32_t> seen;
        if (items.size() != layout.dcgmGpuIndex.size())
            return options.fail("gpus= needs the DCGM index of each of the 4 GPU slots, e.g. gpus=0,1,2,3");
        for (std::size_t k = 0; k < items.size(); ++k) {
            char* end = nullptr;
            const unsigned long index = std::strtoul(items[k].c_str(), &end, 10);
            if (items[k].empty() || *end != '\0' || index > 63 || !seen.insert(std::uint32_t(index)).second)
                return options.fail("gpus= item '" + items[k] + "' is not a distinct GPU index in [0, 63]");
            layout.dcgmGpuIndex[k] = std::uint32_t(index);
        }
    }
    if (auto nics = options.text("nics")) {
        const auto items = splitList(*nics);
        std::set<std::string> seen;
        if (items.size() != layout.nics.size())
            return options.fail(
                "nics= needs DEVICE:PORT for each of the 4 rails, e.g. nics=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
        for (std::size_t k = 0; k < items.size(); ++k) {
            const auto colon = items[k].find(':');
            const std::string device = items[k].substr(0, colon);
            char* end = nullptr;
            const unsigned long port =
                colon == std::string::npos ? 0 : std::strtoul(items[k].c_str() + colon + 1, &end, 10);
            if (device.empty() || !isPlainHostName(device) || port == 0 || port > 255 || *end != '\0' ||
                !seen.insert(items[k]).second)
                return options.fail("nics= item '" + items[k] + "' is not a distinct DEVICE:PORT (e.g. mlx5_0:1)");
            layout.nics[k] = {device, std::uint32_t(port)};
        }
    }
    return true;
}

// hosts=HOSTLIST of every rack, once racks have their names: exactly one host per compute
// tray, each unique in the fleet. "{rack}" stands for the rack's name, so one 'racks' line can
// name the hosts of all its racks.
bool expandRackHosts(FleetSpec& spec, ConfigError* error) {
    std::map<std::string, int> hostLines;
    for (auto& rack : spec.racks) {
        if (rack.hostsPattern.empty()) continue;
        auto fail = [&](const std::string& problem) {
            if (error) *error = {spec.sourceFile, rack.sourceLine, problem};
            return false;
        };
        std::string pattern = rack.hostsPattern;
        for (auto at = pattern.find("{rack}"); at != std::string::npos; at = pattern.find("{rack}"))
            pattern.replace(at, 6, rack.name);
        auto hosts = expandHostlist(pattern);
        if (!hosts) return fail("hosts= '" + pattern + "' is not a hostlist (e.g. hosts=gb200-r01-n[01-18])");
        if (hosts->size() != kTraysPerRackSpec)
            return fail("hosts= '" + pattern + "' names " + std::to_string(hosts->size()) + " hosts for rack " +
                        rack.name + "; a rack has " + std::to_string(kTraysPerRackSpec) + " compute trays");
        for (const auto& host : *hosts)
            if (auto [it, inserted] = hostLines.emplace(host, rack.sourceLine); !inserted)
                return fail("host '" + host + "' is named twice (first on line " + std::to_string(it->second) + ")");
        rack.hosts = std::move(*hosts);
    }
    return true;
}

std::string withRackName(std::string text, const std::string& rack);

bool isIpv4(const std::string& name) {
    int parts = 0, digits = 0;
    for (const char c : name) {
        if (c == '.') {
            if (digits == 0) return false;
            ++parts, digits = 0;
        } else if (c >= '0' && c <= '9') {
            if (++digits > 3) return false;
        } else {
            return false;
        }
    }
    return parts == 3 && digits > 0;
}

std::string lowerCase(std::string text) {
    for (char& c : text) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return text;
}

// One name per compute tray from a rack's HOSTLIST column (`key`=, "{rack}" allowed as in
// hosts=): nothing when the column is absent, else exactly one IPv4 address or DNS name a tray.
bool expandTrayList(const RackSpec& rack, const std::string& written, const std::string& key,
                    const std::string& example, std::vector<std::string>& out, std::string* problem) {
    if (written.empty()) return true;
    const std::string pattern = withRackName(written, rack.name);
    auto names = expandHostlist(pattern);
    if (!names || !std::all_of(names->begin(), names->end(), [](const auto& n) { return isPlainHostName(n); })) {
        *problem = key + "= '" + pattern + "' is not a list of addresses (e.g. " + example + ")";
        return false;
    }
    if (names->size() != kTraysPerRackSpec) {
        *problem = key + "= '" + pattern + "' names " + std::to_string(names->size()) + " addresses for rack " +
                   rack.name + "; a rack has " + std::to_string(kTraysPerRackSpec) + " compute trays";
        return false;
    }
    out = std::move(*names);
    return true;
}

// bmcs=HOSTLIST of every rack: each tray's BMC, unique in the fleet and never a tray's own host
// name or address (the BMC is its own network endpoint: sharing the host's name is a typo that
// would send a power cycle to the wrong place).
bool expandRackBmcs(FleetSpec& spec, ConfigError* error) {
    std::map<std::string, std::string> hostOwners;  // lower-cased host name or address → the tray's host
    for (const auto& rack : spec.racks)
        for (const auto* names : {&rack.hosts, &rack.addresses})
            for (const auto& name : *names) hostOwners.emplace(lowerCase(name), name);
    std::map<std::string, int> bmcLines;
    for (auto& rack : spec.racks) {
        auto fail = [&](const std::string& problem) {
            if (error) *error = {spec.sourceFile, rack.sourceLine, problem};
            return false;
        };
        std::string problem;
        if (!expandTrayList(rack, rack.bmcsPattern, "bmcs", "bmcs=10.1.9.[11-28]", rack.bmcs, &problem))
            return fail(problem);
        for (const auto& bmc : rack.bmcs) {
            const std::string key = lowerCase(bmc);
            if (auto [it, added] = bmcLines.emplace(key, rack.sourceLine); !added)
                return fail("BMC '" + bmc + "' is named twice (first on line " + std::to_string(it->second) + ")");
            if (auto host = hostOwners.find(key); host != hostOwners.end())
                return fail("BMC '" + bmc + "' is also a tray's host name or address ('" + host->second +
                            "'): a BMC answers on its own address");
        }
    }
    return true;
}

// addresses=HOSTLIST of every rack (one address per compute tray, "{rack}" allowed as in hosts=),
// then the names telemetry may use for each tray: no host name or address may name two trays,
// and under an explicit domain list no two trays may share a short name (a label naming the short
// name alone could be either).
bool expandRackAddresses(FleetSpec& spec, ConfigError* error) {
    struct Owner {
        std::string name;
        int line;
        std::size_t tray;
    };
    std::map<std::string, Owner> names;  // lower-cased name → the tray it names
    std::map<std::string, Owner> shorts;
    std::size_t tray = 0;
    for (auto& rack : spec.racks) {
        auto fail = [&](const std::string& problem) {
            if (error) *error = {spec.sourceFile, rack.sourceLine, problem};
            return false;
        };
        std::string problem;
        if (!expandTrayList(rack, rack.addressesPattern, "addresses", "addresses=10.1.2.[11-28]", rack.addresses,
                            &problem))
            return fail(problem);
        for (std::size_t slot = 0; slot < kTraysPerRackSpec; ++slot, ++tray) {
            std::vector<std::string> own;
            if (slot < rack.hosts.size()) own.push_back(rack.hosts[slot]);
            if (slot < rack.addresses.size()) own.push_back(rack.addresses[slot]);
            for (const auto& name : own) {
                const std::string key = lowerCase(name);
                if (auto [it, added] = names.emplace(key, Owner{name, rack.sourceLine, tray});
                    !added && it->second.tray != tray)
                    return fail("'" + name + "' names two trays (first on line " + std::to_string(it->second.line) +
                                ")");
                if (spec.hostDomains.empty() || isIpv4(key)) continue;
                std::string shortName = key;
                for (const auto& domain : spec.hostDomains)
                    if (key.size() > domain.size() + 1 && key.ends_with(domain) &&
                        key[key.size() - domain.size() - 1] == '.')
                        shortName = key.substr(0, key.size() - domain.size() - 1);
                if (auto [it, added] = shorts.emplace(shortName, Owner{name, rack.sourceLine, tray});
                    !added && it->second.tray != tray)
                    return fail("'" + name + "' and '" + it->second.name + "' (line " +
                                std::to_string(it->second.line) + ") are both '" + shortName +
                                "' under inventory domains=: a label naming it alone could be either tray");
            }
        }
    }
    return true;
}

// `inventory domains=a.example,b.example`: lower-cased, a leading '.' dropped, each a DNS name.
bool readHostDomains(OptionReader& options, FleetSpec& spec) {
    const auto text = options.text("domains");
    if (!text) return true;
    if (!spec.hostDomains.empty()) return options.fail("domains= is given on one inventory line only");
    for (std::string domain : splitList(*text)) {
        if (domain.starts_with('.')) domain.erase(0, 1);
        domain = lowerCase(domain);
        if (domain.empty() || !isPlainHostName(domain) || domain.find("..") != std::string::npos ||
            domain.ends_with('.') || isIpv4(domain))
            return options.fail("domains= item '" + domain + "' is not a DNS domain (e.g. domains=cluster.example)");
        if (std::find(spec.hostDomains.begin(), spec.hostDomains.end(), domain) == spec.hostDomains.end())
            spec.hostDomains.push_back(domain);
    }
    if (spec.hostDomains.empty()) return options.fail("domains= lists no domain");
    return true;
}

std::string withRackName(std::string text, const std::string& rack) {
    for (auto at = text.find("{rack}"); at != std::string::npos; at = text.find("{rack}", at + rack.size()))
        text.replace(at, 6, rack);
    return text;
}

// cdu=, connector=, leak_detectors= of every rack, once racks have their names: a Redfish Id is
// a plain name; one connector and one leak detector of a CDU watch one rack only.
bool expandRackCooling(FleetSpec& spec, ConfigError* error) {
    std::map<std::pair<std::string, std::string>, std::string> connectorRack, detectorRack;
    for (auto& rack : spec.racks) {
        auto fail = [&](const std::string& problem) {
            if (error) *error = {spec.sourceFile, rack.sourceLine, problem};
            return false;
        };
        rack.cdu = withRackName(rack.cdu, rack.name);
        rack.coolantConnector = withRackName(rack.coolantConnector, rack.name);
        for (const std::string* id : {&rack.cdu, &rack.coolantConnector})
            if (!id->empty() && !isPlainHostName(*id))
                return fail("'" + *id + "' is not a Redfish resource Id (letters, digits, '.', '_', '-')");
        if (!rack.leakDetectorsPattern.empty()) {
            const std::string pattern = withRackName(rack.leakDetectorsPattern, rack.name);
            auto detectors = expandHostlist(pattern);
            if (!detectors || detectors->empty())
                return fail("leak_detectors= '" + pattern +
                            "' is not a list of Ids (e.g. leak_detectors=LD-{rack}-[1-2])");
            rack.leakDetectors = std::move(*detectors);
        }
        const std::string cduKey =
            rack.cdu.empty() ? "\n" + rack.hall + "/" + std::to_string(rack.row) + "/" + std::to_string(rack.region)
                             : rack.cdu;
        if (!rack.coolantConnector.empty()) {
            auto [it, added] = connectorRack.emplace(std::pair{cduKey, rack.coolantConnector}, rack.name);
            if (!added)
                return fail("connector '" + rack.coolantConnector + "' of CDU '" + rack.cdu + "' already feeds rack " +
                            it->second);
        }
        for (const auto& detector : rack.leakDetectors) {
            auto [it, added] = detectorRack.emplace(std::pair{cduKey, detector}, rack.name);
            if (!added) return fail("leak detector '" + detector + "' already watches rack " + it->second);
        }
    }
    return true;
}

}  // namespace

std::optional<FleetSpec> readFleetFile(const std::string& path, ConfigError* error) {
    auto lines = readConfigLines(path, error);
    if (!lines) return std::nullopt;
    FleetSpec spec;
    spec.sourceFile = path;
    std::map<std::string, int> rackLines;
    std::set<std::string> jobNames;
    std::map<std::pair<std::uint32_t, std::string>, std::uint32_t> nextPosition;

    HostLayout layout;  // from the last 'inventory' line
    auto addRack = [&](OptionReader& options, std::string name, bool& ok) {
        RackSpec rack;
        rack.layout = layout;
        rack.region = static_cast<std::uint32_t>(spec.regions.size() - 1);
        if (auto hall = options.text("hall")) rack.hall = *hall;
        double row = 1, position = 0, powerKw = rack.designPowerKw, supplyC = rack.supplySetpointC;
        ok = options.number("row", 1, 1000, row) && options.number("position", 1, 1000, position) &&
             options.number("power_kw", 20, 300, powerKw) && options.number("supply_c", 15, 45, supplyC);
        if (!ok) return;
        rack.row = static_cast<std::uint32_t>(row);
        auto& next = nextPosition[{rack.region, rack.hall + "/" + std::to_string(rack.row)}];
        rack.position = position > 0 ? static_cast<std::uint32_t>(position) : next + 1;
        next = std::max(next, rack.position);
        rack.designPowerKw = powerKw;
        rack.supplySetpointC = supplyC;
        rack.name = std::move(name);
        rack.hostsPattern = options.text("hosts").value_or("");
        rack.addressesPattern = options.text("addresses").value_or("");
        rack.bmcsPattern = options.text("bmcs").value_or("");
        rack.cdu = options.text("cdu").value_or("");
        rack.coolantConnector = options.text("connector").value_or("");
        rack.leakDetectorsPattern = options.text("leak_detectors").value_or("");
        rack.sourceLine = options.lineNumber();
        spec.racks.push_back(rack);
    };

    for (auto& line : *lines) {
        OptionReader options(path, line, error);
        const std::string& keyword = line.words.empty() ? std::string() : line.words[0];
        const std::size_t argc = line.words.size();
        if (keyword == "fleet") {
            if (argc != 2) return options.fail("expected 'fleet NAME'"), std::nullopt;
            spec.fleetName = line.words[1];
        } else if (keyword == "region") {
            if (argc != 2) return options.fail("expected 'region NAME'"), std::nullopt;
            for (const auto& region : spec.regions)
                if (region.name == line.words[1])
                    return options.fail("region '" + line.words[1] + "' declared twice"), std::nullopt;
            spec.regions.push_back({line.words[1]});
        } else if (keyword == "rack" || keyword == "racks") {
            if (spec.regions.empty()) return options.fail("'" + keyword + "' before any 'region' line"), std::nullopt;
            if (argc != 2)
                return options.fail(
                           keyword == "rack"
                               ? "expected 'rack NAME [hall=H] [row=N] [position=N] [power_kw=KW] [supply_c=C] "
                                 "[hosts=HOSTLIST] [addresses=HOSTLIST] [bmcs=HOSTLIST] [cdu=ID] "
                                 "[connector=ID] [leak_detectors=IDLIST]'"
                               : "expected 'racks COUNT [hall=H] [row=N] [power_kw=KW] [supply_c=C] [hosts=HOSTLIST] "
                                 "[addresses=HOSTLIST] [bmcs=HOSTLIST] [cdu=ID] [connector=ID] "
                                 "[leak_detectors=IDLIST]'"),
                       std::nullopt;
            std::size_t count = 1;
            std::string name;
            if (keyword == "racks") {
                char* end = nullptr;
                const unsigned long parsed = std::strtoul(line.words[1].c_str(), &end, 10);
                if (*end != '\0' || parsed == 0 || parsed > kMaxRacks)
                    return options.fail("rack count '" + line.words[1] + "' is not a number in [1, 100000]"),
                           std::nullopt;
                count = parsed;
                if (options.has("position"))
                    return options.fail("'racks' places racks itself; 'position' is only for 'rack'"), std::nullopt;
            } else {
                name = line.words[1];
                if (name.find('-') != std::string::npos || name.find('.') != std::string::npos ||
                    name.find(',') != std::string::npos)
                    return options.fail("rack name '" + name + "' may not contain '-', '.' or ','"), std::nullopt;
                if (!rackLines.emplace(name, line.number).second)
                    return options.fail("rack '" + name + "' declared twice (first on line " +
                                        std::to_string(rackLines[name]) + ")"),
                           std::nullopt;
            }
            const ParsedLine original = line;
            for (std::size_t i = 0; i < count; ++i) {
                ParsedLine copy = original;
                OptionReader each(path, copy, error);
                bool ok = true;
                addRack(each, name, ok);
                if (!ok || !each.noLeftovers()) return std::nullopt;
            }
            line.options.clear();
        } else if (keyword == "inventory") {
            if (argc != 1)
                return options.fail(
                           "expected 'inventory [gpus=I,I,I,I] [nics=DEV:PORT,DEV:PORT,DEV:PORT,DEV:PORT] "
                           "[domains=DOMAIN,DOMAIN]'"),
                       std::nullopt;
            if (!readHostLayout(options, layout) || !readHostDomains(options, spec)) return std::nullopt;
        } else if (keyword == "job") {
            if (argc != 2)
                return options.fail(
                           "expected 'job NAME model=405b|70b|8b racks=LIST|trays=LIST [ckpt_interval=D|auto] "
                           "[ckpt_save=D]'"),
                       std::nullopt;
            JobSpec job;
            job.name = line.words[1];
            job.sourceLine = line.number;
            if (!jobNames.insert(job.name).second)
                return options.fail("job '" + job.name + "' declared twice"), std::nullopt;
            const auto model = options.text("model");
            if (!model || !trainingModel(*model))
                return options.fail("job needs model=" + trainingModelKeys() +
                                    (model ? " (got '" + *model + "')" : "")),
                       std::nullopt;
            job.model = *model;
            const auto racks = options.text("racks");
            const auto trays = options.text("trays");
            if (racks.has_value() == trays.has_value())
                return options.fail("job needs exactly one of racks=LIST or trays=LIST"), std::nullopt;
            // Names are checked against the built topology later (they may be generated).
            (racks ? job.rackNames : job.trayNames).push_back(racks ? *racks : *trays);
            job.checkpointIntervalAuto = options.word("ckpt_interval", "auto");
            if (!options.duration("ckpt_interval", job.checkpointInterval) ||
                !options.duration("ckpt_save", job.checkpointSave))
                return std::nullopt;
            if (job.checkpointInterval < std::chrono::seconds(10))
                return options.fail("ckpt_interval must be at least 10s"), std::nullopt;
            spec.jobs.push_back(std::move(job));
        } else {
            return options.fail(keyword.empty() ? "line has options but no keyword"
                                                : "unknown keyword '" + keyword +
                                                      "' (expected fleet, region, inventory, rack, racks or job)"),
                   std::nullopt;
        }
        if (!options.noLeftovers()) return std::nullopt;
    }
    if (spec.racks.empty()) {
        if (error) *error = {path, 0, "no racks declared (add 'region NAME' and 'rack NAME' or 'racks COUNT' lines)"};
        return std::nullopt;
    }
    if (!finishRackLayout(spec, error) || !expandRackHosts(spec, error) || !expandRackAddresses(spec, error) ||
        !expandRackBmcs(spec, error) || !expandRackCooling(spec, error))
        return std::nullopt;
    return spec;
}

}  // namespace watchfloor::server
