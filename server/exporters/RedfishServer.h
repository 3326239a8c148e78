#pragma once
// fleetd --serve-redfish HOST:PORT: the twin's cooling as the Redfish service of its CDUs
// (RedfishTree, beside it), over HTTP, read-only; with the twin's repair back end, also every
// compute tray's BMC (TrayBmcs), whose ComputerSystem.Reset is the one POST taken. fleetd
// --source redfish=URL reads it like a facility's, and --repair-backend redfish resets trays
// through it, so both paths are tested against real HTTP.

#include "CoolingMap.h"
#include "HttpListener.h"
#include "RedfishTree.h"
#include "TrayBmcs.h"

#include <memory>
#include <string>

namespace watchfloor::server::exporters {

class RedfishServer {
public:
    // Listening on return; nullptr and `error` when it cannot listen. The store must outlive it.
    [[nodiscard]] static std::unique_ptr<RedfishServer> start(const service::FleetStateStore& store,
                                                              redfish::CoolingMap map, const std::string& listenAddress,
                                                              std::string* error, TrayBmcOptions bmcs = {});
    ~RedfishServer();

    std::string address() const { return listener_.address(); }
    std::string url() const { return "http://" + listener_.address(); }
    int port() const { return listener_.port(); }
    const RedfishTree& tree() const { return tree_; }
    void stop();  // idempotent; the destructor calls it

private:
    RedfishServer(const service::FleetStateStore& store, redfish::CoolingMap map) : tree_(store, std::move(map)) {}

    RedfishTree tree_;
    std::unique_ptr<TrayBmcs> bmcs_;
    HttpListener listener_;
};

// For main(): the server over fleetd's store, the map from the fleet file when there is one (else
// the twin's default names), and in `announce` the line fleetd logs.
std::unique_ptr<RedfishServer> startFleetdRedfish(const service::FleetStateStore& store, const std::string& fleetFile,
                                                  const std::string& listenAddress, std::string* announce,
                                                  std::string* error, TrayBmcOptions bmcs = {});

}  // namespace watchfloor::server::exporters
