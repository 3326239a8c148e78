#pragma once
// Where each compute tray's exporters answer, for --source scrape: dcgm-exporter at
// http://ADDRESS:9400/metrics and node_exporter at http://ADDRESS:9100/metrics by default, ADDRESS
// being the tray's address in the inventory (addresses=: an IP or a DNS name), else its host name. The flags
// --scrape-dcgm / --scrape-node change that for the whole fleet; a targets file changes it for one rack or one host:
//
//   # rack|host NAME  [dcgm=URL] [node=URL]      (URL "none": that exporter is not scraped)
//   rack r07 dcgm=http://{host}:9401/metrics
//   host gb200-r01-n03 node=https://{host}:9100/metrics dcgm=none
//
// URLs may hold {address} (the tray's address, else its host name), {host} (its host name),
// {rack} (its rack) and {node} (its entity name). A host line (by host name) wins over its rack's
// line, which wins over the flags. A page maps onto the tray of its target whatever names it
// carries inside.

#include "watchfloor/v1/fleet.pb.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::sources {

enum class Exporter { Dcgm, Node };
std::string_view exporterName(Exporter exporter);  // "dcgm-exporter", "node_exporter"

struct ScrapeTarget {
    std::string host;        // the tray's host name (what its series map through)
    std::uint32_t node = 0;  // the tray's entity
    Exporter exporter = Exporter::Dcgm;
    std::string url;
};

struct ScrapeTargetOptions {
    std::string dcgmUrl = "http://{address}:9400/metrics";
    std::string nodeUrl = "http://{address}:9100/metrics";
    std::string targetsFile;  // per rack / per host exceptions; empty: none
};

// Every tray's targets, in topology order (a tray's dcgm-exporter before its node_exporter).
// False and `error` ("FILE:LINE: ...") for a bad URL or targets file.
[[nodiscard]] bool buildScrapeTargets(const watchfloor::v1::Topology& topology, const ScrapeTargetOptions& options,
                                      std::vector<ScrapeTarget>& out, std::string* error);

// A URL (or "none") with only known placeholders and an http(s) scheme; `why` says what is wrong.
bool validTargetUrl(std::string_view url, std::string* why);

}  // namespace watchfloor::server::sources
