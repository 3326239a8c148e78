// KpiTile, GaugeWidget and LoopSchematicWidget: formatting, state colours and drawn state.
#include "GaugeWidget.h"
#include "KpiTile.h"
#include "LoopSchematicWidget.h"

#include <QSignalSpy>
#include <QTest>

using namespace watchfloor::widgets;

namespace {

const ThemeColors& colors() { return Theme::builtin(ThemeVariant::Dark).colors(); }

LoopStatus normalLoop() {
    LoopStatus s;
    s.title = QStringLiteral("Rack r1 loop");
    s.supply_c = Reading::fresh(25);
    s.return_c = Reading::fresh(35);
    s.flow_lpm = Reading::fresh(180);
    s.dp_bar = Reading::fresh(1.2f);
    s.valve_pct = Reading::fresh(60);
    s.power_kw = Reading::fresh(120);
    s.leakSensors = {{QStringLiteral("floor rope"), LeakSensorState::Dry},
                     {QStringLiteral("tray 3"), LeakSensorState::Dry}};
    return s;
}

}  // namespace

class TestStatusWidgets : public QObject {
    Q_OBJECT
private slots:
    void kpiText_data();
    void kpiText();
    void kpiStaleLooksDifferentAndClickActivates();
    void gaugeColour_data();
    void gaugeColour();
    void loopValveDrawnClosedWhenIsolated();
    void loopLeakHighlighted();
};

void TestStatusWidgets::kpiText_data() {
    QTest::addColumn<Reading>("value");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<int>("decimals");
    QTest::addColumn<double>("factor");
    QTest::addColumn<QString>("text");
    QTest::newRow("goodput ratio as %") << Reading::fresh(0.9412f) << "%" << 1 << 100.0 << "94.1%";
    QTest::newRow("GPUs down") << Reading::fresh(3) << "" << 0 << 1.0 << "3";
    QTest::newRow("missing is n/a, not 0") << Reading::missing() << "%" << 1 << 100.0 << "n/a";
    QTest::newRow("stale keeps its number") << Reading::stale(0.5f) << "" << 2 << 1.0 << "0.50";
}

void TestStatusWidgets::kpiText() {
    QFETCH(Reading, value);
    QFETCH(QString, unit);
    QFETCH(int, decimals);
    QFETCH(double, factor);
    QFETCH(QString, text);
    KpiTile tile;
    tile.setUnit(unit);
    tile.setFormat(decimals, factor);
    tile.setValue({value, Trend::Up, true, KpiStatus::Ok, {}, {}});
    QCOMPARE(tile.valueText(), text);
}

void TestStatusWidgets::kpiStaleLooksDifferentAndClickActivates() {
    KpiTile tile;
    tile.setLabel(QStringLiteral("Goodput"));
    tile.setUnit(QStringLiteral("%"));
    tile.setFormat(1, 100);
    tile.resize(tile.sizeHint());
    tile.setValue({Reading::fresh(0.95f), Trend::Up, true, KpiStatus::Ok, {}, {}});
    const QImage fresh = tile.grab().toImage();
    tile.setValue({Reading::stale(0.95f), Trend::Up, true, KpiStatus::Ok, {}, QStringLiteral("40 s old")});
    const QImage stale = tile.grab().toImage();
    QVERIFY(fresh != stale);
    // The status bar on top: ok colour when fresh, stale grey when stale.
    QCOMPARE(fresh.pixelColor(5 * fresh.devicePixelRatio(), 1).rgb(), colors().ok.rgb());
    QCOMPARE(stale.pixelColor(5 * stale.devicePixelRatio(), 1).rgb(), colors().stale.rgb());
    QSignalSpy activated(&tile, &KpiTile::activated);
    QTest::mouseClick(&tile, Qt::LeftButton, {}, tile.rect().center());
    QCOMPARE(activated.count(), 1);
}

void TestStatusWidgets::gaugeColour_data() {
    QTest::addColumn<Reading>("value");
    QTest::addColumn<bool>("higherIsWorse");
    QTest::addColumn<QColor>("expected");
    QTest::newRow("power normal") << Reading::fresh(100) << true << colors().ok;
    QTest::newRow("power warning") << Reading::fresh(125) << true << colors().warn;
    QTest::newRow("power critical") << Reading::fresh(135) << true << colors().crit;
    QTest::newRow("flow low is bad") << Reading::fresh(100) << false << colors().crit;
    QTest::newRow("stale is grey") << Reading::stale(135) << true << colors().stale;
    QTest::newRow("missing") << Reading::missing() << true << colors().missing;
}

void TestStatusWidgets::gaugeColour() {
    QFETCH(Reading, value);
    QFETCH(bool, higherIsWorse);
    QFETCH(QColor, expected);
    GaugeWidget g;
    g.setRange(0, 150);
    if (higherIsWorse)
        g.setThresholds(120, 132, true);
    else
        g.setThresholds(150, 120, false);
    g.setValue(value);
    QCOMPARE(g.valueColour(), expected);
}

void TestStatusWidgets::loopValveDrawnClosedWhenIsolated() {
    LoopSchematicWidget w;
    w.resize(800, 400);
    LoopStatus s = normalLoop();
    w.setStatus(s);
    const QRect valve = w.valveRect();
    // The bow-tie's wings: hollow (background) when open, filled critical when closed.
    const QPoint wing(valve.left() + valve.width() / 5, valve.bottom() - valve.width() / 4);
    QImage open = w.grab().toImage();
    QCOMPARE(open.pixelColor(wing * open.devicePixelRatio()).rgb(), colors().window.rgb());
    s.isolated = true;
    w.setStatus(s);
    QImage closed = w.grab().toImage();
    QCOMPARE(closed.pixelColor(wing * closed.devicePixelRatio()).rgb(), colors().crit.rgb());
}

void TestStatusWidgets::loopLeakHighlighted() {
    LoopSchematicWidget w;
    w.resize(800, 400);
    LoopStatus s = normalLoop();
    w.setStatus(s);
    QCOMPARE(w.wetSensorCount(), 0);
    const QRect row = w.leakSensorRect(1);
    const QPoint probe(row.right() - 60, row.top() + 2);
    const QColor dryPixel = w.grab().toImage().pixelColor(probe);
    s.leakSensors[1].state = LeakSensorState::Wet;
    w.setStatus(s);
    QCOMPARE(w.wetSensorCount(), 1);
    const QColor wetPixel = w.grab().toImage().pixelColor(probe);
    QVERIFY(wetPixel != dryPixel);
    QVERIFY(wetPixel.red() > dryPixel.red() + 20);  // tinted with the critical red
}

QTEST_MAIN(TestStatusWidgets)
#include "tst_statuswidgets.moc"
