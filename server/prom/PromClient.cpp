#include "PromClient.h"

#include "CurlTransfer.h"
#include "OneLine.h"
#include "PromDecoder.h"
#include "SecretFile.h"
#include "TransferPool.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <stdexcept>

namespace watchfloor::server::prom {

using detail::CurlTransfer;
using detail::Request;
using detail::RequestAuth;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void appendEncoded(std::string& out, std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || u == '-' || u == '.' ||
            u == '_' || u == '~') {
            out += c;
        } else {
            out += '%';
            out += kHex[u >> 4];
            out += kHex[u & 15];
        }
    }
}

// The API takes times as (float) Unix seconds.
std::string secondsParameter(std::int64_t ms) {
    const long long whole = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    const long long fraction = ms - whole * 1000;
    char text[48];
    if (fraction == 0)
        std::snprintf(text, sizeof text, "%lld", whole);
    else
        std::snprintf(text, sizeof text, "%lld.%03lld", whole, fraction);
    return text;
}

class Form {
public:
    Form& add(std::string_view name, std::string_view value) {
        if (!text_.empty()) text_ += '&';
        text_ += name;
        text_ += '=';
        appendEncoded(text_, value);
        return *this;
    }
    std::string take() { return std::move(text_); }

private:
    std::string text_;
};

QueryResult failed(std::string error) {
    QueryResult result;
    result.error = std::move(error);
    return result;
}

}  // namespace

class PromClient::Impl {
public:
    using Decode = std::function<QueryResult(std::size_t request, std::string_view paddedBody)>;

    explicit Impl(StoreOptions options)
        : options_(normalised(std::move(options))),
          bearer_(options_.bearerTokenFile),
          password_(options_.basicAuthPasswordFile),
          pool_(options_.maxConcurrentQueries, options_.maxConcurrentQueries) {}

    const StoreOptions& options() const { return options_; }

    Request request(std::string_view apiPath, std::string form) const {
        Request r;
        r.endpoint = options_.url + std::string(apiPath);
        r.post = r.endpoint.size() + 1 + form.size() > options_.postAbove;
        r.form = std::move(form);
        return r;
    }

    Request instantRequest(std::string_view promql, std::optional<std::int64_t> atMs) const {
        Form form;
        form.add("query", promql);
        if (atMs) form.add("time", secondsParameter(*atMs));
        form.add("nocache", "1");  // VictoriaMetrics: no -search.latencyOffset (PromClient.h)
        return request("/api/v1/query", form.take());
    }

    // Runs every request with at most maxConcurrentQueries in flight and decodes each answer as it
    // completes, on this thread.
    std::vector<QueryResult> run(std::span<const Request> requests, const Decode& decode) {
        std::vector<QueryResult> results(requests.size());
        RequestAuth auth;
        std::string authError;
        if (!buildAuth(auth, authError)) {
            for (auto& r : results) r = failed(authError);
            return results;
        }
        std::size_t next = 0;
        while (next < requests.size() || pool_.active() > 0) {
            while (pool_.active() < options_.maxConcurrentQueries && next < requests.size()) {
                pool_.start(requests[next], auth, options_, next);
                ++next;
            }
            pool_.perform(std::chrono::milliseconds(100), [&](CurlTransfer& transfer, CURLcode code) {
                results[transfer.tag()] = finish(transfer, code, decode);
            });
        }
        curl_slist_free_all(auth.headers);
        return results;
    }

    detail::Decoder& decoder() { return decoder_; }

private:
    static StoreOptions normalised(StoreOptions options) {
        while (!options.url.empty() && options.url.back() == '/') options.url.pop_back();
        options.maxConcurrentQueries = std::max<std::size_t>(1, options.maxConcurrentQueries);
        return options;
    }

    bool buildAuth(RequestAuth& auth, std::string& error) {
        auth.headers = curl_slist_append(auth.headers, "Accept: application/json");
        // libcurl would otherwise wait for "100 Continue" before a large POST body.
        auth.headers = curl_slist_append(auth.headers, "Expect:");
        if (!options_.tenant.empty())
            auth.headers = curl_slist_append(auth.headers, ("X-Scope-OrgID: " + options_.tenant).c_str());
        if (bearer_.configured()) {
            const auto token = bearer_.read(error);
            if (!token) {
                error = "bearer token: " + error;
                curl_slist_free_all(auth.headers);
                auth.headers = nullptr;
                return false;
            }
            auth.headers = curl_slist_append(auth.headers, ("Authorization: Bearer " + *token).c_str());
        }
        if (!options_.basicAuthUser.empty()) {
            auth.basicUser = options_.basicAuthUser;
            if (password_.configured()) {
                const auto password = password_.read(error);
                if (!password) {
                    error = "basic-auth password: " + error;
                    curl_slist_free_all(auth.headers);
                    auth.headers = nullptr;
                    return false;
                }
                auth.basicPassword = *password;
            }
        }
        return true;
    }

    QueryResult finish(CurlTransfer& transfer, CURLcode code, const Decode& decode) {
        QueryResult result;
        const int status = transfer.httpStatus();
        if (code != CURLE_OK) {
            result = failed(transfer.describeFailure(code, options_));
        } else if (status >= 200 && status < 300) {
            result = decode(transfer.tag(), transfer.body());
            if (!result.ok && !decoder_.lastErrorFromStore())
                result.error += " (answer from " + transfer.endpoint() + ")";
        } else if (auto storeError = decoder_.storeError(transfer.body())) {
            // VictoriaMetrics' errorType is the status code itself ("422: ..."): said once.
            const std::string code = std::to_string(status);
            if (storeError->rfind(code + ": ", 0) == 0) storeError->erase(0, code.size());
            result = failed("HTTP " + code + (storeError->front() == ':' ? "" : " ") + *storeError);
        } else {
            const std::string start = oneLine(transfer.body(), 200);
            result = failed("HTTP " + std::to_string(status) + " from " + transfer.endpoint() +
                            (start.empty() ? std::string(" (empty body)") : ": " + start));
        }
        result.httpStatus = status;
        result.seconds = secondsSince(transfer.started());
        return result;
    }

    StoreOptions options_;
    SecretFile bearer_;
    SecretFile password_;
    // Handles live as long as the client, so their connections and TLS sessions are reused.
    detail::TransferPool pool_;
    detail::Decoder decoder_;
};

PromClient::PromClient(StoreOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
PromClient::~PromClient() = default;

const StoreOptions& PromClient::options() const { return impl_->options(); }

QueryResult PromClient::instantQuery(std::string_view promql, std::optional<std::int64_t> atMs,
                                     const InstantCallback& onSample) {
    const Request request = impl_->instantRequest(promql, atMs);
    auto results = impl_->run(std::span(&request, 1), [&](std::size_t, std::string_view body) {
        return impl_->decoder().instant(body, onSample);
    });
    return std::move(results.front());
}

QueryResult PromClient::rangeQuery(std::string_view promql, std::int64_t startMs, std::int64_t endMs,
                                   std::int64_t stepMs, const RangeCallback& onSeries) {
    if (stepMs <= 0) return failed("range query step must be positive (got " + std::to_string(stepMs) + " ms)");
    if (endMs < startMs) return failed("range query ends before it starts");
    Form form;
    form.add("query", promql)
        .add("start", secondsParameter(startMs))
        .add("end", secondsParameter(endMs))
        .add("step", secondsParameter(stepMs));
    const Request request = impl_->request("/api/v1/query_range", form.take());
    auto results = impl_->run(std::span(&request, 1), [&](std::size_t, std::string_view body) {
        return impl_->decoder().range(body, onSeries);
    });
    return std::move(results.front());
}

std::vector<QueryResult> PromClient::instantQueries(std::span<const std::string> promqls,
                                                    std::optional<std::int64_t> atMs,
                                                    const IndexedInstantCallback& onSample) {
    std::vector<Request> requests;
    requests.reserve(promqls.size());
    for (const auto& promql : promqls) requests.push_back(impl_->instantRequest(promql, atMs));
    return impl_->run(requests, [&](std::size_t query, std::string_view body) {
        return impl_->decoder().instant(
            body, [&](std::span<const Label> labels, Point point) { onSample(query, labels, point); });
    });
}

std::int64_t rangeStepFor(std::int64_t startMs, std::int64_t endMs, std::int64_t minStepMs, std::int64_t maxPoints) {
    const std::int64_t floorStep = std::max<std::int64_t>(1, minStepMs);
    if (endMs <= startMs || maxPoints < 2) return floorStep;
    // A range of `span` at step s holds floor(span / s) + 1 points; that is at most maxPoints
    // exactly when s > span / maxPoints. (Prometheus refuses floor(span / s) > 11000, one point
    // more than this allows.)
    const std::int64_t span = endMs - startMs;
    return std::max(floorStep, span / maxPoints + 1);
}

}  // namespace watchfloor::server::prom
