// GetStepTimeHeatmap: a job's trays x time, from the history fleetd keeps of each tray's
// NODE_STEP_TIME_S. One call for the whole job, so the console's drill-down is one deadline and
// every row shares the same buckets.
#include "RequestHandlers.h"

#include "TextBounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace watchfloor::server::service {

namespace v1 = watchfloor::v1;
using grpc::Status;
using grpc::StatusCode;

namespace {
constexpr std::size_t kMaxJobNameBytes = 256;
constexpr std::int64_t kMaxRangeMs = 7LL * 24 * 3'600'000;
constexpr std::int64_t kDefaultBuckets = 120;
constexpr std::int64_t kMaxCells = 100'000;  // trays x buckets: a 1,000-tray job still gets 100 buckets

Status invalid(std::string message) { return Status(StatusCode::INVALID_ARGUMENT, std::move(message)); }

Status checkRequest(const v1::StepTimeHeatmapRequest& request) {
    if (request.job_name().empty()) return invalid("job_name is empty");
    if (request.job_name().size() > kMaxJobNameBytes)
        return invalid("job_name of " + std::to_string(request.job_name().size()) + " bytes; at most " +
                       std::to_string(kMaxJobNameBytes));
    const std::int64_t start = request.start_unix_ms(), end = request.end_unix_ms();
    if (end <= start)
        return invalid("end_unix_ms " + std::to_string(end) + " must be after start_unix_ms " + std::to_string(start));
    if (end - start > kMaxRangeMs)
        return invalid("range of " + std::to_string((end - start) / 3'600'000) + " h exceeds the 7-day maximum");
    if (request.step_ms() < 0) return invalid("step_ms must not be negative");
    return Status::OK;
}

// Mean per bucket into `row`, NaN where the tray took no step; the range mean over all steps.
void fillRow(const HistoryResult& result, std::int64_t startMs, std::size_t buckets, v1::StepTimeRow* row) {
    constexpr float kNone = std::numeric_limits<float>::quiet_NaN();
    row->mutable_mean_step_time_s()->Resize(static_cast<int>(buckets), kNone);
    double sum = 0;
    std::uint64_t count = 0;
    for (const auto& p : result.points) {
        const std::int64_t k = (p.startMs - startMs) / result.stepMs;
        if (k < 0 || std::size_t(k) >= buckets) continue;
        row->set_mean_step_time_s(static_cast<int>(k), p.mean);
        sum += double(p.mean) * p.count;
        count += p.count;
    }
    row->set_range_mean_step_time_s(count > 0 ? sum / double(count) : std::numeric_limits<double>::quiet_NaN());
}
}  // namespace

Status answerStepTimeHeatmap(const v1::StepTimeHeatmapRequest& request, const FleetStateStore& store,
                             const HistoryStore& history, v1::StepTimeHeatmap* response) {
    if (Status status = checkRequest(request); !status.ok()) return status;
    const std::string quoted = quotedForMessage(request.job_name());
    const auto entity = store.findEntity(request.job_name());
    const auto job = entity ? store.job(*entity) : std::nullopt;
    if (!job) return Status(StatusCode::NOT_FOUND, "no job named " + quoted);

    const std::int64_t start = request.start_unix_ms(), end = request.end_unix_ms();
    std::int64_t step =
        request.step_ms() > 0 ? request.step_ms() : (end - start + kDefaultBuckets - 1) / kDefaultBuckets;
    // Every tray series sits in the same history tier: the first kept one settles the step.
    std::vector<std::optional<std::uint32_t>> series;
    bool stepSettled = false;
    for (const std::uint32_t node : job->node_indexes()) {
        auto id = store.findSeries(node, v1::NODE_STEP_TIME_S);
        if (id && !history.keeps(*id)) id.reset();
        if (id && !stepSettled) {
            step = std::max(step, history.query(*id, start, end, step).stepMs);
            stepSettled = true;
        }
        series.push_back(id);
    }
    const std::int64_t buckets = (end - start + step - 1) / step;
    const std::int64_t cells = buckets * std::max<std::int64_t>(1, job->node_indexes_size());
    if (cells > kMaxCells)
        return invalid(std::to_string(job->node_indexes_size()) + " trays x " + std::to_string(buckets) +
                       " buckets is more than " + std::to_string(kMaxCells) + " cells; use a step of at least " +
                       std::to_string((end - start) * job->node_indexes_size() / kMaxCells + 1) + " ms");

    response->set_job_name(job->name());
    response->set_step_ms(step);
    response->set_ideal_step_time_s(job->ideal_step_time_s());
    for (std::int64_t k = 0; k < buckets; ++k) response->add_bucket_start_unix_ms(start + k * step);
    for (int i = 0; i < job->node_indexes_size(); ++i) {
        auto* row = response->add_rows();
        row->set_node_index(job->node_indexes(i));
        row->set_node_name(store.entityName(job->node_indexes(i)));
        HistoryResult result;
        result.stepMs = step;
        if (series[std::size_t(i)]) result = history.query(*series[std::size_t(i)], start, end, step);
        fillRow(result, start, std::size_t(buckets), row);
    }
    return Status::OK;
}

}  // namespace watchfloor::server::service
