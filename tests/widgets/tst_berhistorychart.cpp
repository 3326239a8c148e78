// Issue 31 item 7: a link's BER history on a log axis. A quiet bucket (no error, only a 95 % upper
// bound) is a hollow down-pointing mark at its bound, inside the plot, never at 0 or the axis
// floor; a value of 0 is left out, not drawn at the bottom; the axis spans the lines and the
// samples; the forecast's fan is drawn in the critical colour between the crossings.
#include "BerHistoryChart.h"

#include <QImage>
#include <QTest>

#include <cmath>

using namespace watchfloor::widgets;

namespace {
constexpr std::int64_t kNow = 1'800'000'000'000;
constexpr std::int64_t kBucket = 30 * 60'000;
constexpr std::int64_t kHour = 3'600'000;

BerChartData drifting() {
    BerChartData d;
    d.title = QStringLiteral("r01-n07-ib2");
    d.nowUnixMs = kNow;
    // Four quiet buckets (bounds 3e-15), then errors rising from 1e-15 to 8e-15.
    for (int i = 0; i < 4; ++i) d.samples.push_back({kNow - (11 - i) * kBucket, 3e-15, true});
    const double rising[] = {1e-15, 1.5e-15, 2e-15, 2.8e-15, 3.5e-15, 4.4e-15, 5.6e-15, 8e-15};
    for (int i = 0; i < 8; ++i) d.samples.push_back({kNow - (7 - i) * kBucket, rising[i], false});
    d.lines = {{QStringLiteral("Normal 1e-15"), 1e-15, BerThreshold::Level::Normal},
               {QStringLiteral("Warning 5e-15"), 5e-15, BerThreshold::Level::Warning},
               {QStringLiteral("Error 1e-14"), 1e-14, BerThreshold::Level::Error}};
    d.band.shown = true;
    d.band.fromMs = kNow;
    d.band.fromValue = 8e-15;
    d.band.earliestMs = kNow + 2 * kHour;
    d.band.likelyMs = kNow + 3 * kHour;
    d.band.latestMs = kNow + 6 * kHour;
    d.band.value = 1e-14;
    d.band.label = QStringLiteral("Error in 3.0 h (2.0–6.0)");
    return d;
}
}  // namespace

class TestBerHistoryChart : public QObject {
    Q_OBJECT
private slots:
    void anUpperBoundSitsAtItsBoundNeverAtZero() {
        BerHistoryChart chart;
        chart.resize(720, 300);
        chart.setData(drifting());
        const std::vector<BerHistoryChart::Marker> marks = chart.markers();
        QCOMPARE(marks.size(), std::size_t(12));
        const QRectF plot = chart.plotRect();
        for (int i = 0; i < 4; ++i) {
            const auto& m = marks[std::size_t(i)];
            QVERIFY(m.upperBound);
            QCOMPARE(m.value, 3e-15);
            QCOMPARE(m.at.y(), chart.yOf(3e-15));
            // Inside the plot and well above its floor: not drawn as a BER of (nearly) nothing.
            QVERIFY2(m.at.y() < plot.bottom() - plot.height() / 4, qPrintable(QString::number(m.at.y())));
            QVERIFY(m.at.y() > plot.top());
        }
        // A quiet bucket sits above a measured 1e-15 and under the Warning line.
        QVERIFY(marks[0].at.y() < marks[4].at.y());
        QVERIFY(marks[0].at.y() > chart.yOf(5e-15));
        QVERIFY(!marks[11].upperBound);
        QCOMPARE(marks[11].value, 8e-15);
    }

    void aZeroIsLeftOutNotDrawnAtTheFloor() {
        BerChartData d = drifting();
        d.samples.push_back({kNow + kBucket, 0.0, false});
        d.samples.push_back({kNow + 2 * kBucket, std::nan(""), true});
        BerHistoryChart chart;
        chart.resize(720, 300);
        chart.setData(d);
        QCOMPARE(chart.markers().size(), std::size_t(12));
        QVERIFY(std::isnan(chart.yOf(0.0)));
        QVERIFY(std::isnan(chart.yOf(-1e-15)));
        // The axis spans the samples and the lines (1e-15 to 1e-14), a third of a decade to spare.
        const auto [bottom, top] = chart.logRange();
        QVERIFY(std::abs(bottom - (-15.33)) < 1e-9);
        QVERIFY(std::abs(top - (-13.67)) < 1e-9);
    }

    void linesBoundsAndFanArePainted() {
        BerHistoryChart chart;
        chart.resize(720, 300);
        const Theme& theme = Theme::builtin(ThemeVariant::Dark);
        chart.setTheme(theme);
        chart.setData(drifting());
        const QImage image = chart.grab().toImage();
        const auto near = [](QColor a, QColor b) {
            return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) < 60;
        };
        const ThemeColors& c = theme.colors();
        // The Error line across the plot.
        const int yError = int(std::lround(chart.yOf(1e-14)));
        const QRectF plot = chart.plotRect();
        bool errorLine = false;
        for (int dy = -1; dy <= 1 && !errorLine; ++dy)
            errorLine = near(image.pixelColor(int(plot.left() + 20), yError + dy), c.crit);
        QVERIFY(errorLine);
        // The fan: between the newest sample and the line, ahead of now, tinted toward the critical colour.
        const int xFan = int(chart.xOf(kNow + 3 * kHour + kHour / 2));
        const int yFan = int(chart.yOf(9.6e-15));
        const QColor fan = image.pixelColor(xFan, yFan);
        QVERIFY2(fan.red() > c.window.red() + 15, qPrintable(fan.name()));
        // A quiet bucket's mark is hollow: its outline in the text colour, its inside the window's.
        const BerHistoryChart::Marker quiet = chart.markers()[0];
        QVERIFY(near(image.pixelColor(int(quiet.at.x()), int(quiet.at.y() + 3)), c.window));
        bool outline = false;
        for (int dx = -5; dx <= 5 && !outline; ++dx)
            outline = near(image.pixelColor(int(quiet.at.x()) + dx, int(std::lround(quiet.at.y()))), c.text);
        QVERIFY(outline);
        if (const QByteArray out = qgetenv("WATCHFLOOR_BER_CHART_PNG"); !out.isEmpty())
            QVERIFY(chart.exportPng(QString::fromLocal8Bit(out)).ok);
    }

    void withoutSamplesItSaysWhy() {
        BerChartData d;
        d.emptyText = QStringLiteral("no buckets yet");
        BerHistoryChart chart;
        chart.resize(400, 200);
        chart.setData(d);
        QVERIFY(chart.markers().empty());
        QCOMPARE(chart.logRange(), std::make_pair(-16.0, -13.0));
        QVERIFY(!chart.grab().isNull());
    }
};

QTEST_MAIN(TestBerHistoryChart)
#include "tst_berhistorychart.moc"
