#include "HeatmapWidget.h"

#include <QSignalSpy>
#include <QTest>

using namespace watchfloor::widgets;
using Cell = HeatmapWidget::Cell;

class TestHeatmapWidget : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void hitTestInSuppliedOrder();
    void filteredRowsAreNotShown();
    void cellPixelColours();
    void clickAndTooltip();
    void minimumRowHeightKeepsEveryRowItsLabelsHeight();

private:
    HeatmapWidget* m_w = nullptr;
    ColorScale m_scale;
    static constexpr int kRows = 72;
    static constexpr int kCols = 18;
};

void TestHeatmapWidget::init() {
    m_w = new HeatmapWidget;
    m_scale = ColorScale::forLens(Lens::LinkErrors, Theme::builtin(ThemeVariant::Dark));
    m_w->setColorScale(m_scale);
    std::vector<Reading> cells(kRows * kCols, Reading::fresh(0));
    cells[5 * kCols + 7] = Reading::fresh(500);
    cells[6 * kCols + 7] = Reading::missing();
    cells[8 * kCols + 2] = Reading::stale(500);
    QStringList rows, cols;
    for (int r = 0; r < kRows; ++r) rows << QStringLiteral("gpu%1").arg(r);
    for (int c = 0; c < kCols; ++c) cols << QStringLiteral("L%1").arg(c);
    m_w->setData(kRows, kCols, cells, rows, cols);
    m_w->resize(600, 900);
    m_w->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_w));
}

void TestHeatmapWidget::cleanup() { delete m_w; }

void TestHeatmapWidget::hitTestInSuppliedOrder() {
    std::vector<int> reversed(kRows);
    for (int i = 0; i < kRows; ++i) reversed[static_cast<std::size_t>(i)] = kRows - 1 - i;
    m_w->setRowOrder(reversed);
    QVERIFY(m_w->cellRect(kRows - 1, 0).top() < m_w->cellRect(0, 0).top());  // last model row shown first
    for (int r = 0; r < kRows; r += 7)
        for (int c = 0; c < kCols; ++c) QCOMPARE(m_w->cellAt(m_w->cellRect(r, c).center()), (Cell{r, c}));
    QVERIFY(!m_w->cellAt(QPoint(2, 2)).isValid());
    QVERIFY(!m_w->cellAt(QPoint(m_w->width() / 2, m_w->height() - 2)).isValid());  // legend
}

void TestHeatmapWidget::filteredRowsAreNotShown() {
    m_w->setRowOrder({5, 6, 8});
    QVERIFY(m_w->cellRect(0, 0).isEmpty());
    QCOMPARE(m_w->cellAt(m_w->cellRect(8, 3).center()), (Cell{8, 3}));
}

void TestHeatmapWidget::cellPixelColours() {
    const QImage img = m_w->grab().toImage();
    const Theme& t = Theme::builtin(ThemeVariant::Dark);
    QCOMPARE(img.pixelColor(m_w->cellRect(5, 7).center()).rgb(), m_scale.colorFor(500).rgb());
    QCOMPARE(img.pixelColor(m_w->cellRect(4, 7).center()).rgb(), m_scale.colorFor(0).rgb());
    QCOMPARE(img.pixelColor(m_w->cellRect(6, 7).center()).rgb(), t.colors().window.rgb());  // missing: no fill
    QVERIFY(img.pixelColor(m_w->cellRect(8, 2).center()) != m_scale.colorFor(500));         // stale: not fresh
    QVERIFY(m_scale.colorFor(500) != m_scale.colorFor(0));
}

void TestHeatmapWidget::clickAndTooltip() {
    QSignalSpy activated(m_w, &HeatmapWidget::cellActivated);
    QTest::mouseClick(m_w, Qt::LeftButton, {}, m_w->cellRect(5, 7).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toInt(), 5);
    QCOMPARE(activated.at(0).at(1).toInt(), 7);
    const QString text = m_w->toolTipText(5, 7);
    QVERIFY2(text.contains("gpu5") && text.contains("L7") && text.contains("500"), qPrintable(text));
    QVERIFY(m_w->toolTipText(6, 7).contains("n/a"));
}

// 72 rows in 900 px are ~11 px each, thinner than a label; with a minimum row height the widget
// asks for the height that takes, keeps every row that high when squeezed, and stays hit-testable.
void TestHeatmapWidget::minimumRowHeightKeepsEveryRowItsLabelsHeight() {
    const int labelHeight = QFontMetrics(Theme::builtin(ThemeVariant::Dark).labelFont()).height();
    QVERIFY(m_w->cellRect(1, 0).height() < labelHeight);  // the default: rows share the height
    const int defaultHint = m_w->minimumSizeHint().height();
    m_w->setMinimumRowHeight(labelHeight);
    QVERIFY(m_w->minimumSizeHint().height() >= kRows * labelHeight);
    QVERIFY(m_w->minimumSizeHint().height() > defaultHint);
    m_w->resize(600, 400);  // squeezed below its hint: rows keep their height, the grid overflows
    QTRY_VERIFY(m_w->cellRect(1, 0).height() >= labelHeight - 1);  // rounding of a fractional row
    QVERIFY(m_w->cellRect(1, 0).top() >= m_w->cellRect(0, 0).bottom());
    QCOMPARE(m_w->cellAt(m_w->cellRect(kRows - 1, 3).center()), (Cell{kRows - 1, 3}));
    m_w->setMinimumRowHeight(0);
    QTRY_VERIFY(m_w->cellRect(1, 0).height() < labelHeight);
}

QTEST_MAIN(TestHeatmapWidget)
#include "tst_heatmapwidget.moc"
