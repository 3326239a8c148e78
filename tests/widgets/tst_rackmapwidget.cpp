#include "SyntheticRackLayout.h"

#include "PaintHelpers.h"
#include "RackMapWidget.h"

#include <QSignalSpy>
#include <QTest>
#include <QToolTip>

#include <cstdlib>
#include <functional>

using namespace watchfloor::widgets;
using watchfloor::widgets::testing::syntheticFleet;

namespace {

int colorDistance(const QColor& a, const QColor& b) {
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

}  // namespace

class TestRackMapWidget : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void hitTestFindsEveryTile();
    void hitTestOutsideTilesIsNone_data();
    void hitTestOutsideTilesIsNone();
    void hitTestAfterZoomAndPan();
    void tilePixelHasLensColour_data();
    void tilePixelHasLensColour();
    void staleTileDiffersFromFresh();
    void missingTileIsDrawnAsMissing();
    void rackWithSilentTraysSaysSo();
    void rackInMaintenanceIsHatched();
    void rackWithLinksAtRiskOrIsolatedIsMarked();
    void tooltipForHoveredTile();
    void keyboardNavigation();
    void clickActivatesAndDragDoesNot();
    void wheelAndShortcutsZoom();
    void selectionSurvivesTopologyChange();
    void selectionByIndex();
    void emptyFleetIsSafe();
    void themeColoursApply_data();
    void themeColoursApply();

private:
    RackMapWidget* m_map = nullptr;
    ColorScale m_temp;
    const Theme& theme() { return Theme::builtin(ThemeVariant::Dark); }
    void setAll(float celsius) {
        std::vector<RackStatus> s(static_cast<std::size_t>(m_map->rackCount()));
        for (auto& st : s) st.value = Reading::fresh(celsius);
        m_map->setStatuses(s);
    }
};

void TestRackMapWidget::init() {
    m_map = new RackMapWidget;
    m_map->resize(1200, 800);
    m_map->setRacks(syntheticFleet(240));
    m_temp = ColorScale::forLens(Lens::GpuTemperature, theme());
    m_map->setColorScale(m_temp);
    setAll(55.f);
    m_map->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_map));
}

void TestRackMapWidget::cleanup() {
    delete m_map;
    m_map = nullptr;
}

void TestRackMapWidget::hitTestFindsEveryTile() {
    for (int i = 0; i < m_map->rackCount(); ++i) {
        const QRect r = m_map->tileRect(i);
        QVERIFY(r.width() >= 4);
        QCOMPARE(m_map->rackAt(r.center()), i);
        QCOMPARE(m_map->rackAt(r.topLeft()), i);
        QCOMPARE(m_map->rackAt(r.bottomRight()), i);
    }
    QCOMPARE(m_map->rackIdAt(m_map->tileRect(5).center()), m_map->rack(5).id);
}

void TestRackMapWidget::hitTestOutsideTilesIsNone_data() {
    QTest::addColumn<QString>("where");
    QTest::newRow("widget corner") << "corner";
    QTest::newRow("gap between neighbours") << "gap";
    QTest::newRow("row label") << "label";
    QTest::newRow("outside the widget") << "outside";
}

void TestRackMapWidget::hitTestOutsideTilesIsNone() {
    QFETCH(QString, where);
    const QRect a = m_map->tileRect(0);
    const QRect b = m_map->tileRect(1);
    QPoint p;
    if (where == "corner")
        p = QPoint(1, 1);
    else if (where == "gap")
        p = QPoint((a.right() + b.left()) / 2, a.center().y());
    else if (where == "label")
        p = QPoint(a.left() - 6, a.center().y());
    else
        p = QPoint(-50, 5000);
    QVERIFY(b.left() - a.right() >= 2);  // the gap is at least a pixel wide
    QCOMPARE(m_map->rackAt(p), -1);
    QVERIFY(m_map->rackIdAt(p).isEmpty());
}

void TestRackMapWidget::hitTestAfterZoomAndPan() {
    const int target = 37;
    const QPoint anchor = m_map->tileRect(target).center();
    const double before = m_map->pixelsPerTile();
    m_map->zoomBy(3.0, anchor);
    QCOMPARE(m_map->pixelsPerTile(), before * 3.0);
    QCOMPARE(m_map->rackAt(anchor), target);  // zoom keeps the point under the cursor
    QVERIFY(m_map->tileRect(target).width() > 2 * int(before));

    const QRect beforePan = m_map->tileRect(target);
    m_map->panBy(QPointF(-150, 40));
    const QRect afterPan = m_map->tileRect(target);
    QCOMPARE(afterPan.topLeft(), beforePan.topLeft() + QPoint(-150, 40));
    QCOMPARE(m_map->rackAt(afterPan.center()), target);
    QVERIFY(m_map->rackAt(anchor) != target);

    m_map->fitToView();
    QCOMPARE(m_map->pixelsPerTile(), before);
}

void TestRackMapWidget::tilePixelHasLensColour_data() {
    QTest::addColumn<int>("lens");
    QTest::addColumn<float>("value");
    QTest::newRow("45 °C") << int(Lens::GpuTemperature) << 45.f;
    QTest::newRow("88 °C") << int(Lens::GpuTemperature) << 88.f;
    QTest::newRow("power 120 kW") << int(Lens::Power) << 120.f;
    QTest::newRow("low flow") << int(Lens::CoolantFlow) << 20.f;
    QTest::newRow("health failed") << int(Lens::Health) << float(HealthCategory::Failed);
}

void TestRackMapWidget::tilePixelHasLensColour() {
    QFETCH(int, lens);
    QFETCH(float, value);
    const ColorScale scale = ColorScale::forLens(static_cast<Lens>(lens), theme());
    m_map->setColorScale(scale);
    std::vector<RackStatus> s(static_cast<std::size_t>(m_map->rackCount()));
    s[10].value = Reading::fresh(value);
    m_map->setStatuses(s);
    const QImage img = m_map->grab().toImage();
    const qreal dpr = img.devicePixelRatio();
    const QPoint c = m_map->tileRect(10).center();
    QCOMPARE(img.pixelColor(c * dpr).rgb(), scale.colorFor(value).rgb());
}

// A rack with silent trays keeps its lens colour (the rack may be fine) but carries a frame and a
// strip in the silent colour saying how many; a small tile gets a corner flag; the tooltip counts.
void TestRackMapWidget::rackWithSilentTraysSaysSo() {
    const QColor silent = theme().colors().silent;
    std::vector<RackStatus> s(static_cast<std::size_t>(m_map->rackCount()));
    for (auto& st : s) st.value = Reading::fresh(55.f);
    s[7].silentTrays = 3;
    m_map->setStatuses(s);
    auto silentPixels = [&](const QImage& img, const QRect& r) {
        int n = 0;
        for (int y = r.top(); y <= r.bottom(); ++y)
            for (int x = r.left(); x <= r.right(); ++x) n += img.pixelColor(x, y).rgb() == silent.rgb();
        return n;
    };
    m_map->zoomBy(4.0, m_map->tileRect(7).center());
    QImage img = m_map->grab().toImage();
    const QRect tile = m_map->tileRect(7);
    QVERIFY2(tile.width() >= 52, qPrintable(QString::number(tile.width())));
    QCOMPARE(img.pixelColor(tile.left() + 1, tile.center().y()).rgb(), silent.rgb());        // frame
    QCOMPARE(img.pixelColor(tile.right() - 1, tile.bottom() - 2).rgb(), silent.rgb());       // strip
    QCOMPARE(img.pixelColor(tile.center().x() + tile.width() / 4, tile.center().y()).rgb(),  // lens colour kept
             m_temp.colorFor(55.f).rgb());
    QCOMPARE(silentPixels(img, m_map->tileRect(8)), 0);
    QVERIFY(m_map->toolTipText(7).contains(QStringLiteral("3 trays with silent telemetry")));
    QVERIFY(!m_map->toolTipText(8).contains(QStringLiteral("silent")));

    m_map->fitToView();
    m_map->zoomBy(0.5, m_map->tileRect(7).center());
    img = m_map->grab().toImage();
    const QRect small = m_map->tileRect(7);
    QVERIFY2(small.width() < 34 && small.width() >= 10, qPrintable(QString::number(small.width())));
    QVERIFY(silentPixels(img, small) > 0);  // the corner flag
    QCOMPARE(silentPixels(img, m_map->tileRect(8)), 0);
}

// Where the fabric degrades, from the fleet view: a triangle in the critical colour for links at
// risk, a barred disc in the warning colour for links isolated, at the tile's right edge; the tooltip
// names them. A rack without marked links has no mark.
void TestRackMapWidget::rackWithLinksAtRiskOrIsolatedIsMarked() {
    const ThemeColors& c = theme().colors();
    std::vector<RackStatus> s(static_cast<std::size_t>(m_map->rackCount()));
    for (auto& st : s) st.value = Reading::fresh(55.f);
    s[7].linksAtRisk = 1;
    s[7].linkNote = QStringLiteral("Rail links: r07-n03-ib1 at risk");
    s[9].linksIsolated = 1;
    s[9].linkNote = QStringLiteral("Rail links: r09-n10-ib1 isolated");
    s[11].linksAtRisk = 1;
    s[11].linksIsolated = 2;
    m_map->setStatuses(s);
    m_map->zoomBy(4.0, m_map->tileRect(9).center());
    const QImage img = m_map->grab().toImage();
    auto count = [&](const QRect& r, const QColor& colour) {
        int n = 0;
        for (int y = r.top(); y <= r.bottom(); ++y)
            for (int x = r.left(); x <= r.right(); ++x) n += img.pixelColor(x, y).rgb() == colour.rgb();
        return n;
    };
    const QRect risk = m_map->linkMarkRect(7), isolated = m_map->linkMarkRect(9), both = m_map->linkMarkRect(11);
    QVERIFY(!risk.isEmpty() && !isolated.isEmpty());
    QVERIFY(m_map->tileRect(7).contains(risk) && m_map->tileRect(9).contains(isolated));
    QVERIFY2(count(risk, c.crit) >= risk.width() * risk.height() / 5, "no triangle in the critical colour");
    QCOMPARE(count(risk, c.warn), 0);
    QVERIFY2(count(isolated, c.warn) >= isolated.width() * isolated.height() / 5, "no disc in the warning colour");
    QCOMPARE(count(isolated, c.crit), 0);
    QVERIFY(both.width() > risk.width());  // both shapes side by side
    QVERIFY(m_map->linkMarkRect(8).isEmpty());
    QCOMPARE(count(m_map->tileRect(8), c.crit) + count(m_map->tileRect(8), c.warn), 0);
    QVERIFY(m_map->toolTipText(7).contains(QStringLiteral("r07-n03-ib1 at risk")));
    QVERIFY(m_map->toolTipText(9).contains(QStringLiteral("r09-n10-ib1 isolated")));
    QVERIFY(!m_map->toolTipText(8).contains(QStringLiteral("Rail links")));
}

void TestRackMapWidget::staleTileDiffersFromFresh() {
    std::vector<RackStatus> s(static_cast<std::size_t>(m_map->rackCount()));
    s[3].value = Reading::fresh(70.f);
    s[4].value = Reading::stale(70.f);
    m_map->setStatuses(s);
    const QImage img = m_map->grab().toImage();
    const QColor freshColour = m_temp.colorFor(70.f);
    const QRect stale = m_map->tileRect(4).adjusted(1, 1, -1, -1);
    const QRect fresh = m_map->tileRect(3).adjusted(1, 1, -1, -1);
    int staleFreshLooking = 0;
    int hatchPixels = 0;
    for (int y = stale.top(); y <= stale.bottom(); ++y) {
        for (int x = stale.left(); x <= stale.right(); ++x) {
            const QColor px = img.pixelColor(x, y);
            staleFreshLooking += colorDistance(px, freshColour) < 30;
            hatchPixels += px.rgb() == theme().colors().window.rgb();
        }
    }
    QCOMPARE(staleFreshLooking, 0);  // no pixel of a stale tile passes for the fresh colour
    QVERIFY(hatchPixels > 0);        // and it is hatched
    // The fresh tile's right-hand middle (clear of its label text) is exactly the lens colour.
    for (int y = fresh.center().y() - 2; y <= fresh.center().y() + 2; ++y)
        for (int x = fresh.center().x(); x <= fresh.right() - 2; ++x)
            QCOMPARE(img.pixelColor(x, y).rgb(), freshColour.rgb());
}

void TestRackMapWidget::missingTileIsDrawnAsMissing() {
    setAll(60.f);
    std::vector<RackStatus> s(static_cast<std::size_t>(m_map->rackCount()));
    for (auto& st : s) st.value = Reading::fresh(60.f);
    s[7].value = Reading::missing();
    s[8].value = Reading{std::nanf(""), Freshness::Fresh};  // a DCGM blank
    m_map->setStatuses(s);
    m_map->zoomBy(4.0, m_map->tileRect(7).center());  // big enough for "n/a"
    const QImage img = m_map->grab().toImage();
    for (int rack : {7, 8}) {
        const QRect r = m_map->tileRect(rack);
        QVERIFY(r.width() >= 40);
        // Inside: background, not a scale colour.
        QCOMPARE(img.pixelColor(r.left() + 3, r.top() + 3).rgb(), theme().colors().window.rgb());
        // Outline drawn in the missing colour somewhere on the top edge (dashed).
        bool outline = false;
        for (int x = r.left(); x <= r.right(); ++x)
            outline |= img.pixelColor(x, r.top()).rgb() == theme().colors().missing.rgb();
        QVERIFY(outline);
        // "n/a" text: some pixels near the centre in the dim text colour family (anti-aliased).
        int textPixels = 0;
        const QRect centre(r.center() - QPoint(12, 6), QSize(24, 12));
        for (int y = centre.top(); y <= centre.bottom(); ++y)
            for (int x = centre.left(); x <= centre.right(); ++x)
                textPixels += img.pixelColor(x, y).rgb() != theme().colors().window.rgb();
        QVERIFY(textPixels > 5);
    }
    QVERIFY(m_map->toolTipText(7).contains("n/a"));
}

// A rack in a maintenance window: its lens colour stays visible between info-coloured stripes;
// its neighbours carry none; the tooltip says so and the legend has a swatch for it.
void TestRackMapWidget::rackInMaintenanceIsHatched() {
    std::vector<RackStatus> s(static_cast<std::size_t>(m_map->rackCount()));
    for (auto& st : s) st.value = Reading::fresh(55.f);
    s[4].maintenance = true;
    s[4].maintenanceNote = QStringLiteral("Maintenance (rack r05) until 16:00 UTC, owner alice: pump swap");
    m_map->setLegendVisible(true);
    m_map->setStatuses(s);
    m_map->zoomBy(3.0, m_map->tileRect(4).center());
    const QImage img = m_map->grab().toImage();
    const qreal dpr = img.devicePixelRatio();
    const QColor lens = m_temp.colorFor(55.f);
    auto count = [&](const QRect& r, const std::function<bool(const QColor&)>& wanted) {
        int n = 0;
        for (int y = r.top(); y <= r.bottom(); ++y)
            for (int x = r.left(); x <= r.right(); ++x) n += wanted(img.pixelColor(QPoint(x, y) * dpr)) ? 1 : 0;
        return n;
    };
    const QRect hatched = m_map->tileRect(4).adjusted(2, 2, -2, -2), plain = m_map->tileRect(5).adjusted(2, 2, -2, -2);
    auto isLens = [&](const QColor& c) { return c.rgb() == lens.rgb(); };
    auto isStripe = [&](const QColor& c) {  // the info colour, opaque where a stripe runs
        const QColor info = theme().colors().info;
        return std::abs(c.red() - info.red()) + std::abs(c.green() - info.green()) + std::abs(c.blue() - info.blue()) <
               40;
    };
    const int area = hatched.width() * hatched.height();
    QVERIFY2(count(hatched, isStripe) > area / 10, qPrintable(QString::number(count(hatched, isStripe))));
    QCOMPARE(count(hatched, isLens), 0);  // tinted everywhere: never read as a plain tile
    QCOMPARE(count(plain, isStripe), 0);
    QVERIFY(count(plain, isLens) > (plain.width() * plain.height()) / 2);
    QVERIFY(m_map->toolTipText(4).contains(QStringLiteral("Maintenance (rack r05)")));
    QVERIFY(!m_map->toolTipText(5).contains(QStringLiteral("Maintenance")));
    if (const QString out = qEnvironmentVariable("WATCHFLOOR_MAINTENANCE_PNG"); !out.isEmpty()) img.save(out);
}

void TestRackMapWidget::tooltipForHoveredTile() {
    std::vector<RackStatus> s(static_cast<std::size_t>(m_map->rackCount()));
    s[12].value = Reading::fresh(72.f);
    s[12].alertCount = 2;
    s[12].isolated = true;
    m_map->setStatuses(s);
    const QString text = m_map->toolTipText(12);
    QVERIFY2(text.contains(m_map->rack(12).label), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("72") + QChar(0x202F) + QStringLiteral("°C")), qPrintable(text));
    QVERIFY(text.contains("2 open alerts"));
    QVERIFY(text.contains("Isolated"));

    // The real path: a ToolTip event over the tile shows that text.
    const QPoint pos = m_map->tileRect(12).center();
    QHelpEvent help(QEvent::ToolTip, pos, m_map->mapToGlobal(pos));
    QApplication::sendEvent(m_map, &help);
    QTRY_COMPARE(QToolTip::text(), text);

    m_map->setTooltipProvider([](int index) { return QStringLiteral("custom %1").arg(index); });
    QCOMPARE(m_map->toolTipText(12), QStringLiteral("custom 12"));

    QSignalSpy hovered(m_map, &RackMapWidget::rackHovered);
    QTest::mouseMove(m_map, m_map->tileRect(20).center());
    QTRY_VERIFY(!hovered.isEmpty());
    QCOMPARE(hovered.last().at(0).toString(), m_map->rack(20).id);
}

void TestRackMapWidget::keyboardNavigation() {
    QSignalSpy selection(m_map, &RackMapWidget::selectionChanged);
    QSignalSpy activated(m_map, &RackMapWidget::rackActivated);
    m_map->setFocus();
    QTest::keyClick(m_map, Qt::Key_Right);  // nothing selected: the first rack
    QCOMPARE(m_map->selectedIndex(), 0);
    QTest::keyClick(m_map, Qt::Key_Right);
    QCOMPARE(m_map->selectedIndex(), 1);
    QTest::keyClick(m_map, Qt::Key_Down);  // same column, next row
    const QRect one = m_map->tileRect(1);
    const QRect below = m_map->tileRect(m_map->selectedIndex());
    QCOMPARE(below.left(), one.left());
    QVERIFY(below.top() > one.top());
    QTest::keyClick(m_map, Qt::Key_Up);
    QCOMPARE(m_map->selectedIndex(), 1);
    QTest::keyClick(m_map, Qt::Key_Left);
    QTest::keyClick(m_map, Qt::Key_Left);  // stays at the first rack
    QCOMPARE(m_map->selectedIndex(), 0);
    QCOMPARE(selection.count(), 5);
    QTest::keyClick(m_map, Qt::Key_Return);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toString(), m_map->rack(0).id);
    QTest::keyClick(m_map, Qt::Key_Escape);
    QVERIFY(m_map->selectedRackId().isEmpty());
}

void TestRackMapWidget::clickActivatesAndDragDoesNot() {
    QSignalSpy activated(m_map, &RackMapWidget::rackActivated);
    QTest::mouseClick(m_map, Qt::LeftButton, {}, m_map->tileRect(42).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toString(), m_map->rack(42).id);
    QCOMPARE(m_map->selectedRackId(), m_map->rack(42).id);

    const QPoint start = m_map->tileRect(50).center();
    const QRect before = m_map->tileRect(50);
    QTest::mousePress(m_map, Qt::LeftButton, {}, start);
    QTest::mouseMove(m_map, start + QPoint(30, 20));
    QTest::mouseMove(m_map, start + QPoint(60, 40));
    QTest::mouseRelease(m_map, Qt::LeftButton, {}, start + QPoint(60, 40));
    QCOMPARE(activated.count(), 1);  // a drag pans, it does not activate
    QCOMPARE(m_map->tileRect(50).topLeft(), before.topLeft() + QPoint(60, 40));

    QTest::mouseClick(m_map, Qt::LeftButton, {}, QPoint(1, 1));
    QCOMPARE(activated.count(), 1);
}

void TestRackMapWidget::wheelAndShortcutsZoom() {
    const double fit = m_map->pixelsPerTile();
    const QPoint at = m_map->tileRect(9).center();
    QWheelEvent wheel(at, m_map->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(m_map, &wheel);
    QVERIFY(m_map->pixelsPerTile() > fit);
    QCOMPARE(m_map->rackAt(at), 9);
    QTest::keyClick(m_map, Qt::Key_Minus, Qt::ControlModifier);
    QTest::keyClick(m_map, Qt::Key_Minus, Qt::ControlModifier);
    QVERIFY(m_map->pixelsPerTile() < fit);
    QTest::keyClick(m_map, Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(m_map->pixelsPerTile(), fit);
}

// The Fleet page selects by rack row, which is the index it placed the rack at.
void TestRackMapWidget::selectionByIndex() {
    QSignalSpy selection(m_map, &RackMapWidget::selectionChanged);
    m_map->setSelectedIndex(7);
    QCOMPARE(m_map->selectedIndex(), 7);
    QCOMPARE(m_map->selectedRackId(), m_map->rack(7).id);
    QCOMPARE(selection.count(), 1);
    QCOMPARE(selection.at(0).at(0).toString(), m_map->rack(7).id);
    m_map->setSelectedIndex(m_map->rackCount());
    QCOMPARE(m_map->selectedIndex(), -1);
    m_map->setSelectedIndex(3);
    m_map->setSelectedIndex(-2);
    QCOMPARE(m_map->selectedIndex(), -1);
    QCOMPARE(selection.count(), 4);
}

void TestRackMapWidget::selectionSurvivesTopologyChange() {
    m_map->setSelectedRack(m_map->rack(30).id);
    const QString id = m_map->selectedRackId();
    auto racks = syntheticFleet(300);
    m_map->setRacks(racks);
    QCOMPARE(m_map->selectedRackId(), id);
    m_map->setRacks(syntheticFleet(10));
    QVERIFY(m_map->selectedRackId().isEmpty());
    QCOMPARE(m_map->rackCount(), 10);
}

void TestRackMapWidget::emptyFleetIsSafe() {
    QSignalSpy activated(m_map, &RackMapWidget::rackActivated);
    m_map->setRacks({});
    m_map->setStatuses({});
    QCOMPARE(m_map->rackCount(), 0);
    QCOMPARE(m_map->rackAt(QPoint(100, 100)), -1);
    QTest::keyClick(m_map, Qt::Key_Right);
    QTest::keyClick(m_map, Qt::Key_Return);
    QTest::mouseClick(m_map, Qt::LeftButton, {}, QPoint(100, 100));
    QCOMPARE(activated.count(), 0);
    QVERIFY(!m_map->grab().isNull());
    QCOMPARE(m_map->tileRect(0), QRect());
}

void TestRackMapWidget::themeColoursApply_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("dark") << int(ThemeVariant::Dark);
    QTest::newRow("light") << int(ThemeVariant::Light);
    QTest::newRow("war room") << int(ThemeVariant::WarRoom);
}

void TestRackMapWidget::themeColoursApply() {
    QFETCH(int, variant);
    const Theme& t = Theme::builtin(static_cast<ThemeVariant>(variant));
    m_map->setTheme(t);
    const ColorScale health = ColorScale::forLens(Lens::Health, t);
    m_map->setColorScale(health);
    std::vector<RackStatus> s(static_cast<std::size_t>(m_map->rackCount()));
    s[0].value = Reading::fresh(float(HealthCategory::Healthy));
    s[1].value = Reading::fresh(float(HealthCategory::Failed));
    m_map->setStatuses(s);
    const QImage img = m_map->grab().toImage();
    QCOMPARE(img.pixelColor(2, 2).rgb(), t.colors().window.rgb());
    QCOMPARE(img.pixelColor(m_map->tileRect(0).center() + QPoint(4, 0)).rgb(), t.colors().ok.rgb());
    QCOMPARE(img.pixelColor(m_map->tileRect(1).center() + QPoint(4, 0)).rgb(), t.colors().crit.rgb());
}

QTEST_MAIN(TestRackMapWidget)
#include "tst_rackmapwidget.moc"
