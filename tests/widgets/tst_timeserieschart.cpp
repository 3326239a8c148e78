#include "StackedBreakdownChart.h"
#include "TimeSeriesChart.h"

#include <QChartView>
#include <QFile>
#include <QGraphicsTextItem>
#include <QImage>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace watchfloor::widgets;

namespace {

QStringList readLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

constexpr qint64 kT0 = 1'780'000'000'000;  // 2026-05-28 UTC, ms

}  // namespace

class TestTimeSeriesChart : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void reducesTenThousandPointsPerPixelColumn();
    void csvHasOneRowPerRawPointInWindow();
    void gapsAreDrawnAsBreaks();
    void pngIsWritten();
    void exportErrorsNameThePath();
    void stackedBreakdownTotalsAndCsv();
    void stackedSharesStopAtTheirCeiling();
    void timeLabelsReadableAtEveryWidth_data();
    void timeLabelsReadableAtEveryWidth();
    void annotationMarkersSitAtTheirTime();

private:
    TimeSeriesChart* m_chart = nullptr;
    QTemporaryDir m_dir;
};

void TestTimeSeriesChart::init() {
    QVERIFY(m_dir.isValid());
    m_chart = new TimeSeriesChart;
    m_chart->resize(800, 300);
    m_chart->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_chart));
}

void TestTimeSeriesChart::cleanup() { delete m_chart; }

void TestTimeSeriesChart::reducesTenThousandPointsPerPixelColumn() {
    const int s = m_chart->addSeries(QStringLiteral("temp"));
    QList<QPointF> points;
    for (int i = 0; i < 10'000; ++i) points.append(QPointF(double(kT0 + i * 1000), 60 + 10 * std::sin(i / 50.0)));
    m_chart->setSeriesPoints(s, points);
    QCOMPARE(m_chart->rawPoints(s).size(), 10'000);
    const int shown = m_chart->displayedPointCount(s);
    QVERIFY2(shown > 0 && shown <= 4 * m_chart->width(), qPrintable(QString::number(shown)));
    QVERIFY(shown < 10'000);

    // A narrower chart re-reduces from the raw points onto its new plot width.
    m_chart->resize(300, 300);
    QTRY_VERIFY2(m_chart->displayedPointCount(s) <= 4 * 300,
                 qPrintable(QString::number(m_chart->displayedPointCount(s))));
    QVERIFY(m_chart->displayedPointCount(s) > 0);
}

void TestTimeSeriesChart::csvHasOneRowPerRawPointInWindow() {
    const int a = m_chart->addSeries(QStringLiteral("supply"));
    const int b = m_chart->addSeries(QStringLiteral("return, manifold"));  // needs quoting
    QList<QPointF> pa, pb;
    for (int i = 0; i < 100; ++i) {
        pa.append(QPointF(double(kT0 + i * 1000), 25.0 + i * 0.01));
        pb.append(QPointF(double(kT0 + i * 1000), i == 50 ? std::nan("") : 35.0));
    }
    m_chart->setSeriesPoints(a, pa);
    m_chart->setSeriesPoints(b, pb);
    const QString all = m_dir.filePath("all.csv");
    QVERIFY(m_chart->exportCsv(all).ok);
    QStringList lines = readLines(all);
    QCOMPARE(lines.size(), 1 + 200);
    QCOMPARE(lines[0], QStringLiteral("time_utc,series,value"));
    QCOMPARE(lines[1], QStringLiteral("2026-05-28T20:26:40.000Z,supply,25"));
    QVERIFY(lines.contains(QStringLiteral("2026-05-28T20:27:30.000Z,\"return, manifold\",")));  // blank stays blank

    // A window keeps only its rows (inclusive ends): seconds 10..19 → 10 rows per series.
    m_chart->setTimeRange(QDateTime::fromMSecsSinceEpoch(kT0 + 10'000, Qt::UTC),
                          QDateTime::fromMSecsSinceEpoch(kT0 + 19'000, Qt::UTC));
    const QString window = m_dir.filePath("window.csv");
    QVERIFY(m_chart->exportCsv(window).ok);
    lines = readLines(window);
    QCOMPARE(lines.size(), 1 + 20);
    QVERIFY(lines[1].startsWith(QStringLiteral("2026-05-28T20:26:50.000Z,supply,25.1")));
}

void TestTimeSeriesChart::gapsAreDrawnAsBreaks() {
    const int s = m_chart->addSeries(QStringLiteral("flow"));
    QList<QPointF> points;
    for (int i = 0; i < 120; ++i) {
        if (i >= 40 && i < 70) continue;  // a 30 s outage
        points.append(QPointF(double(kT0 + i * 1000), 180));
    }
    points[70].setY(std::nan(""));  // and one blank sample (t = 100 s)
    m_chart->setSeriesPoints(s, points);
    QCOMPARE(m_chart->drawnRunCount(s), 2);  // the blank breaks the line even without a gap limit
    m_chart->setMaxGap(std::chrono::seconds(5));
    QCOMPARE(m_chart->drawnRunCount(s), 3);
    m_chart->setSeriesPoints(s, points.mid(0, 30));
    QCOMPARE(m_chart->drawnRunCount(s), 1);  // unused segments are emptied
    QCOMPARE(m_chart->displayedPointCount(s), 30);
}

void TestTimeSeriesChart::pngIsWritten() {
    const int s = m_chart->addSeries(QStringLiteral("power"));
    m_chart->setSeriesPoints(s, {{double(kT0), 100}, {double(kT0 + 60'000), 120}});
    const QString path = m_dir.filePath("chart.png");
    const ExportResult r = m_chart->exportPng(path);
    QVERIFY2(r.ok, qPrintable(r.error));
    QImage img(path);
    QVERIFY(!img.isNull());
    QCOMPARE(img.size(), m_chart->size() * m_chart->devicePixelRatio());
}

void TestTimeSeriesChart::timeLabelsReadableAtEveryWidth_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::newRow("page quarter 330 px") << 330 << 260;
    QTest::newRow("narrow 240 px") << 240 << 260;
    QTest::newRow("wide 800 px") << 800 << 260;
    QTest::newRow("Cooling page cell 440 x 230") << 440 << 230;
}

// QtCharts elides or hides time labels that do not fit their slot; a chart whose time axis shows
// only "..." cannot be read. At least two whole "HH:mm:ss" labels must be visible at any width.
void TestTimeSeriesChart::timeLabelsReadableAtEveryWidth() {
    QFETCH(int, width);
    QFETCH(int, height);
    m_chart->setTitle(QStringLiteral("Differential pressure"));
    m_chart->setValueUnit(QStringLiteral("bar"));
    m_chart->resize(width, height);
    const int s = m_chart->addSeries(QStringLiteral("flow"));
    QList<QPointF> points;
    for (int i = 0; i <= 900; ++i) points.append(QPointF(double(kT0 + i * 1000), 190 + i % 7));
    m_chart->setSeriesPoints(s, points);
    QCoreApplication::processEvents();
    const QStringList visible = m_chart->visibleTimeLabels();
    QVERIFY2(visible.size() >= 2, qPrintable(visible.join(QLatin1Char(' '))));
}

void TestTimeSeriesChart::exportErrorsNameThePath() {
    const QString bad = m_dir.filePath("no/such/dir/out.csv");
    const ExportResult csv = m_chart->exportCsv(bad);
    QVERIFY(!csv.ok);
    QVERIFY2(csv.error.contains(bad), qPrintable(csv.error));
    const ExportResult png = m_chart->exportPng(m_dir.filePath("no/such/dir/out.png"));
    QVERIFY(!png.ok);
    QVERIFY(png.error.contains("out.png"));
}

void TestTimeSeriesChart::stackedBreakdownTotalsAndCsv() {
    StackedBreakdownChart chart;
    chart.resize(600, 300);
    chart.setData({"10:00", "11:00", "12:00"}, {{"productive", {60, 55, 70}, {}},
                                                {"checkpoint save", {5, 5, std::nan("")}, {}},
                                                {"infra recovery", {3, 12}, {}}});  // short: padded with NaN
    QCOMPARE(chart.bucketCount(), 3);
    QCOMPARE(chart.bucketTotal(0), 68.0);
    QCOMPARE(chart.bucketTotal(2), 70.0);
    const QString path = m_dir.filePath("badput.csv");
    QVERIFY(chart.exportCsv(path).ok);
    const QStringList lines = readLines(path);
    QCOMPARE(lines.size(), 1 + 9);
    QCOMPARE(lines[1], QStringLiteral("10:00,productive,60"));
    QCOMPARE(lines[9], QStringLiteral("12:00,infra recovery,"));
}

// Shares of GPU time add up to 100 % (give or take rounding): the axis must end at 100, not at the
// "nice" 150 above 105; a stack taller than the ceiling still fits.
void TestTimeSeriesChart::stackedSharesStopAtTheirCeiling() {
    StackedBreakdownChart chart;
    chart.resize(600, 300);
    chart.setValueCeiling(100);
    chart.setData({"Fleet", "job-a"}, {{"productive", {57.4, 100.0}, {}}, {"wasted", {42.64, std::nan("")}, {}}});
    QCOMPARE(chart.valueAxisRange(), (std::pair<double, double>{0.0, 100.0}));
    chart.setData({"Fleet"}, {{"productive", {90}, {}}, {"wasted", {40}, {}}});
    QVERIFY2(chart.valueAxisRange().second >= 130, qPrintable(QString::number(chart.valueAxisRange().second)));
}

QTEST_MAIN(TestTimeSeriesChart)
#include "tst_timeserieschart.moc"

// A marker is drawn where its moment falls on the time axis, only while the Events toggle is on,
// and one outside the window is not drawn (nor counted).
void TestTimeSeriesChart::annotationMarkersSitAtTheirTime() {
    const int s = m_chart->addSeries(QStringLiteral("temp"));
    m_chart->setSeriesPoints(s, {QPointF(double(kT0), 60), QPointF(double(kT0 + 600'000), 62)});
    m_chart->setTimeRange(QDateTime::fromMSecsSinceEpoch(kT0, Qt::UTC),
                          QDateTime::fromMSecsSinceEpoch(kT0 + 600'000, Qt::UTC));
    m_chart->setAnnotations({{kT0 + 300'000, QStringLiteral("leak r07"), AnnotationKind::Critical},
                             {kT0 + 900'000, QStringLiteral("later"), AnnotationKind::Action}});
    const QColor crit = Theme::builtin(ThemeVariant::Dark).colors().crit;
    const QRectF plot = m_chart->findChild<QChartView*>()->chart()->plotArea();
    QVERIFY(plot.width() > 100);
    auto critPixelsInColumn = [&](const QImage& image, int x) {
        int n = 0;
        for (int y = int(plot.top()); y < int(plot.bottom()); ++y) {
            const QColor c = image.pixelColor(x, y);  // antialiased: near the colour, not exactly it
            n +=
                std::abs(c.red() - crit.red()) + std::abs(c.green() - crit.green()) + std::abs(c.blue() - crit.blue()) <
                        90
                    ? 1
                    : 0;
        }
        return n;
    };
    auto critPixelsNear = [&](const QImage& image, double x) {
        int n = 0;
        for (int dx = -1; dx <= 1; ++dx) n += critPixelsInColumn(image, int(std::lround(x)) + dx);
        return n;
    };
    const double middle = plot.left() + plot.width() / 2;
    QCOMPARE(m_chart->annotationsInView(), 0);
    QCOMPARE(critPixelsNear(m_chart->grab().toImage(), middle), 0);

    m_chart->setAnnotationsShown(true);
    QCOMPARE(m_chart->annotationsInView(), 1);
    const QImage shown = m_chart->grab().toImage();
    QVERIFY2(critPixelsNear(shown, middle) > int(plot.height() / 4),
             qPrintable(QString::number(critPixelsNear(shown, middle))));
    QCOMPARE(critPixelsNear(shown, plot.left() + plot.width() / 4), 0);
    QCOMPARE(m_chart->annotationLabelsDrawn(), 1);
}
