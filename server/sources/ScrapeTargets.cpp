#include "ScrapeTargets.h"

#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

namespace watchfloor::server::sources {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::string_view kNone = "none";

struct Exception {
    std::optional<std::string> dcgm, node;
};

std::string expand(std::string_view url, const std::string& host, const std::string& address, const std::string& rack,
                   const std::string& node) {
    std::string out;
    out.reserve(url.size() + host.size());
    for (std::size_t i = 0; i < url.size(); ++i) {
        if (url[i] == '{') {
            const auto close = url.find('}', i);
            const std::string_view name = url.substr(i + 1, close - i - 1);
            out += name == "host" ? host : name == "address" ? address : name == "rack" ? rack : node;
            i = close;
        } else {
            out += url[i];
        }
    }
    return out;
}

bool readTargetsFile(const std::string& path, std::map<std::string, Exception>& racks,
                     std::map<std::string, Exception>& hosts, std::string* error) {
    std::ifstream file(path);
    if (!file) return *error = path + ": cannot read the scrape targets file", false;
    std::string line;
    for (int number = 1; std::getline(file, line); ++number) {
        const std::string where = path + ":" + std::to_string(number) + ": ";
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::string kind, name;
        if (!(words >> kind)) continue;
        if (kind != "rack" && kind != "host")
            return *error = where + "expected 'rack NAME' or 'host NAME' and dcgm=URL / node=URL, got \"" + kind + "\"",
                   false;
        if (!(words >> name)) return *error = where + kind + " without a name", false;
        auto& table = kind == "rack" ? racks : hosts;
        if (table.count(name)) return *error = where + kind + " " + name + " listed twice", false;
        Exception& exception = table[name];
        std::string word;
        bool any = false;
        while (words >> word) {
            const auto equals = word.find('=');
            const std::string key = word.substr(0, equals),
                              url = equals == std::string::npos ? "" : word.substr(equals + 1);
            std::optional<std::string>* slot = key == "dcgm"   ? &exception.dcgm
                                               : key == "node" ? &exception.node
                                                               : nullptr;
            if (!slot || equals == std::string::npos)
                return *error = where + "expected dcgm=URL or node=URL, got \"" + word + "\"", false;
            if (slot->has_value()) return *error = where + key + "= given twice", false;
            std::string why;
            if (!validTargetUrl(url, &why)) return *error = where + key + "=" + url + ": " + why, false;
            *slot = url;
            any = true;
        }
        if (!any) return *error = where + kind + " " + name + " says nothing (add dcgm=URL and/or node=URL)", false;
    }
    return true;
}

}  // namespace

std::string_view exporterName(Exporter exporter) {
    return exporter == Exporter::Dcgm ? "dcgm-exporter" : "node_exporter";
}

bool validTargetUrl(std::string_view url, std::string* why) {
    if (url == kNone) return true;
    if (!url.starts_with("http://") && !url.starts_with("https://"))
        return *why = "expected an http:// or https:// URL (or none)", false;
    if (url.find_first_of(" \t\"<>\\^`|") != std::string_view::npos)
        return *why = "a URL has no blanks or quotes", false;
    for (std::size_t open = url.find('{'); open != std::string_view::npos; open = url.find('{', open + 1)) {
        const auto close = url.find('}', open);
        if (close == std::string_view::npos) return *why = "a { without its }", false;
        const std::string_view name = url.substr(open + 1, close - open - 1);
        if (name != "host" && name != "address" && name != "rack" && name != "node")
            return *why = "unknown placeholder {" + std::string(name) + "} (known: {address}, {host}, {rack}, {node})",
                   false;
    }
    if (url.find('}') != std::string_view::npos && url.find('{') == std::string_view::npos)
        return *why = "a } without its {", false;
    return true;
}

bool buildScrapeTargets(const v1::Topology& topology, const ScrapeTargetOptions& options,
                        std::vector<ScrapeTarget>& out, std::string* error) {
    for (const auto* url : {&options.dcgmUrl, &options.nodeUrl}) {
        std::string why;
        if (!validTargetUrl(*url, &why)) return *error = "scrape URL " + *url + ": " + why, false;
    }
    std::map<std::string, Exception> racks, hosts;
    if (!options.targetsFile.empty() && !readTargetsFile(options.targetsFile, racks, hosts, error)) return false;
    std::map<std::uint32_t, std::string> rackNames;
    for (const auto& rack : topology.racks()) rackNames[rack.index()] = rack.name();
    std::map<std::string, bool> hostSeen;
    for (const auto& [name, unused] : hosts) hostSeen[name] = false;
    std::map<std::string, bool> rackSeen;
    for (const auto& [name, unused] : racks) rackSeen[name] = false;

    out.clear();
    for (const auto& node : topology.nodes()) {
        const std::string host = node.hostname().empty() ? node.name() : node.hostname();
        const std::string& rack = rackNames[node.rack_index()];
        std::string dcgm = options.dcgmUrl, nodeUrl = options.nodeUrl;
        for (const auto& [table, key, seen] :
             {std::tuple{&racks, &rack, &rackSeen}, std::tuple{&hosts, &host, &hostSeen}}) {
            const auto it = table->find(*key);
            if (it == table->end()) continue;
            (*seen)[*key] = true;
            if (it->second.dcgm) dcgm = *it->second.dcgm;
            if (it->second.node) nodeUrl = *it->second.node;
        }
        for (const auto& [exporter, url] : {std::pair{Exporter::Dcgm, &dcgm}, std::pair{Exporter::Node, &nodeUrl}})
            if (*url != kNone)
                out.push_back({host, node.index(), exporter,
                               expand(*url, host, node.address().empty() ? host : node.address(), rack, node.name())});
    }
    // A name the fleet does not have is a typo that would silently scrape the default.
    for (const auto* seen : {&rackSeen, &hostSeen})
        for (const auto& [name, found] : *seen)
            if (!found)
                return *error = options.targetsFile + ": " + (seen == &rackSeen ? "rack " : "host ") + name +
                                " is not in the fleet file",
                       false;
    return true;
}

}  // namespace watchfloor::server::sources
