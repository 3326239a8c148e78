#include "M4Reducer.h"

#include <QRandomGenerator>
#include <QTest>

#include <cmath>
#include <limits>

using watchfloor::widgets::m4Reduce;
using watchfloor::widgets::splitAtGaps;

class TestM4Reducer : public QObject {
    Q_OBJECT
private slots:
    void reducesKnownInputs_data();
    void reducesKnownInputs();
    void keepsExtremaAndBoundsColumns();
    void splitsAtGapsAndBlanks_data();
    void splitsAtGapsAndBlanks();
};

void TestM4Reducer::reducesKnownInputs_data() {
    QTest::addColumn<QList<QPointF>>("input");
    QTest::addColumn<double>("xMin");
    QTest::addColumn<double>("xMax");
    QTest::addColumn<int>("columns");
    QTest::addColumn<QList<QPointF>>("expected");

    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("empty") << QList<QPointF>{} << 0.0 << 10.0 << 10 << QList<QPointF>{};
    QTest::newRow("no columns") << QList<QPointF>{{1, 1}} << 0.0 << 10.0 << 0 << QList<QPointF>{};
    QTest::newRow("single point kept once") << QList<QPointF>{{1, 5}} << 0.0 << 10.0 << 10 << QList<QPointF>{{1, 5}};
    QTest::newRow("one column: first, min, max, last in x order")
        << QList<QPointF>{{0.0, 5}, {0.1, 9}, {0.2, 1}, {0.3, 4}, {0.4, 6}, {0.5, 3}} << 0.0 << 10.0 << 10
        << QList<QPointF>{{0.0, 5}, {0.1, 9}, {0.2, 1}, {0.5, 3}};
    QTest::newRow("min before max keeps time order")
        << QList<QPointF>{{0.0, 5}, {0.1, 1}, {0.2, 9}, {0.3, 4}, {0.4, 6}} << 0.0 << 10.0 << 10
        << QList<QPointF>{{0.0, 5}, {0.1, 1}, {0.2, 9}, {0.4, 6}};
    QTest::newRow("two columns reduced separately")
        << QList<QPointF>{{0.0, 1}, {0.5, 2}, {1.0, 7}, {1.5, 3}} << 0.0 << 2.0 << 2
        << QList<QPointF>{{0.0, 1}, {0.5, 2}, {1.0, 7}, {1.5, 3}};
    QTest::newRow("blanks skipped, not drawn as zero")
        << QList<QPointF>{{0.0, 4}, {0.1, nan}, {0.2, 2}} << 0.0 << 10.0 << 10 << QList<QPointF>{{0.0, 4}, {0.2, 2}};
    QTest::newRow("outside range dropped")
        << QList<QPointF>{{-1, 100}, {1, 2}, {11, -100}} << 0.0 << 10.0 << 10 << QList<QPointF>{{1, 2}};
    QTest::newRow("xMax falls in the last column")
        << QList<QPointF>{{9.5, 1}, {10.0, 2}} << 0.0 << 10.0 << 10 << QList<QPointF>{{9.5, 1}, {10.0, 2}};
}

void TestM4Reducer::reducesKnownInputs() {
    QFETCH(QList<QPointF>, input);
    QFETCH(double, xMin);
    QFETCH(double, xMax);
    QFETCH(int, columns);
    QFETCH(QList<QPointF>, expected);
    QCOMPARE(m4Reduce(input, xMin, xMax, columns), expected);
}

void TestM4Reducer::keepsExtremaAndBoundsColumns() {
    QRandomGenerator rng(42);
    QList<QPointF> points;
    for (int i = 0; i < 100000; ++i) points.append(QPointF(i, std::sin(i / 500.0) * 50 + rng.bounded(20.0)));
    points[77777].setY(1000);  // a spike must survive
    points[12345].setY(-1000);
    constexpr int kColumns = 800;
    const QList<QPointF> out = m4Reduce(points, 0, 99999, kColumns);
    QVERIFY(out.size() <= 4 * kColumns);
    QVERIFY(out.size() >= kColumns);  // every column holds data here
    QCOMPARE(out.front(), points.front());
    QCOMPARE(out.back(), points.back());
    QVERIFY(out.contains(QPointF(77777, 1000)));
    QVERIFY(out.contains(QPointF(12345, -1000)));
    for (qsizetype i = 1; i < out.size(); ++i) QVERIFY(out[i].x() > out[i - 1].x());
    // ≤ 4 per column.
    QList<int> perColumn(kColumns, 0);
    for (const QPointF& p : out) ++perColumn[std::min(kColumns - 1, static_cast<int>(p.x() * kColumns / 99999.0))];
    for (int n : perColumn) QVERIFY(n <= 4);
}

void TestM4Reducer::splitsAtGapsAndBlanks_data() {
    QTest::addColumn<QList<QPointF>>("input");
    QTest::addColumn<double>("maxGap");
    QTest::addColumn<QList<int>>("runLengths");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("empty") << QList<QPointF>{} << 5.0 << QList<int>{};
    QTest::newRow("regular samples: one run") << QList<QPointF>{{0, 1}, {1, 1}, {2, 1}} << 5.0 << QList<int>{3};
    QTest::newRow("time gap splits") << QList<QPointF>{{0, 1}, {1, 1}, {60, 1}, {61, 1}} << 5.0 << QList<int>{2, 2};
    QTest::newRow("gap detection off") << QList<QPointF>{{0, 1}, {60, 1}} << 0.0 << QList<int>{2};
    QTest::newRow("blank splits and is dropped") << QList<QPointF>{{0, 1}, {1, nan}, {2, 1}} << 0.0 << QList<int>{1, 1};
    QTest::newRow("leading and trailing blanks") << QList<QPointF>{{0, nan}, {1, 2}, {2, nan}} << 0.0 << QList<int>{1};
}

void TestM4Reducer::splitsAtGapsAndBlanks() {
    QFETCH(QList<QPointF>, input);
    QFETCH(double, maxGap);
    QFETCH(QList<int>, runLengths);
    QList<int> actual;
    for (const auto& run : splitAtGaps(input, maxGap)) {
        actual.append(static_cast<int>(run.size()));
        for (const QPointF& p : run) QVERIFY(!std::isnan(p.y()));
    }
    QCOMPARE(actual, runLengths);
}

QTEST_GUILESS_MAIN(TestM4Reducer)
#include "tst_m4reducer.moc"
