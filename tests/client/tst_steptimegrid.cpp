// StepTimeGrid, the drill-down's reading of GetStepTimeHeatmap: ratios to each bucket's median
// tray (a slow tray does not move its own yardstick), missing buckets stay missing, leading empty
// buckets are dropped, the slowest tray is the one with the highest mean ratio.

#include "StepTimeGrid.h"

#include <QTest>

#include <cmath>

using watchfloor::client::StepTimeGrid;
namespace v1 = watchfloor::v1;

namespace {
constexpr float kNone = std::numeric_limits<float>::quiet_NaN();

v1::StepTimeHeatmap heatmap(const std::vector<std::vector<float>>& rows) {
    v1::StepTimeHeatmap h;
    h.set_step_ms(60'000);
    h.set_ideal_step_time_s(10);
    for (std::size_t c = 0; c < rows.front().size(); ++c) h.add_bucket_start_unix_ms(std::int64_t(c) * 60'000);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        auto* row = h.add_rows();
        row->set_node_index(100 + std::uint32_t(r));
        row->set_node_name("n" + std::to_string(r));
        for (float v : rows[r]) row->add_mean_step_time_s(v);
    }
    return h;
}
}  // namespace

class TestStepTimeGrid : public QObject {
    Q_OBJECT
private slots:
    void ratiosAreToTheMedianTray() {
        // A drift of the whole job (10 -> 11 s) cancels; the slow tray reads 1.15 throughout.
        const StepTimeGrid grid(heatmap({{10, 11}, {10, 11}, {11.5f, 12.65f}, {10, 11}}));
        QCOMPARE(grid.rows(), 4);
        QCOMPARE(grid.columns(), 2);
        QCOMPARE(grid.medianStepS(1), 11.0f);
        QVERIFY(std::abs(grid.ratio(2, 0) - 1.15f) < 1e-5f);
        QVERIFY(std::abs(grid.ratio(2, 1) - 1.15f) < 1e-5f);
        QCOMPARE(grid.ratio(0, 1), 1.0f);
        QCOMPARE(grid.slowestRow(), 2);
        QCOMPARE(grid.rowOfNode(102), 2);
        QCOMPARE(grid.rowOfNode(7), -1);
        QVERIFY(std::abs(grid.meanRatio(2) - 1.15) < 1e-5);
    }

    void missingStaysMissingAndLeadingGapsGo() {
        const StepTimeGrid grid(
            heatmap({{kNone, kNone, 10, kNone, 10}, {kNone, kNone, 10, 10, 10}, {kNone, kNone, 12, 12, 12}}));
        QCOMPARE(grid.columns(), 3);  // the two leading empty minutes dropped
        QCOMPARE(grid.bucketStartMs(0), 120'000);
        QVERIFY(std::isnan(grid.stepS(0, 1)));  // a gap inside the range stays a gap
        QVERIFY(std::isnan(grid.ratio(0, 1)));
        QCOMPARE(grid.medianStepS(1), 11.0f);  // of the two trays with a step then
        QCOMPARE(grid.slowestRow(), 2);
        QCOMPARE(grid.trayNames(), QStringList({"n0", "n1", "n2"}));
    }

    void nothingAtAll() {
        const StepTimeGrid grid(heatmap({{kNone, kNone}, {kNone, kNone}}));
        QCOMPARE(grid.columns(), 0);
        QCOMPARE(grid.slowestRow(), -1);
        QVERIFY(std::isnan(grid.meanRatio(0)));
    }
};

QTEST_GUILESS_MAIN(TestStepTimeGrid)
#include "tst_steptimegrid.moc"
