#include "StepTimeGrid.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {
constexpr float kNone = std::numeric_limits<float>::quiet_NaN();

float medianOf(std::vector<float> values) {
    if (values.empty()) return kNone;
    const auto mid = values.begin() + std::ptrdiff_t(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    if (values.size() % 2 == 1) return *mid;
    return (*mid + *std::max_element(values.begin(), mid)) / 2;
}
}  // namespace

StepTimeGrid::StepTimeGrid(const v1::StepTimeHeatmap& heatmap)
    : m_bucketStartMs(heatmap.bucket_start_unix_ms().begin(), heatmap.bucket_start_unix_ms().end()),
      m_stepMs(heatmap.step_ms()),
      m_idealStepS(heatmap.ideal_step_time_s()) {
    auto value = [](const v1::StepTimeRow& row, std::size_t c) {
        return int(c) < row.mean_step_time_s_size() ? row.mean_step_time_s(int(c)) : kNone;
    };
    std::size_t first = m_bucketStartMs.size();
    for (const auto& row : heatmap.rows())
        for (std::size_t c = 0; c < first; ++c)
            if (std::isfinite(value(row, c))) first = c;
    m_bucketStartMs.erase(m_bucketStartMs.begin(), m_bucketStartMs.begin() + std::ptrdiff_t(first));
    const std::size_t columns = m_bucketStartMs.size();
    for (const auto& row : heatmap.rows()) {
        m_trays.push_back({row.node_index(), QString::fromStdString(row.node_name()), 0});
        for (std::size_t c = 0; c < columns; ++c) m_stepS.push_back(value(row, first + c));
    }
    m_medianS.assign(columns, kNone);
    for (std::size_t c = 0; c < columns; ++c) {
        std::vector<float> present;
        for (int r = 0; r < rows(); ++r)
            if (const float s = stepS(r, int(c)); std::isfinite(s) && s > 0) present.push_back(s);
        m_medianS[c] = medianOf(std::move(present));
    }
    m_ratio.resize(m_stepS.size(), kNone);
    for (int r = 0; r < rows(); ++r) {
        double sum = 0;
        int count = 0;
        for (std::size_t c = 0; c < columns; ++c) {
            const float ratio = stepS(r, int(c)) / m_medianS[c];  // NaN when either is missing
            m_ratio[index(r, int(c))] = ratio;
            if (std::isfinite(ratio)) {
                sum += ratio;
                ++count;
            }
        }
        m_trays[std::size_t(r)].meanRatio = count > 0 ? sum / count : std::numeric_limits<double>::quiet_NaN();
    }
}

QStringList StepTimeGrid::trayNames() const {
    QStringList names;
    for (const Tray& t : m_trays) names << t.name;
    return names;
}

int StepTimeGrid::slowestRow() const {
    int best = -1;
    for (int r = 0; r < rows(); ++r)
        if (std::isfinite(meanRatio(r)) && (best < 0 || meanRatio(r) > meanRatio(best))) best = r;
    return best;
}

int StepTimeGrid::rowOfNode(quint32 nodeIndex) const {
    for (int r = 0; r < rows(); ++r)
        if (m_trays[std::size_t(r)].nodeIndex == nodeIndex) return r;
    return -1;
}

}  // namespace watchfloor::client
