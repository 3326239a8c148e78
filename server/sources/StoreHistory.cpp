#include "StoreHistory.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace watchfloor::server::sources {

namespace v1 = watchfloor::v1;
using service::HistoryPoint;
using service::HistoryResult;

namespace {

const telemetry::ExporterField* dcgmFieldFor(v1::Metric metric) {
    for (const auto& field : telemetry::dcgmDefaultFields())
        if (field.metric == metric) return &field;
    return nullptr;
}

std::string seconds(std::int64_t ms) { return std::to_string(std::max<std::int64_t>(ms / 1000, 1)) + "s"; }

}  // namespace

StoreHistory::StoreHistory(const v1::Topology& topology, std::vector<prom::StoreOptions> stores,
                           std::chrono::milliseconds minStep)
    : names_(topology), minStepMs_(std::max<std::int64_t>(minStep.count(), 1000)) {
    std::unordered_map<std::uint32_t, std::uint32_t> rackOfNode;
    for (const auto& node : topology.nodes()) {
        const std::string host = node.hostname().empty() ? node.name() : node.hostname();
        hostOfNode_[node.index()] = host;
        hostsOfRack_[node.rack_index()].push_back(host);
    }
    for (const auto& gpu : topology.gpus()) gpus_[gpu.index()] = {hostOfNode_[gpu.node_index()], gpu.dcgm_gpu_index()};
    for (auto& store : stores) clients_.push_back(std::make_unique<prom::PromClient>(std::move(store)));
}

StoreHistory::~StoreHistory() = default;

std::optional<std::string> StoreHistory::deviceSelector(std::uint32_t entity, v1::Metric metric,
                                                        const std::string& hostLabel) const {
    if (auto gpu = gpus_.find(entity); gpu != gpus_.end()) {
        const auto* field = dcgmFieldFor(metric);
        if (!field) return std::nullopt;
        return std::string(field->name) + "{" + hostLabel + "=~\"" + names_.hostRegex(gpu->second.host) + "\",gpu=\"" +
               std::to_string(gpu->second.dcgmIndex) + "\"}";
    }
    if (auto node = hostOfNode_.find(entity); node != hostOfNode_.end() && metric == v1::NODE_HWMON_TEMP_MAX_C)
        return std::string(telemetry::kHwmonTempFamily) + "{instance=~\"" + names_.hostRegex(node->second) +
               "(:[0-9]+)?\"}";
    return std::nullopt;
}

std::optional<std::string> StoreHistory::rackExpression(std::uint32_t entity, v1::Metric metric,
                                                        const std::string& hostLabel) const {
    auto rack = hostsOfRack_.find(entity);
    if (rack == hostsOfRack_.end()) return std::nullopt;
    const char* aggregate = metric == v1::RACK_GPU_TEMP_MAX_C    ? "max"
                            : metric == v1::RACK_GPU_TEMP_MEAN_C ? "avg"
                                                                 : nullptr;
    if (!aggregate) return std::nullopt;
    std::string hosts;
    for (const auto& host : rack->second) hosts += (hosts.empty() ? "" : "|") + names_.hostRegex(host);
    return std::string(aggregate) + "(DCGM_FI_DEV_GPU_TEMP{" + hostLabel + "=~\"" + hosts + "\"})";
}

StoreHistory::Answer StoreHistory::query(std::uint32_t entity, v1::Metric metric, std::int64_t startMs,
                                         std::int64_t endMs, std::int64_t stepMs) const {
    const std::int64_t step = std::max({stepMs, prom::rangeStepFor(startMs, endMs, minStepMs_)});
    // The label spelling is the site's: try dcgm-exporter's classic one, then 4.8's.
    for (const std::string hostLabel : {"Hostname", "hostname"}) {
        Answer answer;
        if (auto selector = deviceSelector(entity, metric, hostLabel)) {
            const auto* field = dcgmFieldFor(metric);
            answer = overWindows(*selector, field ? field->toProto : 1.0, startMs, endMs, step);
        } else if (auto expression = rackExpression(entity, metric, hostLabel)) {
            answer = atInstants(*expression, startMs, endMs, step);
        } else {
            return {};  // not kept in the store: fleetd's own history
        }
        if (!answer.error.empty() || (answer.result && !answer.result->points.empty())) return answer;
        if (metric == v1::NODE_HWMON_TEMP_MAX_C) return answer;  // no host label involved
    }
    return {HistoryResult{step, {}}, {}};
}

// One bucket per window: mean, min, max, last and count of every raw sample in it.
StoreHistory::Answer StoreHistory::overWindows(const std::string& selector, double scale, std::int64_t startMs,
                                               std::int64_t endMs, std::int64_t stepMs) const {
    const std::string window = "[" + seconds(stepMs) + "]";
    const char* functions[] = {"avg_over_time", "min_over_time", "max_over_time", "last_over_time", "count_over_time"};
    std::map<std::int64_t, HistoryPoint> buckets;
    std::lock_guard lock(mutex_);
    for (int f = 0; f < 5; ++f) {
        // max() across series: a host reported twice (two shards) is one GPU.
        const std::string promql = "max(" + std::string(functions[f]) + "(" + selector + window + "))";
        for (const auto& client : clients_) {
            auto result = client->rangeQuery(
                promql, startMs, endMs, stepMs, [&](std::span<const prom::Label>, std::span<const prom::Point> points) {
                    for (const auto& p : points) {
                        // A point at time t covers (t - step, t]: the bucket starts one step earlier.
                        auto& b = buckets.try_emplace(p.timeMs - stepMs, HistoryPoint{p.timeMs - stepMs, 0, 0, 0, 0, 0})
                                      .first->second;
                        const float v = static_cast<float>(f == 4 ? p.value : p.value * scale);
                        (f == 0 ? b.mean : f == 1 ? b.min : f == 2 ? b.max : f == 3 ? b.last : b.mean) = v;
                        if (f == 4) b.count = static_cast<std::uint32_t>(std::max(0.0, p.value));
                    }
                });
            if (!result.ok) return {std::nullopt, result.error};
        }
    }
    HistoryResult out{stepMs, {}};
    for (auto& [start, point] : buckets)
        if (start >= startMs - stepMs && point.count > 0) out.points.push_back(point);
    return {out, {}};
}

StoreHistory::Answer StoreHistory::atInstants(const std::string& expression, std::int64_t startMs, std::int64_t endMs,
                                              std::int64_t stepMs) const {
    HistoryResult out{stepMs, {}};
    std::lock_guard lock(mutex_);
    for (const auto& client : clients_) {
        auto result = client->rangeQuery(expression, startMs, endMs, stepMs,
                                         [&](std::span<const prom::Label>, std::span<const prom::Point> points) {
                                             for (const auto& p : points) {
                                                 const float v = static_cast<float>(p.value);
                                                 out.points.push_back({p.timeMs, v, v, v, v, 1});
                                             }
                                         });
        if (!result.ok) return {std::nullopt, result.error};
    }
    std::sort(out.points.begin(), out.points.end(),
              [](const HistoryPoint& a, const HistoryPoint& b) { return a.startMs < b.startMs; });
    return {out, {}};
}

}  // namespace watchfloor::server::sources
