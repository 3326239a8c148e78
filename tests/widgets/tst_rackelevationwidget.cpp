#include "PaintHelpers.h"
#include "RackElevationWidget.h"

#include <QSignalSpy>
#include <QTest>

using namespace watchfloor::widgets;
using Hit = RackElevationWidget::Hit;

Q_DECLARE_METATYPE(watchfloor::widgets::LinkMark)

namespace {

RackElevation makeRack() {
    RackElevation e;
    e.rackId = QStringLiteral("r1");
    e.rackLabel = QStringLiteral("Rack r1");
    for (int t = 0; t < RackElevation::kComputeTrays; ++t) {
        ComputeTray& tray = e.compute[static_cast<std::size_t>(t)];
        tray.id = QStringLiteral("node%1").arg(t);
        tray.label = QStringLiteral("tray %1").arg(t + 1);
        tray.state = TrayState::Allocated;
        for (int g = 0; g < 4; ++g) {
            tray.gpus[static_cast<std::size_t>(g)].id = QStringLiteral("node%1/gpu%2").arg(t).arg(g);
            tray.gpus[static_cast<std::size_t>(g)].value = Reading::fresh(60);
        }
        tray.cpus = {Reading::fresh(50), Reading::fresh(50)};
    }
    for (int s = 0; s < RackElevation::kSwitchTrays; ++s)
        e.switches[static_cast<std::size_t>(s)] = {QStringLiteral("sw%1").arg(s), QStringLiteral("switch %1").arg(s),
                                                   Reading::fresh(0)};
    for (int p = 0; p < 8; ++p)
        e.powerShelves.push_back(
            {QStringLiteral("ps%1").arg(p), QStringLiteral("shelf %1").arg(p), Reading::fresh(15), Reading::fresh(0)});
    e.manifold = {Reading::fresh(25), Reading::fresh(35), Reading::fresh(180), false, 0};
    return e;
}

}  // namespace

class TestRackElevationWidget : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void slotsFollowTheRealRackOrder();
    void hitTestEveryGpuAndCpu();
    void hitTestTraysSwitchesShelvesAndOutside();
    void gpuPixelHasLensColour_data();
    void gpuPixelHasLensColour();
    void downGpuIsCrossedAndStaleIsNotFresh();
    void silentTrayIsNeitherDownNorHealthy();
    void clicksEmitIds();
    void tooltipDescribesGpu();
    void hoverReportsGpu();
    void linkChipSaysTheStage_data();
    void linkChipSaysTheStage();
    void narrowElevationKeepsGlyphAndPort();

private:
    RackElevationWidget* m_w = nullptr;
    ColorScale m_scale;
};

void TestRackElevationWidget::init() {
    m_w = new RackElevationWidget;
    m_scale = ColorScale::forLens(Lens::GpuTemperature, Theme::builtin(ThemeVariant::Dark));
    m_w->setColorScale(m_scale);
    m_w->setElevation(makeRack());
    m_w->resize(600, 860);
    m_w->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_w));
}

void TestRackElevationWidget::cleanup() { delete m_w; }

void TestRackElevationWidget::slotsFollowTheRealRackOrder() {
    // 10 compute trays, then the 9 switch trays, then 8 compute trays (NVL72 build order).
    for (int t = 1; t < RackElevation::kComputeTrays; ++t) QVERIFY(m_w->trayRect(t).top() > m_w->trayRect(t - 1).top());
    QVERIFY(m_w->switchTrayRect(0).top() >= m_w->trayRect(9).bottom());
    QVERIFY(m_w->trayRect(10).top() >= m_w->switchTrayRect(8).bottom());
    for (int s = 1; s < RackElevation::kSwitchTrays; ++s)
        QVERIFY(m_w->switchTrayRect(s).top() > m_w->switchTrayRect(s - 1).top());
    // Power shelves: half above the first tray, half below the last.
    QCOMPARE(m_w->hitTest(QPoint(m_w->trayRect(0).center().x(), m_w->trayRect(0).top() - 3)).kind,
             Hit::Kind::PowerShelf);
    QCOMPARE(m_w->hitTest(QPoint(m_w->trayRect(17).center().x(), m_w->trayRect(17).bottom() + 3)).kind,
             Hit::Kind::PowerShelf);
}

void TestRackElevationWidget::hitTestEveryGpuAndCpu() {
    for (int t = 0; t < RackElevation::kComputeTrays; ++t) {
        for (int g = 0; g < 4; ++g) {
            const QRect r = m_w->gpuRect(t, g);
            QVERIFY(r.width() > 10 && r.height() > 6);
            QCOMPARE(m_w->hitTest(r.center()), (Hit{Hit::Kind::Gpu, t, g}));
            QCOMPARE(m_w->hitTest(r.topLeft()), (Hit{Hit::Kind::Gpu, t, g}));
        }
        for (int c = 0; c < 2; ++c) QCOMPARE(m_w->hitTest(m_w->cpuRect(t, c).center()), (Hit{Hit::Kind::Cpu, t, c}));
    }
}

void TestRackElevationWidget::hitTestTraysSwitchesShelvesAndOutside() {
    const QRect tray = m_w->trayRect(4);
    QCOMPARE(m_w->hitTest(QPoint(tray.left() + 10, tray.center().y())), (Hit{Hit::Kind::ComputeTray, 4, -1}));
    QCOMPARE(m_w->hitTest(m_w->switchTrayRect(6).center()), (Hit{Hit::Kind::SwitchTray, 6, -1}));
    QCOMPARE(m_w->hitTest(QPoint(2, 2)).kind, Hit::Kind::None);
    QCOMPARE(m_w->hitTest(QPoint(m_w->width() - 20, tray.center().y())).kind, Hit::Kind::Manifold);
    // Gap between two GPU cells of the same superchip is the tray, not a GPU.
    const QRect g0 = m_w->gpuRect(4, 0);
    const QRect g1 = m_w->gpuRect(4, 1);
    QVERIFY(g1.left() - g0.right() >= 2);
    QCOMPARE(m_w->hitTest(QPoint(g0.right() + 1 + (g1.left() - g0.right()) / 2, g0.center().y())).kind,
             Hit::Kind::ComputeTray);
}

void TestRackElevationWidget::gpuPixelHasLensColour_data() {
    QTest::addColumn<float>("celsius");
    QTest::newRow("cool 40") << 40.f;
    QTest::newRow("normal 65") << 65.f;
    QTest::newRow("hot 89") << 89.f;
}

void TestRackElevationWidget::gpuPixelHasLensColour() {
    QFETCH(float, celsius);
    RackElevation e = makeRack();
    e.compute[11].gpus[2].value = Reading::fresh(celsius);
    m_w->setElevation(e);
    const QImage img = m_w->grab().toImage();
    const QRect r = m_w->gpuRect(11, 2);
    // Bottom-right corner area: clear of the value text (left) and overlays.
    const QPoint probe(r.right() - 3, r.bottom() - 2);
    QCOMPARE(img.pixelColor(probe * img.devicePixelRatio()).rgb(), m_scale.colorFor(celsius).rgb());
}

void TestRackElevationWidget::downGpuIsCrossedAndStaleIsNotFresh() {
    RackElevation e = makeRack();
    e.compute[3].gpus[1].down = true;
    e.compute[3].gpus[2].value = Reading::stale(60);
    e.compute[3].gpus[3].value = Reading::missing();
    m_w->setElevation(e);
    const QImage img = m_w->grab().toImage();
    const QColor fresh = m_scale.colorFor(60);
    const QColor crit = Theme::builtin(ThemeVariant::Dark).colors().crit;
    const QRect down = m_w->gpuRect(3, 1);
    QCOMPARE(img.pixelColor(down.center()).rgb(), crit.rgb());  // both strokes of the ✕ cross here
    const QRect stale = m_w->gpuRect(3, 2);
    QVERIFY(img.pixelColor(stale.right() - 3, stale.bottom() - 2) != fresh);
    const QRect missing = m_w->gpuRect(3, 3);
    QCOMPARE(img.pixelColor(missing.right() - 3, missing.bottom() - 3).rgb(),
             Theme::builtin(ThemeVariant::Dark).colors().window.rgb());
}

// A silent tray: every cell keeps a hint of its last value but no pixel passes for fresh, the
// cells are cross-hatched and framed in the silent colour, a chip names it, and nothing of it is
// drawn in the failed red; a down GPU beside it still is.
void TestRackElevationWidget::silentTrayIsNeitherDownNorHealthy() {
    const Theme& theme = Theme::builtin(ThemeVariant::Dark);
    RackElevation e = makeRack();
    for (auto& gpu : e.compute[5].gpus) gpu.value = Reading::silent(60);
    e.compute[5].cpus = {Reading::silent(50), Reading::silent(50)};
    e.compute[5].silent = true;
    e.compute[5].silentReason = QStringLiteral("dcgm-exporter: connection refused");
    e.compute[6].gpus[0].down = true;
    m_w->setElevation(e);
    const QImage img = m_w->grab().toImage();
    const QColor fresh = m_scale.colorFor(60);
    const QColor silent = theme.colors().silent;
    const QColor crit = theme.colors().crit;
    int freshLooking = 0, silentPixels = 0, red = 0;
    const QRect cells = m_w->cpuRect(5, 0).united(m_w->gpuRect(5, 3));
    for (int y = cells.top(); y <= cells.bottom(); ++y) {
        for (int x = cells.left(); x <= cells.right(); ++x) {
            const QColor px = img.pixelColor(x, y);
            freshLooking += px.rgb() == fresh.rgb();
            silentPixels += px.rgb() == silent.rgb();
            red += px.rgb() == crit.rgb();
        }
    }
    QCOMPARE(freshLooking, 0);
    QCOMPARE(red, 0);
    QVERIFY2(silentPixels > cells.width() * cells.height() / 10, qPrintable(QString::number(silentPixels)));
    // The frame just outside the cells is solid silent colour.
    QCOMPARE(img.pixelColor(cells.left() - 1, cells.center().y()).rgb(), silent.rgb());
    // The healthy tray next to it is not touched.
    QCOMPARE(img.pixelColor(m_w->gpuRect(4, 1).right() - 3, m_w->gpuRect(4, 1).center().y()).rgb(), fresh.rgb());
    QCOMPARE(img.pixelColor(m_w->gpuRect(6, 0).center()).rgb(), crit.rgb());
    const QString tip = m_w->toolTipText(Hit{Hit::Kind::ComputeTray, 5, -1});
    QVERIFY2(tip.contains(QStringLiteral("Telemetry silent: dcgm-exporter: connection refused")), qPrintable(tip));
    QVERIFY(m_w->toolTipText(Hit{Hit::Kind::Gpu, 5, 2}).contains(QStringLiteral("source silent")));
}

void TestRackElevationWidget::clicksEmitIds() {
    QSignalSpy gpu(m_w, &RackElevationWidget::gpuActivated);
    QSignalSpy tray(m_w, &RackElevationWidget::trayActivated);
    QTest::mouseClick(m_w, Qt::LeftButton, {}, m_w->gpuRect(15, 3).center());
    QCOMPARE(gpu.count(), 1);
    QCOMPARE(gpu.at(0).at(0).toString(), QStringLiteral("node15/gpu3"));
    QTest::mouseClick(m_w, Qt::LeftButton, {}, QPoint(m_w->trayRect(2).left() + 10, m_w->trayRect(2).center().y()));
    QTest::mouseClick(m_w, Qt::LeftButton, {}, m_w->switchTrayRect(1).center());
    QCOMPARE(tray.count(), 2);
    QCOMPARE(tray.at(0).at(0).toString(), QStringLiteral("node2"));
    QCOMPARE(tray.at(1).at(0).toString(), QStringLiteral("sw1"));
    QCOMPARE(gpu.count(), 1);
}

void TestRackElevationWidget::tooltipDescribesGpu() {
    RackElevation e = makeRack();
    e.compute[7].gpus[0].throttling = true;
    e.compute[7].gpus[0].value = Reading::fresh(87);
    e.compute[7].state = TrayState::Draining;
    m_w->setElevation(e);
    const QString text = m_w->toolTipText(m_w->hitTest(m_w->gpuRect(7, 0).center()));
    QVERIFY2(
        text.contains("node7/gpu0") && text.contains("87") && text.contains("Throttling") && text.contains("draining"),
        qPrintable(text));
}

void TestRackElevationWidget::hoverReportsGpu() {
    QSignalSpy hovered(m_w, &RackElevationWidget::gpuHovered);
    QTest::mouseMove(m_w, m_w->gpuRect(9, 2).center());
    QTRY_VERIFY(!hovered.isEmpty());
    QCOMPARE(hovered.last().at(0).toString(), QStringLiteral("node9/gpu2"));
    QTest::mouseMove(m_w, m_w->switchTrayRect(0).center());
    QTRY_COMPARE(hovered.last().at(0).toString(), QString());
}

void TestRackElevationWidget::linkChipSaysTheStage_data() {
    QTest::addColumn<LinkMark>("mark");
    QTest::addColumn<QString>("chip");
    QTest::addColumn<QRgb>("fill");  // 0: an outline on the tray's background
    const ThemeColors& c = Theme::builtin(ThemeVariant::Dark).colors();
    QTest::newRow("at risk") << LinkMark::AtRisk << QStringLiteral("▲ ib1 at risk") << c.crit.rgb();
    QTest::newRow("proposed") << LinkMark::Proposed << QStringLiteral("▲ ib1 proposed") << c.crit.rgb();
    QTest::newRow("isolating") << LinkMark::Isolating << QStringLiteral("⊘ ib1 isolating") << c.warn.rgb();
    QTest::newRow("isolated") << LinkMark::Isolated << QStringLiteral("⊘ ib1 isolated") << c.warn.rgb();
    QTest::newRow("treated") << LinkMark::Treated << QStringLiteral("↻ ib1 treated") << QRgb(0);
    QTest::newRow("returned") << LinkMark::Returned << QStringLiteral("✓ ib1 returned") << QRgb(0);
}

// A tray's rail link on the ladder reads from its chip: the port, the stage's word and its glyph,
// solid for what needs a decision or holds the tray out, an outline for what is on its way back.
void TestRackElevationWidget::linkChipSaysTheStage() {
    QFETCH(LinkMark, mark);
    QFETCH(QString, chip);
    QFETCH(QRgb, fill);
    RackElevation e = makeRack();
    ComputeTray& tray = e.compute[2];
    tray.linkMark = mark;
    tray.linkPort = QStringLiteral("ib1");
    tray.linkDetail = QStringLiteral("Rail link node2-ib1 %1 since 14:05:00 UTC").arg(linkMarkName(mark));
    m_w->setElevation(e);
    m_w->resize(900, 860);  // the Rack page's elevation at 1920 px
    QCOMPARE(linkChipText(mark, QStringLiteral("ib1"), true), chip);
    QCOMPARE(m_w->linkChipShown(2), chip);
    QCOMPARE(m_w->linkChipShown(3), QString());
    QVERIFY(m_w->toolTipText({Hit::Kind::ComputeTray, 2, -1}).contains(tray.linkDetail));
    QVERIFY(!m_w->toolTipText({Hit::Kind::ComputeTray, 3, -1}).contains(QStringLiteral("Rail link")));
    // The chip sits just left of the state chip, in the label column.
    const QImage img = m_w->grab().toImage();
    const QRect slot = m_w->trayRect(2);
    const QRect cells = m_w->cpuRect(2, 0);
    const QFontMetrics fm(Theme::builtin(ThemeVariant::Dark).font(slot.height() >= 22 ? 8.5 : 7));
    const int stateLeft = cells.left() - 8 - fm.horizontalAdvance(trayStateName(TrayState::Allocated)) - 10;
    const QPoint inside(stateLeft - 4 - 3, slot.center().y());  // inside the chip, right of its text
    if (fill != 0)
        QCOMPARE(img.pixelColor(inside).rgb(), fill);
    else
        QVERIFY(img.pixelColor(inside).rgb() != Theme::builtin(ThemeVariant::Dark).colors().crit.rgb());
}

// Too narrow for the stage's word beside the tray's name: the glyph and the port, never nothing.
void TestRackElevationWidget::narrowElevationKeepsGlyphAndPort() {
    RackElevation e = makeRack();
    e.compute[5].linkMark = LinkMark::Isolated;
    e.compute[5].linkPort = QStringLiteral("ib3");
    e.compute[5].label = QStringLiteral("06 · a-rather-long-node-name-n06");
    m_w->setElevation(e);
    QCOMPARE(m_w->linkChipShown(5), QStringLiteral("⊘ ib3"));
    m_w->resize(900, 860);
    QCOMPARE(m_w->linkChipShown(5), QStringLiteral("⊘ ib3"));  // the name is long: the label keeps it
    e.compute[5].label = QStringLiteral("06 · n06");
    m_w->setElevation(e);
    QCOMPARE(m_w->linkChipShown(5), QStringLiteral("⊘ ib3 isolated"));
    QCOMPARE(linkChipText(LinkMark::None, QStringLiteral("ib3"), true), QString());
}

QTEST_MAIN(TestRackElevationWidget)
#include "tst_rackelevationwidget.moc"
