#pragma once
// What each compute tray's exporters answer, without HTTP: the dcgm-exporter and node_exporter
// pages by host name, 404 for a host the fleet does not have, 503 for a tray without power (a
// scraper then records up == 0, as for an unreachable exporter).

#include "DcgmExposition.h"
#include "NodeExposition.h"
#include "TrayDirectory.h"

#include <string>
#include <string_view>

namespace watchfloor::server::exporters {

enum class Exporter { Dcgm, Node };

struct ExporterPage {
    int status = 200;
    std::string body;
};

inline constexpr std::string_view kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";
inline constexpr int kDcgmExporterPort = 9400;
inline constexpr int kNodeExporterPort = 9100;

class ExporterPages {
public:
    ExporterPages(const service::FleetStateStore& store, DcgmPageOptions dcgm = {});

    ExporterPage page(Exporter exporter, std::string_view hostname);
    const TrayDirectory& trays() const { return trays_; }

private:
    const service::FleetStateStore& store_;
    TrayDirectory trays_;
    DcgmExposition dcgm_;
    NodeExposition node_;
};

}  // namespace watchfloor::server::exporters
