#include "AlertmanagerHttp.h"

#include "CurlTransfer.h"
#include "OneLine.h"
#include "TransferPool.h"

namespace watchfloor::server::paging {

using prom::detail::CurlTransfer;

class AlertmanagerHttp::Impl {
public:
    explicit Impl(const HttpOptions& options) : base_(options.url), pool_(1, 1) {
        prom::detail::initialiseCurlOnce();
        transfer_.timeout = options.timeout;
        transfer_.connectTimeout = std::min(options.connectTimeout, options.timeout);
        transfer_.maxResponseBytes = std::size_t(16) << 20;  // a silence list of a busy site
        transfer_.maxRedirects = 0;                          // a POST that lands elsewhere is not delivered
        auth_.headers = curl_slist_append(auth_.headers, "Content-Type: application/json");
        auth_.headers = curl_slist_append(auth_.headers, "Accept: application/json");
    }
    ~Impl() { curl_slist_free_all(auth_.headers); }

    Exchange run(prom::detail::Request request) {
        request.endpoint = base_ + request.endpoint;
        Exchange out;
        pool_.start(request, auth_, transfer_, 0);
        while (pool_.active() > 0)
            pool_.perform(std::chrono::milliseconds(50),
                          [&](CurlTransfer& transfer, CURLcode code) { finish(transfer, code, out); });
        return out;
    }

private:
    void finish(CurlTransfer& transfer, CURLcode code, Exchange& out) const {
        if (code != CURLE_OK) {
            out.error = transfer.describeFailure(code, transfer_);
            return;
        }
        out.httpStatus = transfer.httpStatus();
        out.body.assign(transfer.body());
        out.ok = out.httpStatus >= 200 && out.httpStatus < 300;
        if (!out.ok) {
            const std::string start = prom::oneLine(transfer.body(), 200);
            out.error = "HTTP " + std::to_string(out.httpStatus) + " from " + transfer.endpoint() +
                        (start.empty() ? std::string(" (empty body)") : ": " + start);
        }
        transfer.releaseLargeBuffer(std::size_t(1) << 20);
    }

    std::string base_;
    prom::StoreOptions transfer_;
    prom::detail::TransferPool pool_;
    prom::detail::RequestAuth auth_;
};

AlertmanagerHttp::AlertmanagerHttp(HttpOptions options)
    : target_(prom::detail::withoutCredentials(options.url)), impl_(std::make_unique<Impl>(options)) {}
AlertmanagerHttp::~AlertmanagerHttp() = default;

Exchange AlertmanagerHttp::post(std::string_view path, std::string body) {
    prom::detail::Request request;
    request.endpoint = std::string(path);
    request.form = std::move(body);
    request.post = true;
    return impl_->run(std::move(request));
}

Exchange AlertmanagerHttp::remove(std::string_view path) {
    prom::detail::Request request;
    request.endpoint = std::string(path);
    request.method = "DELETE";
    return impl_->run(std::move(request));
}

Exchange AlertmanagerHttp::get(std::string_view path) {
    prom::detail::Request request;
    request.endpoint = std::string(path);
    return impl_->run(std::move(request));
}

std::string normalisedAlertmanagerUrl(std::string_view url, std::string& problem) {
    std::string out(url);
    while (!out.empty() && out.back() == '/') out.pop_back();
    const bool scheme = out.rfind("http://", 0) == 0 || out.rfind("https://", 0) == 0;
    const auto hostStart = out.find("://") + 3;
    if (!scheme || out.size() <= hostStart || out[hostStart] == '/' || out.find_first_of("?# ") != std::string::npos) {
        problem = "expected an Alertmanager base URL such as http://127.0.0.1:9093, got \"" + std::string(url) + "\"";
        return {};
    }
    return out;
}

}  // namespace watchfloor::server::paging
