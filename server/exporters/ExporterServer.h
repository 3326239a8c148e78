#pragma once
// One HTTP server standing in for every compute tray's exporters:
//   GET /dcgm/<hostname>/metrics   the tray's dcgm-exporter page (:9400 on a real host)
//   GET /node/<hostname>/metrics   its node_exporter page (:9100)
// Scrapers reach each page through a file_sd target whose __metrics_path__ names the host and
// whose instance label is what the real exporter's would be (see ScrapeConfig). Requests run on
// a bounded pool of threads and read the fleet store under its shared lock only, so a scrape
// never holds up the tick thread.

#include "ExporterPages.h"
#include "HttpListener.h"

#include <memory>
#include <string>

namespace watchfloor::server::exporters {

struct ExporterServerOptions {
    std::string listenAddress = "127.0.0.1:0";  // HOST:PORT; port 0 picks a free port
    std::size_t threads = 4;
    DcgmPageOptions dcgm;
};

class ExporterServer {
public:
    // Listening on return; nullptr and `error` when it cannot listen. The store must outlive it.
    [[nodiscard]] static std::unique_ptr<ExporterServer> start(const service::FleetStateStore& store,
                                                               ExporterServerOptions options, std::string* error);
    ~ExporterServer();

    const std::string& host() const { return listener_.host(); }
    int port() const { return listener_.port(); }
    std::string address() const { return listener_.address(); }
    const TrayDirectory& trays() const { return pages_.trays(); }

    void stop();  // idempotent; the destructor calls it

private:
    ExporterServer(const service::FleetStateStore& store, ExporterServerOptions options);

    ExporterServerOptions options_;
    ExporterPages pages_;
    HttpListener listener_;
};

}  // namespace watchfloor::server::exporters
