#pragma once
// A client for the Prometheus HTTP API (/api/v1/query, /api/v1/query_range) as Prometheus,
// VictoriaMetrics, Thanos Querier and Grafana Mimir serve it: the way fleetd reads a real site's
// telemetry. Answers are decoded as they stream out of one buffer, with no per-series allocation,
// because one poll of a large fleet is millions of series.
//
// Newest samples: every instant query carries `nocache=1`. VictoriaMetrics (single-node and
// vmselect, every release) then evaluates it at the time asked instead of -search.latencyOffset
// (30 s) earlier, i.e. answers with its newest samples; Prometheus, Thanos Querier and Mimir ignore
// the argument (docs/real-telemetry.md, "What each store answers with"). Range queries do not
// carry it: they keep VictoriaMetrics' response cache.
//
// Callbacks and failures: samples are handed to the callback while the answer is decoded, so a
// query that fails part-way (malformed or truncated JSON, a wrong type, a "status":"error" that
// follows "data") has already delivered QueryResult::series series. Discard every value of a
// query whose result is not ok.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::prom {

struct StoreOptions {
    std::string url;     // base incl. any path prefix: "http://127.0.0.1:9090", "https://mimir.example/prometheus"
    std::string tenant;  // X-Scope-OrgID when not empty
    std::string bearerTokenFile;  // "Authorization: Bearer <file contents, trimmed>", re-read when the file changes
    std::string basicAuthUser, basicAuthPasswordFile;
    std::string caFile, clientCertFile, clientKeyFile;    // TLS
    std::chrono::milliseconds timeout{10000};             // whole request
    std::size_t postAbove = 1024;                         // queries whose URL would exceed this go as POST form bodies
    std::size_t maxResponseBytes = std::size_t(1) << 31;  // larger answers are refused (error), not buffered
    // Extensions.
    std::size_t maxConcurrentQueries = 6;         // instantQueries' transfers in flight at once
    int maxRedirects = 3;                         // followed (http/https only, POST stays POST); more is an error
    std::chrono::milliseconds connectTimeout{0};  // TCP + TLS connect; 0 = `timeout`
    // A redirect to another host is refused (the scraper: a page is mapped onto the host it was
    // asked of, so another host's page must never be read as this one's).
    bool redirectsStayOnHost = false;
    std::string maxResponseBytesName = "maxResponseBytes";  // what the size-cap error calls the cap
    // Accept-Encoding: what Prometheus and Grafana ask for. Offering every encoding libcurl
    // decodes (brotli too) made cpp-httplib servers compress each answer at brotli's top quality,
    // seconds of CPU for a large one: the answer then timed out instead of arriving.
    std::string acceptEncoding = "gzip";
};

// Views into the answer being decoded (or into the decoder's scratch for escaped strings):
// valid only during the callback.
struct Label {
    std::string_view name, value;
};
struct Point {
    std::int64_t timeMs;
    double value;
};

struct QueryResult {
    bool ok = false;
    int httpStatus = 0;                 // 0 = no HTTP answer
    std::string error;                  // one line an operator can act on
    std::vector<std::string> warnings;  // the store's warnings (bounded count and length)
    std::size_t series = 0;             // series handed to the callback (also when !ok)
    double seconds = 0;                 // request + decode time
};

using InstantCallback = std::function<void(std::span<const Label> labels, Point sample)>;
using RangeCallback = std::function<void(std::span<const Label> labels, std::span<const Point> points)>;
using IndexedInstantCallback = std::function<void(std::size_t query, std::span<const Label>, Point)>;

class PromClient {  // one per store; used from one thread at a time
public:
    explicit PromClient(StoreOptions options);
    ~PromClient();
    PromClient(const PromClient&) = delete;
    PromClient& operator=(const PromClient&) = delete;

    // atMs empty: the store's "now".
    QueryResult instantQuery(std::string_view promql, std::optional<std::int64_t> atMs,
                             const InstantCallback& onSample);
    QueryResult rangeQuery(std::string_view promql, std::int64_t startMs, std::int64_t endMs, std::int64_t stepMs,
                           const RangeCallback& onSeries);
    // Several instant queries at once over one keep-alive connection pool, at most
    // options().maxConcurrentQueries in flight; each gets its own timeout. onSample gets the
    // query's position in promqls. Answers are decoded one at a time on the calling thread.
    std::vector<QueryResult> instantQueries(std::span<const std::string> promqls, std::optional<std::int64_t> atMs,
                                            const IndexedInstantCallback& onSample);
    const StoreOptions& options() const;

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

// Decoding alone (tests, fuzzing, the benchmark). `json` must stay valid during the call; it is
// copied once into a padded buffer, as simdjson reads up to kJsonPadding bytes past the end.
//
// decodeInstant accepts resultType "vector" (one callback per series) and "scalar" (one callback
// with no labels, e.g. for `time()` or `scalar(...)`); "matrix" (a range selector such as [5m] in
// an instant query) and "string" are refused. decodeRange accepts "matrix" only. Native-histogram
// series carry no float value: they are skipped and counted in a warning.
QueryResult decodeInstant(std::string_view json, const InstantCallback& onSample);
QueryResult decodeRange(std::string_view json, const RangeCallback& onSeries);

// The same without the copy, for callers that own a buffer with kJsonPadding readable bytes after
// json.end() (their content does not matter).
inline constexpr std::size_t kJsonPadding = 64;
QueryResult decodeInstantPadded(std::string_view json, const InstantCallback& onSample);
QueryResult decodeRangePadded(std::string_view json, const RangeCallback& onSeries);

// The step for a range so no series exceeds the store's 11,000-point cap (and never below minStepMs).
std::int64_t rangeStepFor(std::int64_t startMs, std::int64_t endMs, std::int64_t minStepMs,
                          std::int64_t maxPoints = 11000);

}  // namespace watchfloor::server::prom
