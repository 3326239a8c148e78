// The war-room wall is read from 4 m (docs/war-room.md): every wall page, rendered at 1920×1080
// and at 3840×2160 against a real fleetd on the demo's fleet and scenario, must draw every capital
// letter and digit at least WallLegibility's cap height tall (20 px at 1080p, 40 px at 4K),
// measured in the rendered pixels, and cut no label short ("Fl…", "Accelera...").

#include "FleetdProcess.h"  // testbeds/
#include "RenderedText.h"

#include "MainWindow.h"
#include "Page.h"

#include "EndpointConnection.h"
#include "FleetStore.h"
#include "Theme.h"
#include "WallLegibility.h"

#include <QAbstractItemView>
#include <QFile>
#include <QLabel>
#include <QTest>

#include <memory>

using namespace watchfloor;

Q_DECLARE_METATYPE(watchfloor::ui::PageId)

namespace {

QString describe(const testing::MeasuredGlyph& g, QWidget& window) {
    QWidget* under = window.childAt(g.at - QPoint(0, 2));
    return QStringLiteral("'%1' in \"%2\" %3 px at (%4,%5) [%6]")
        .arg(g.glyph)
        .arg(g.text.left(40))
        .arg(g.heightPx)
        .arg(g.at.x())
        .arg(g.at.y())
        .arg(under ? QString::fromLatin1(under->metaObject()->className()) : QStringLiteral("?"));
}

// What is left of issue 35 item 1, measured and listed but not failed: the Rack page has no wall
// layout (the elevation's 35 slot rows do not fit a 1080-line page in wall type, its per-GPU text is
// clipped, and the squeezed side tables clip rows), and on the Cooling page four charts share 1080
// lines, so QtCharts clips their axis labels.
bool notWallSizedYet(ui::PageId page, QSize size, QWidget* under) {
    if (page == ui::PageId::Rack) return true;
    for (QWidget* w = under; w; w = w->parentWidget()) {
        if (page == ui::PageId::Cooling && size.height() <= 1080 && w->inherits("QChartView")) return true;
    }
    return false;
}

bool isCut(const QString& text) {
    const QString t = text.trimmed();
    return t.endsWith(QChar(0x2026)) || (t.endsWith(QStringLiteral("...")) && t.size() > 3);
}

}  // namespace

class TestWallGlyphs : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (testing::FleetdProcess::binary().isEmpty() || !QFile::exists(testing::FleetdProcess::binary()))
            QSKIP("FLEETD_BIN is not built");
        QVERIFY(!qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR").isEmpty());
    }

    // The measurement itself: desk type on a 1080-line page is far below the wall's minimum, and
    // the check must say so (else a passing wall proves nothing).
    void deskTypeFailsTheWallMinimum() {
        QWidget window;
        window.resize(400, 120);
        QPalette palette;
        palette.setColor(QPalette::Window, Qt::black);
        palette.setColor(QPalette::WindowText, Qt::white);
        window.setPalette(palette);
        window.setAutoFillBackground(true);
        auto* desk = new QLabel(QStringLiteral("GPUs DOWN 8"), &window);
        desk->setFont(widgets::Theme::builtin(widgets::ThemeVariant::Dark).font(9.5));
        desk->move(10, 10);
        auto* wall = new QLabel(QStringLiteral("GPUs DOWN 8"), &window);
        wall->setFont(widgets::Theme::builtin(widgets::ThemeVariant::WarRoom).forWall(1.0).font(9.5));
        wall->move(10, 50);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const auto glyphs = testing::capHeightsIn(window, testing::renderImage(window), testing::recordText(window));
        QCOMPARE(glyphs.size(), std::size_t(2));
        const int need = static_cast<int>(widgets::kWallMinCapHeightPx1080);
        QVERIFY2(glyphs[0].heightPx < need, qPrintable(QString::number(glyphs[0].heightPx)));
        QVERIFY2(glyphs[1].heightPx >= need, qPrintable(QString::number(glyphs[1].heightPx)));
        // The cap height of DejaVu at its pixel size, give or take a row of antialiasing.
        QVERIFY2(std::abs(glyphs[1].heightPx - QFontMetricsF(wall->font()).capHeight()) <= 1.5,
                 qPrintable(QString::number(glyphs[1].heightPx)));
    }

    void wallPageReadsFromFourMetres_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<ui::PageId>("page");
        for (const auto& [name, size] : {std::pair{"1080p", QSize(1920, 1080)}, std::pair{"4k", QSize(3840, 2160)}})
            for (ui::PageId page : ui::kWallPages)
                QTest::addRow("%s-%s", qPrintable(ui::pageKey(page)), name) << size << page;
    }

    void wallPageReadsFromFourMetres() {
        QFETCH(QSize, size);
        QFETCH(ui::PageId, page);
        QVERIFY(startWall());
        if (m_wall->size() != size) {
            m_wall->resize(size);
            QTest::qWait(200);
        }
        const int need = static_cast<int>(std::ceil(widgets::kWallMinCapHeightPx1080 * widgets::wallScaleFor(size)));
        QCOMPARE(m_wall->theme().minCapHeightPx(), need);
        QVERIFY(m_wall->navigate({page, QString()}));
        QTest::qWait(300);
        const auto texts = testing::recordText(*m_wall);
        const auto glyphs = testing::capHeightsIn(*m_wall, testing::renderImage(*m_wall), texts);
        QStringList small;
        int smallest = std::numeric_limits<int>::max();
        QStringList knownSmall;
        for (const auto& g : glyphs) {
            smallest = std::min(smallest, g.heightPx);
            if (g.heightPx >= need) continue;
            (notWallSizedYet(page, size, m_wall->childAt(g.at - QPoint(0, 2))) ? knownSmall : small)
                << describe(g, *m_wall);
        }
        if (!knownSmall.isEmpty())
            qInfo("not wall-sized yet: %s", qPrintable(knownSmall.mid(0, 4).join(QStringLiteral("; "))));
        QStringList cut;
        QStringList cutCells;
        for (const auto& t : texts) {
            if (!isCut(t.text) || !QRectF(m_wall->rect()).intersects(t.box)) continue;
            QWidget* under = m_wall->childAt(t.box.center().toPoint());
            const bool cell = under && (qobject_cast<QAbstractItemView*>(under) ||
                                        qobject_cast<QAbstractItemView*>(under->parentWidget()));
            (cell ? cutCells : cut) << t.text;
        }
        // Tables still elide long cells on the wall (event messages, a job's last interruption):
        // listed, not failed (what is left of issue 35 item 1).
        if (!cutCells.isEmpty()) qInfo("table cells elided: %s", qPrintable(cutCells.mid(0, 6).join(u'|')));
        qInfo("%s at %dx%d: %zu glyphs measured, smallest capital %d px (minimum %d px)", qPrintable(ui::pageKey(page)),
              size.width(), size.height(), glyphs.size(), glyphs.empty() ? 0 : smallest, need);
        QVERIFY2(glyphs.size() >= 10, "the page drew next to no text");
        // A page wider than the wall is cut at its right edge, whatever its type size.
        QVERIFY2(
            m_wall->centralWidget()->minimumSizeHint().width() <= size.width(),
            qPrintable(
                QStringLiteral("the page needs %1 px across").arg(m_wall->centralWidget()->minimumSizeHint().width())));
        QVERIFY2(small.isEmpty(), qPrintable(QStringLiteral("%1 glyphs under %2 px: %3")
                                                 .arg(small.size())
                                                 .arg(need)
                                                 .arg(small.mid(0, 12).join(QStringLiteral("; ")))));
        // The loop panel is desk-wide: in wall type the Cooling page is wider than the wall and cut.
        if (page == ui::PageId::Cooling) QEXPECT_FAIL("", "the Cooling page has no wall layout yet", Continue);
        QVERIFY2(cut.isEmpty(), qPrintable(QStringLiteral("labels cut short: %1").arg(cut.mid(0, 12).join(u'|'))));
    }

    void cleanupTestCase() {
        m_wall.reset();
        m_connection.reset();
        m_store.reset();
        m_fleetd.reset();
    }

private:
    // One fleetd and one wall for every page and size: the demo fleet as the README shows it.
    bool startWall() {
        if (m_wall) return true;
        const QString scenario = qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR") + QStringLiteral("/scenarios/demo.scn");
        m_fleetd = std::make_unique<testing::FleetdProcess>();
        if (!m_fleetd->start({QStringLiteral("--seed"), QStringLiteral("7"), QStringLiteral("--speed"),
                              QStringLiteral("60"), QStringLiteral("--warm-start"), QStringLiteral("--scenario"),
                              scenario})) {
            qWarning("%s", qPrintable(m_fleetd->errorString()));
            return false;
        }
        m_store = std::make_unique<client::FleetStore>();
        client::EndpointConfig config;
        config.target = QString::fromStdString(m_fleetd->address());
        config.detail = v1::DETAIL_LEVEL_STANDARD;  // what the wall subscribes to
        m_connection = std::make_unique<client::EndpointConnection>(config);
        m_store->attach(m_connection.get());
        ui::PageContext context;
        context.store = m_store.get();
        context.connections = {m_connection.get()};
        ui::MainWindowOptions options;
        options.wallDisplay = true;
        options.followIncidents = false;  // the test chooses the page
        m_wall = std::make_unique<ui::MainWindow>(context, options);
        m_wall->resize(1920, 1080);
        m_wall->show();
        m_connection->start();
        if (!QTest::qWaitFor(
                [&] { return m_store->endpointState(0) == client::ConnectionState::Live && m_store->rackCount() > 0; },
                30000))
            return false;
        QTest::qWait(2500);  // history backfills, as a --screenshot settles
        return true;
    }

    std::unique_ptr<testing::FleetdProcess> m_fleetd;
    std::unique_ptr<client::FleetStore> m_store;
    std::unique_ptr<client::EndpointConnection> m_connection;
    std::unique_ptr<ui::MainWindow> m_wall;
};

QTEST_MAIN(TestWallGlyphs)
#include "tst_wallglyphs.moc"
