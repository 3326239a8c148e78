#include "ExporterServer.h"

#include <httplib.h>

namespace watchfloor::server::exporters {

ExporterServer::ExporterServer(const service::FleetStateStore& store, ExporterServerOptions options)
    : options_(std::move(options)), pages_(store, options_.dcgm) {}

std::unique_ptr<ExporterServer> ExporterServer::start(const service::FleetStateStore& store,
                                                      ExporterServerOptions options, std::string* error) {
    std::unique_ptr<ExporterServer> server(new ExporterServer(store, std::move(options)));
    auto& http = server->listener_.http();
    ExporterPages* pages = &server->pages_;
    http.Get(R"(/(dcgm|node)/([^/]+)/metrics)", [pages](const httplib::Request& request, httplib::Response& response) {
        const Exporter exporter = request.matches[1] == "dcgm" ? Exporter::Dcgm : Exporter::Node;
        ExporterPage page = pages->page(exporter, request.matches[2].str());
        response.status = page.status;
        response.set_content(std::move(page.body),
                             page.status == 200 ? std::string(kExpositionContentType) : "text/plain; charset=utf-8");
    });
    if (!server->listener_.listen(server->options_.listenAddress, server->options_.threads, "exporters", error))
        return nullptr;
    return server;
}

ExporterServer::~ExporterServer() { stop(); }

void ExporterServer::stop() { listener_.stop(); }

}  // namespace watchfloor::server::exporters
