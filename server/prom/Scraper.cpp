#include "Scraper.h"

#include "OneLine.h"
#include "TransferPool.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::prom {

using detail::CurlTransfer;

namespace {

// A page this large is kept in its handle for the next round; larger ones are freed after use.
constexpr std::size_t kKeptPageBytes = std::size_t(1) << 20;

std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

StoreOptions transferOptions(const ScrapeOptions& o) {
    StoreOptions t;
    t.timeout = o.timeout;
    t.connectTimeout = o.connectTimeout;
    t.maxResponseBytes = o.maxBytes;
    t.maxRedirects = o.maxRedirects;
    t.redirectsStayOnHost = true;
    t.acceptEncoding = "gzip";  // what Prometheus asks of exporters (see StoreOptions)
    t.maxResponseBytesName = "the page size cap, --scrape-max-bytes";
    t.caFile = o.caFile;
    t.clientCertFile = o.clientCertFile;
    t.clientKeyFile = o.clientKeyFile;
    return t;
}

}  // namespace

class Scraper::Impl {
public:
    explicit Impl(const ScrapeOptions& options)
        // Every target is its own host on a site; on a test bed many share one server, which may
        // then take every connection.
        : transfer_(transferOptions(options)),
          pool_(options.maxHostConnections ? options.maxHostConnections : options.maxConcurrent,
                options.keptConnections) {
        auth_.headers = curl_slist_append(auth_.headers, (std::string("Accept: ") + kExpositionAccept).c_str());
        // What Prometheus sends, so exporters that bound their own work by it see the same.
        const std::string timeout = std::to_string(double(options.timeout.count()) / 1000.0);
        auth_.headers = curl_slist_append(
            auth_.headers,
            ("X-Prometheus-Scrape-Timeout-Seconds: " + timeout.substr(0, timeout.find('.') + 3)).c_str());
    }
    ~Impl() { curl_slist_free_all(auth_.headers); }

    void start(std::size_t target, const std::string& url) {
        detail::Request request;
        request.endpoint = url;
        pool_.start(request, auth_, transfer_, target);
    }

    std::size_t run(std::chrono::milliseconds wait, const Done& done) {
        return pool_.perform(wait, [&](CurlTransfer& transfer, CURLcode code) {
            ScrapeResult result = finish(transfer, code);
            done(result);
            transfer.releaseLargeBuffer(kKeptPageBytes);
        });
    }

    std::size_t inFlight() const { return pool_.active(); }

private:
    ScrapeResult finish(CurlTransfer& transfer, CURLcode code) const {
        ScrapeResult result;
        result.target = transfer.tag();
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - transfer.started()).count();
        result.startedUnixMs = wallMs() - std::llround(result.seconds * 1000.0);
        result.httpStatus = code == CURLE_OK ? transfer.httpStatus() : 0;
        if (code != CURLE_OK) {
            result.error = transfer.describeFailure(code, transfer_);
            return result;
        }
        const int status = result.httpStatus;
        if (status < 200 || status >= 300) {
            const std::string start = oneLine(transfer.body(), 200);
            result.error = "HTTP " + std::to_string(status) + " from " + transfer.endpoint() +
                           (start.empty() ? std::string(" (empty body)") : ": " + start);
            return result;
        }
        const std::string_view type = transfer.contentType();
        const auto format = expositionFormatOf(type);
        if (!format) {
            result.error =
                "not a metrics page: Content-Type \"" + oneLine(type, 120) + "\" from " + transfer.endpoint();
            return result;
        }
        result.ok = true;
        result.format = *format;
        result.body = transfer.body();
        return result;
    }

    StoreOptions transfer_;
    detail::TransferPool pool_;
    detail::RequestAuth auth_;
};

Scraper::Scraper(ScrapeOptions options) : options_(std::move(options)), impl_(std::make_unique<Impl>(options_)) {}
Scraper::~Scraper() = default;

void Scraper::start(std::size_t target, const std::string& url) { impl_->start(target, url); }

std::size_t Scraper::run(std::chrono::milliseconds wait, const Done& done) { return impl_->run(wait, done); }

std::size_t Scraper::inFlight() const { return impl_->inFlight(); }

}  // namespace watchfloor::server::prom
