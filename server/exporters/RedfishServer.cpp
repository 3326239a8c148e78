#include "RedfishServer.h"

#include <httplib.h>

namespace watchfloor::server::exporters {

namespace {
constexpr std::size_t kRedfishThreads = 4;  // a CDU controller serves a handful of clients
}

std::unique_ptr<RedfishServer> RedfishServer::start(const service::FleetStateStore& store, redfish::CoolingMap map,
                                                    const std::string& listenAddress, std::string* error,
                                                    TrayBmcOptions bmcs) {
    std::unique_ptr<RedfishServer> server(new RedfishServer(store, std::move(map)));
    if (bmcs.repairs) {
        server->bmcs_ = std::make_unique<TrayBmcs>(store.index().topology(), std::move(bmcs));
        server->tree_.serveTrayBmcs(server->bmcs_.get());
    }
    auto& http = server->listener_.http();
    const RedfishTree* tree = &server->tree_;
    http.Get(R"(/redfish(/.*)?)", [tree](const httplib::Request& request, httplib::Response& response) {
        RedfishAnswer answer = tree->get(request.path, request.get_header_value("Authorization"));
        response.status = answer.status;
        response.set_header("OData-Version", "4.0");
        response.set_content(std::move(answer.body), std::string(kJsonContentType));
    });
    // The tree is read-only: the twin's cooling is changed through fleetd's control API.
    const auto refuse = [](const httplib::Request&, httplib::Response& response) {
        response.status = 405;
        response.set_header("Allow", "GET");
        response.set_content(redfishError("Base.1.19.OperationNotAllowed", "The twin's Redfish service is read-only."),
                             std::string(kJsonContentType));
    };
    if (TrayBmcs* trays = server->bmcs_.get())
        http.Post(R"(/redfish(/.*)?)", [trays](const httplib::Request& request, httplib::Response& response) {
            TrayBmcs::Posted posted{
                {401, redfishError("Base.1.19.NoValidSession",
                                   "There is no valid session established with the implementation.")},
                {}};
            if (trays->authorised(request.get_header_value("Authorization")))
                posted = trays->post(request.path, request.body);
            response.status = posted.answer.status;
            response.set_header("OData-Version", "4.0");
            if (!posted.location.empty()) response.set_header("Location", posted.location);
            response.set_content(std::move(posted.answer.body), std::string(kJsonContentType));
        });
    else
        http.Post(R"(/redfish(/.*)?)", refuse);
    http.Patch(R"(/redfish(/.*)?)", refuse);
    http.Put(R"(/redfish(/.*)?)", refuse);
    http.Delete(R"(/redfish(/.*)?)", refuse);
    if (!server->listener_.listen(listenAddress, kRedfishThreads, "redfish", error)) return nullptr;
    return server;
}

RedfishServer::~RedfishServer() { stop(); }

void RedfishServer::stop() { listener_.stop(); }

std::unique_ptr<RedfishServer> startFleetdRedfish(const service::FleetStateStore& store, const std::string& fleetFile,
                                                  const std::string& listenAddress, std::string* announce,
                                                  std::string* error, TrayBmcOptions bmcs) {
    std::optional<server::FleetSpec> spec;
    if (!fleetFile.empty()) {
        server::ConfigError configError;
        spec = server::readFleetFile(fleetFile, &configError);
        if (!spec) return *error = configError.toString(), nullptr;
    }
    redfish::CoolingMap map(store.index().topology(), spec ? &*spec : nullptr);
    const auto cdus = map.cdus();
    const bool trays = bmcs.repairs != nullptr;
    auto server = RedfishServer::start(store, std::move(map), listenAddress, error, std::move(bmcs));
    if (!server) return nullptr;
    *announce = "redfish listening on " + server->address() + " | " + std::to_string(cdus.size()) +
                " CDUs at /redfish/v1/ThermalEquipment/CDUs" +
                (cdus.empty() ? std::string() : " (first " + cdus.front() + ")") +
                (trays ? " | every compute tray's BMC at /redfish/v1/Systems" : "");
    return server;
}

}  // namespace watchfloor::server::exporters
