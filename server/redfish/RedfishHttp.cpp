#include "RedfishHttp.h"

#include "OneLine.h"
#include "SecretFile.h"
#include "TransferPool.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace watchfloor::server::redfish {

using prom::detail::CurlTransfer;

namespace {

std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

bool isJson(std::string_view contentType) {
    std::string lower;
    for (const char c : contentType.substr(0, contentType.find(';')))
        if (c != ' ') lower += char(std::tolower(static_cast<unsigned char>(c)));
    return lower == "application/json";
}

prom::StoreOptions transferOptions(const RedfishOptions& o) {
    prom::StoreOptions t;
    t.timeout = o.timeout;
    t.connectTimeout = std::min(o.connectTimeout, o.timeout);
    t.maxResponseBytes = o.maxBytes;
    t.caFile = o.caFile;
    t.clientCertFile = o.clientCertFile;
    t.clientKeyFile = o.clientKeyFile;
    return t;
}

}  // namespace

class RedfishHttp::Impl {
public:
    explicit Impl(const RedfishOptions& options)
        : options_(options),
          transfer_(transferOptions(options)),
          pool_(std::clamp<std::size_t>(options.maxConnections, 1, kMostRedfishConnections),
                std::clamp<std::size_t>(options.maxConnections, 1, kMostRedfishConnections)),
          password_(options.basicAuthPasswordFile) {
        auth_.headers = curl_slist_append(auth_.headers, "Accept: application/json");
        auth_.headers = curl_slist_append(auth_.headers, "OData-Version: 4.0");
        auth_.basicUser = options.basicAuthUser;
    }
    ~Impl() { curl_slist_free_all(auth_.headers); }

    std::vector<Fetched> fetchAll(const std::vector<std::string>& paths) {
        std::vector<Fetched> results(paths.size());
        std::string secretError;
        if (password_.configured()) {
            const auto secret = password_.read(secretError);
            if (!secret) {
                for (std::size_t i = 0; i < paths.size(); ++i) results[i] = {paths[i], false, 0, secretError, {}, 0};
                return results;
            }
            auth_.basicPassword = *secret;
        }
        // One request per connection: a request queued inside libcurl behind a slow answer would
        // spend its own timeout waiting for a connection.
        const std::size_t inFlight = std::clamp<std::size_t>(options_.maxConnections, 1, kMostRedfishConnections);
        std::size_t next = 0;
        while (next < paths.size() || pool_.active() > 0) {
            while (next < paths.size() && pool_.active() < inFlight) {
                prom::detail::Request request;
                request.endpoint = options_.url + paths[next];
                results[next].path = paths[next];
                pool_.start(request, auth_, transfer_, next);
                ++next;
            }
            pool_.perform(std::chrono::milliseconds(50), [&](CurlTransfer& transfer, CURLcode code) {
                finish(transfer, code, results[transfer.tag()]);
                transfer.releaseLargeBuffer(std::size_t(1) << 20);
            });
        }
        return results;
    }

private:
    void finish(CurlTransfer& transfer, CURLcode code, Fetched& out) const {
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - transfer.started()).count();
        out.startedUnixMs = wallMs() - std::llround(seconds * 1000.0);
        if (code != CURLE_OK) {
            out.error = transfer.describeFailure(code, transfer_);
            return;
        }
        out.httpStatus = transfer.httpStatus();
        if (out.httpStatus < 200 || out.httpStatus >= 300) {
            const std::string start = prom::oneLine(transfer.body(), 200);
            out.error = "HTTP " + std::to_string(out.httpStatus) + " from " + transfer.endpoint() +
                        (start.empty() ? std::string(" (empty body)") : ": " + start);
            return;
        }
        if (!isJson(transfer.contentType())) {
            out.error = "not JSON: Content-Type \"" + prom::oneLine(transfer.contentType(), 120) + "\" from " +
                        transfer.endpoint();
            return;
        }
        out.ok = true;
        out.body.assign(transfer.body());
    }

    RedfishOptions options_;
    prom::StoreOptions transfer_;
    prom::detail::TransferPool pool_;
    prom::detail::RequestAuth auth_;
    prom::SecretFile password_;
};

RedfishHttp::RedfishHttp(RedfishOptions options)
    : options_(std::move(options)), impl_(std::make_unique<Impl>(options_)) {}
RedfishHttp::~RedfishHttp() = default;

std::vector<Fetched> RedfishHttp::fetchAll(const std::vector<std::string>& paths) { return impl_->fetchAll(paths); }

}  // namespace watchfloor::server::redfish
