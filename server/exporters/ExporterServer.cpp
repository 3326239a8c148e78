#include "ExporterServer.h"

#include <httplib.h>

#include <chrono>
#include <charconv>

namespace watchfloor::server::exporters {

namespace {

bool splitHostPort(const std::string& address, std::string* host, int* port) {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0) return false;
    *host = address.substr(0, colon);
    if (host->size() > 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
    const char* first = address.data() + colon + 1;
    const char* last = address.data() + address.size();
    const auto [end, ec] = std::from_chars(first, last, *port);
    return first != last && ec == std::errc() && end == last && *port >= 0 && *port <= 65535;
}

}  // namespace

ExporterServer::ExporterServer(const service::FleetStateStore& store, ExporterServerOptions options)
    : options_(std::move(options)), pages_(store, options_.dcgm), http_(std::make_unique<httplib::Server>()) {}

std::unique_ptr<ExporterServer> ExporterServer::start(const service::FleetStateStore& store,
                                                      ExporterServerOptions options, std::string* error) {
    std::unique_ptr<ExporterServer> server(new ExporterServer(store, std::move(options)));
    int wanted = 0;
    if (!splitHostPort(server->options_.listenAddress, &server->host_, &wanted)) {
        *error = "exporters: expected HOST:PORT, got \"" + server->options_.listenAddress + "\"";
        return nullptr;
    }
    auto& http = *server->http_;
    const std::size_t threads = std::max<std::size_t>(1, server->options_.threads);
    http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    // A scraper gives up after its timeout; a stuck client must not hold a pool thread longer.
    http.set_read_timeout(10, 0);
    http.set_write_timeout(10, 0);
    // One request per connection. A real site has one exporter per host, so every scraper holds a
    // keep-alive connection to each target; here all hosts share one server, and cpp-httplib parks a
    // pool thread on each idle keep-alive connection: 72 targets scraped every second by
    // VictoriaMetrics starved a 4-thread pool into 1 s scrape timeouts. Closing after each answer
    // frees the thread at once; reconnecting on loopback costs microseconds.
    http.set_keep_alive_max_count(1);
    http.set_keep_alive_timeout(1);
    ExporterPages* pages = &server->pages_;
    http.Get(R"(/(dcgm|node)/([^/]+)/metrics)", [pages](const httplib::Request& request, httplib::Response& response) {
        const Exporter exporter = request.matches[1] == "dcgm" ? Exporter::Dcgm : Exporter::Node;
        ExporterPage page = pages->page(exporter, request.matches[2].str());
        response.status = page.status;
        response.set_content(std::move(page.body),
                             page.status == 200 ? std::string(kExpositionContentType) : "text/plain; charset=utf-8");
    });
    const int bound = wanted == 0 ? http.bind_to_any_port(server->host_) : (http.bind_to_port(server->host_, wanted)
                                                                                 ? wanted
                                                                                 : -1);
    if (bound <= 0) {
        *error = "exporters: cannot listen on " + server->options_.listenAddress;
        return nullptr;
    }
    server->port_ = bound;
    server->thread_ = std::thread([&http] { http.listen_after_bind(); });
    // stop() only interrupts a server that is already accepting: wait for it so an immediate
    // stop cannot leave the accept loop running and the join hanging.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!http.is_running() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!http.is_running()) {
        *error = "exporters: the HTTP server on " + server->address() + " did not start";
        return nullptr;  // the destructor's stop() finds the thread finished or never accepting
    }
    return server;
}

ExporterServer::~ExporterServer() { stop(); }

void ExporterServer::stop() {
    if (!thread_.joinable()) return;
    http_->stop();
    thread_.join();
}

}  // namespace watchfloor::server::exporters
