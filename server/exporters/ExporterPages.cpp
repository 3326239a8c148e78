#include "ExporterPages.h"

namespace watchfloor::server::exporters {

ExporterPages::ExporterPages(const service::FleetStateStore& store, DcgmPageOptions dcgm)
    : store_(store), trays_(store.index().topology()), dcgm_(store, std::move(dcgm)), node_(store) {}

ExporterPage ExporterPages::page(Exporter exporter, std::string_view hostname) {
    const TrayHost* host = trays_.find(hostname);
    if (!host) return {404, "no compute tray with host name \"" + std::string(hostname) + "\"\n"};
    if (!isTrayPowered(store_, *host))
        return {503, std::string(hostname) + " has no power: its exporters are unreachable\n"};
    return {200, exporter == Exporter::Dcgm ? dcgm_.render(*host) : node_.render(*host)};
}

}  // namespace watchfloor::server::exporters
