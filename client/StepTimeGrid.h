#pragma once
// A job's per-tray step times (fleet.proto StepTimeHeatmap) as the straggler drill-down reads
// them: each cell relative to the median tray of its time bucket, so the fleet's diurnal drift and
// the job's own pace cancel and a tray 15 % slow reads 1.15 wherever it sits in the job. The
// median, not the mean or the ideal: one slow tray must not move its own yardstick. Leading
// buckets in which no tray has a step (before fleetd started, or the job) are dropped.

#include "watchfloor/v1/fleet.pb.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace watchfloor::client {

class StepTimeGrid {
public:
    StepTimeGrid() = default;
    explicit StepTimeGrid(const watchfloor::v1::StepTimeHeatmap& heatmap);

    int rows() const { return int(m_trays.size()); }
    int columns() const { return int(m_bucketStartMs.size()); }
    QStringList trayNames() const;
    quint32 nodeIndex(int row) const { return m_trays[std::size_t(row)].nodeIndex; }
    std::int64_t bucketStartMs(int column) const { return m_bucketStartMs[std::size_t(column)]; }
    std::int64_t stepMs() const { return m_stepMs; }
    double idealStepS() const { return m_idealStepS; }

    // Seconds a step on that tray in that bucket, NaN when it took none.
    float stepS(int row, int column) const { return m_stepS[index(row, column)]; }
    // The same over the bucket's median tray, NaN when either is missing.
    float ratio(int row, int column) const { return m_ratio[index(row, column)]; }
    float medianStepS(int column) const { return m_medianS[std::size_t(column)]; }
    // The tray's mean ratio over the buckets it has, NaN when none.
    double meanRatio(int row) const { return m_trays[std::size_t(row)].meanRatio; }
    // The row with the highest mean ratio; -1 without data.
    int slowestRow() const;
    int rowOfNode(quint32 nodeIndex) const;

private:
    struct Tray {
        quint32 nodeIndex = 0;
        QString name;
        double meanRatio = 0;
    };
    std::size_t index(int row, int column) const {
        return std::size_t(row) * m_bucketStartMs.size() + std::size_t(column);
    }

    std::vector<Tray> m_trays;
    std::vector<std::int64_t> m_bucketStartMs;
    std::int64_t m_stepMs = 0;
    double m_idealStepS = 0;
    std::vector<float> m_stepS;    // row-major
    std::vector<float> m_ratio;    // row-major
    std::vector<float> m_medianS;  // per column
};

}  // namespace watchfloor::client
