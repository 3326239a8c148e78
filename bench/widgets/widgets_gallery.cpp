// Renders each widget with plausible synthetic data to PNG files (default ./gallery), in the dark,
// light and war-room themes, so a human can check they look right. Run with
// QT_QPA_PLATFORM=offscreen. Usage: widgets_gallery [output-dir]
#include "SyntheticRackLayout.h"

#include "GaugeWidget.h"
#include "HeatmapWidget.h"
#include "KpiTile.h"
#include "LoopSchematicWidget.h"
#include "RackElevationWidget.h"
#include "RackMapWidget.h"
#include "StackedBreakdownChart.h"
#include "TimeSeriesChart.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QPainter>
#include <QPalette>
#include <QRandomGenerator>
#include <QSvgRenderer>
#include <QTextStream>

#include <cmath>

using namespace watchfloor::widgets;

namespace {

QString g_outDir;

void save(QWidget& w, const QString& name) {
    const QString path = QDir(g_outDir).filePath(name + ".png");
    if (!w.grab().save(path))
        QTextStream(stderr) << "cannot write " << path << "\n";
    else
        QTextStream(stdout) << path << "\n";
}

std::vector<RackStatus> temperatures(int count, QRandomGenerator& rng) {
    std::vector<RackStatus> s(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const double hall = (i / 300) % 3;
        float t = static_cast<float>(58 + 6 * hall + rng.bounded(8.0) + 10 * std::sin(i / 37.0));
        s[static_cast<std::size_t>(i)].value = Reading::fresh(t);
        if (i % 97 == 5) s[static_cast<std::size_t>(i)].value = Reading::stale(t);
        if (i % 211 == 17) s[static_cast<std::size_t>(i)].value = Reading::missing();
        if (i % 53 == 11) s[static_cast<std::size_t>(i)].alertCount = 1 + i % 4;
    }
    if (count > 40) {
        s[40].isolated = true;
        s[40].value = Reading::fresh(31);
        s[41].value = Reading::fresh(89);
        s[41].alertCount = 3;
    }
    return s;
}

void rackMaps() {
    QRandomGenerator rng(7);
    for (auto [variant, suffix] : {std::pair{ThemeVariant::Dark, "dark"}, std::pair{ThemeVariant::Light, "light"},
                                   std::pair{ThemeVariant::WarRoom, "warroom"}}) {
        const Theme& theme = Theme::builtin(variant);
        RackMapWidget map;
        map.setTheme(theme);
        map.resize(1600, 900);
        map.setRacks(testing::syntheticFleet(1800));
        map.setColorScale(ColorScale::forLens(Lens::GpuTemperature, theme));
        map.setStatuses(temperatures(1800, rng));
        map.setSelectedRack(map.rack(77).id);
        save(map, QStringLiteral("rackmap_1800_%1").arg(suffix));
        if (variant == ThemeVariant::Dark) {
            map.zoomBy(3.5, QPointF(map.tileRect(41).center()));
            save(map, QStringLiteral("rackmap_1800_zoomed"));
        }
    }
    const Theme& theme = Theme::builtin(ThemeVariant::Dark);
    RackMapWidget small;
    small.resize(1000, 560);
    small.setTheme(theme);
    small.setRacks(testing::syntheticFleet(7, 4, 1, 1));
    small.setColorScale(ColorScale::forLens(Lens::Health, theme));
    std::vector<RackStatus> s(7);
    for (int i = 0; i < 7; ++i) s[static_cast<std::size_t>(i)].value = Reading::fresh(0);
    s[1].value = Reading::fresh(float(HealthCategory::Degraded));
    s[1].alertCount = 2;
    s[3].value = Reading::fresh(float(HealthCategory::Isolated));
    s[3].isolated = true;
    s[4].value = Reading::stale(0);
    s[6].value = Reading::missing();
    small.setStatuses(s);
    save(small, "rackmap_7_health");
}

RackElevation sampleElevation() {
    RackElevation e;
    e.rackId = QStringLiteral("us-east/a1-03");
    e.rackLabel = QStringLiteral("Rack a1-03 · us-east / Hall A / R01");
    QRandomGenerator rng(3);
    for (int t = 0; t < RackElevation::kComputeTrays; ++t) {
        ComputeTray& tray = e.compute[static_cast<std::size_t>(t)];
        tray.id = QStringLiteral("nid%1").arg(1301 + t);
        tray.label = QStringLiteral("tray %1 · %2").arg(t + 1, 2, 10, QChar('0')).arg(tray.id);
        tray.state = TrayState::Allocated;
        for (int g = 0; g < 4; ++g) {
            GpuCell& gpu = tray.gpus[static_cast<std::size_t>(g)];
            gpu.id = QStringLiteral("%1/gpu%2").arg(tray.id).arg(g);
            gpu.value = Reading::fresh(static_cast<float>(62 + rng.bounded(12.0)));
        }
        tray.cpus = {Reading::fresh(static_cast<float>(48 + rng.bounded(6.0))),
                     Reading::fresh(static_cast<float>(48 + rng.bounded(6.0)))};
    }
    e.compute[2].state = TrayState::Draining;
    e.compute[5].state = TrayState::Idle;
    e.compute[7].gpus[1].value = Reading::fresh(88);
    e.compute[7].gpus[1].throttling = true;
    e.compute[7].alertCount = 1;
    e.compute[12].state = TrayState::Down;
    e.compute[13].gpus[3].down = true;
    e.compute[13].alertCount = 2;
    e.compute[15].state = TrayState::Drained;
    e.compute[16].gpus[0].value = Reading::stale(66);
    e.compute[17].gpus[2].value = Reading::missing();
    for (int s = 0; s < RackElevation::kSwitchTrays; ++s) {
        e.switches[static_cast<std::size_t>(s)] = {QStringLiteral("a1-03/nvsw%1").arg(s + 1),
                                                   QStringLiteral("switch tray %1").arg(s + 1),
                                                   Reading::fresh(float(HealthCategory::Healthy))};
    }
    e.switches[4].health = Reading::fresh(float(HealthCategory::Degraded));
    for (int p = 0; p < 8; ++p)
        e.powerShelves.push_back({QStringLiteral("a1-03/ps%1").arg(p + 1), QStringLiteral("power shelf %1").arg(p + 1),
                                  Reading::fresh(static_cast<float>(14.5 + rng.bounded(2.0))), Reading::fresh(0)});
    e.manifold = {Reading::fresh(25.2f), Reading::fresh(35.6f), Reading::fresh(182.f), false, 0};
    return e;
}

void elevation() {
    for (auto [variant, suffix] : {std::pair{ThemeVariant::Dark, "dark"}, std::pair{ThemeVariant::Light, "light"}}) {
        const Theme& theme = Theme::builtin(variant);
        RackElevationWidget w;
        w.setTheme(theme);
        w.setColorScale(ColorScale::forLens(Lens::GpuTemperature, theme));
        w.setElevation(sampleElevation());
        w.resize(620, 820);
        save(w, QStringLiteral("elevation_%1").arg(suffix));
    }
}

void charts() {
    TimeSeriesChart chart;
    chart.resize(900, 320);
    chart.setTitle(QStringLiteral("Rack a1-03 coolant"));
    chart.setValueUnit(QStringLiteral("°C"));
    const int supply =
        chart.addSeries(QStringLiteral("supply"), Theme::builtin(ThemeVariant::Dark).colors().coolantSupply);
    const int ret =
        chart.addSeries(QStringLiteral("return"), Theme::builtin(ThemeVariant::Dark).colors().coolantReturn);
    QList<QPointF> s, r;
    QRandomGenerator rng(5);
    const qint64 t0 = 1'780'000'000'000;
    for (int i = 0; i < 3600; ++i) {
        const double base = 25 + 0.6 * std::sin(i / 600.0);
        s.append(QPointF(double(t0 + i * 1000), base + rng.bounded(0.2)));
        if (i < 1500 || i > 1700)  // a 200 s telemetry outage on the return sensor
            r.append(QPointF(double(t0 + i * 1000), base + 10 + (i > 2400 && i < 2700 ? 4 : 0) + rng.bounded(0.5)));
    }
    chart.setMaxGap(std::chrono::seconds(5));
    chart.setSeriesPoints(supply, s);
    chart.setSeriesPoints(ret, r);
    chart.show();
    QApplication::processEvents();
    chart.setSeriesPoints(supply, s);
    save(chart, QStringLiteral("timeseries"));
}

void heatmap() {
    const Theme& theme = Theme::builtin(ThemeVariant::Dark);
    HeatmapWidget w;
    w.setTheme(theme);
    w.setColorScale(ColorScale::forLens(Lens::LinkErrors, theme));
    QRandomGenerator rng(11);
    const int rows = 72;
    const int cols = 18;
    std::vector<Reading> cells(rows * cols);
    QStringList rowLabels, colLabels;
    for (int r = 0; r < rows; ++r) rowLabels << QStringLiteral("nid%1/gpu%2").arg(1301 + r / 4).arg(r % 4);
    for (int c = 0; c < cols; ++c) colLabels << QStringLiteral("L%1").arg(c);
    for (int i = 0; i < rows * cols; ++i)
        cells[static_cast<std::size_t>(i)] = Reading::fresh(rng.bounded(100) < 90 ? 0.f : float(rng.bounded(40)));
    for (int c = 0; c < cols; ++c)
        cells[static_cast<std::size_t>(29 * cols + c)] = Reading::fresh(float(200 + rng.bounded(600)));
    cells[static_cast<std::size_t>(50 * cols + 3)] = Reading::missing();
    cells[static_cast<std::size_t>(51 * cols + 4)] = Reading::stale(12);
    w.setData(rows, cols, cells, rowLabels, colLabels);
    w.resize(560, 900);
    save(w, QStringLiteral("heatmap_nvlink"));
}

void loop() {
    LoopStatus s;
    s.title = QStringLiteral("Rack a1-03 · cooling loop");
    s.supply_c = Reading::fresh(25.2f);
    s.return_c = Reading::fresh(35.6f);
    s.flow_lpm = Reading::fresh(182.f);
    s.dp_bar = Reading::fresh(1.18f);
    s.dpSetpoint_bar = Reading::fresh(1.2f);
    s.valve_pct = Reading::fresh(64.f);
    s.power_kw = Reading::fresh(121.4f);
    s.leakSensors = {{QStringLiteral("manifold supply QD"), LeakSensorState::Dry},
                     {QStringLiteral("manifold return QD"), LeakSensorState::Dry},
                     {QStringLiteral("rack floor rope"), LeakSensorState::Dry},
                     {QStringLiteral("tray 07 cold plate"), LeakSensorState::Dry},
                     {QStringLiteral("tray 12 cold plate"), LeakSensorState::Fault}};
    LoopSchematicWidget w;
    w.resize(820, 400);
    w.setStatus(s);
    save(w, QStringLiteral("loop_normal"));
    s.isolated = true;
    s.valve_pct = Reading::fresh(0.f);
    s.flow_lpm = Reading::fresh(0.f);
    s.leakSensors[3].state = LeakSensorState::Wet;
    s.return_c = Reading::stale(36.1f);
    s.power_kw = Reading::missing();
    w.setStatus(s);
    save(w, QStringLiteral("loop_isolated_leak"));
}

void kpis() {
    for (auto [variant, suffix] :
         {std::pair{ThemeVariant::Dark, "dark"}, std::pair{ThemeVariant::WarRoom, "warroom"}}) {
        const Theme& theme = Theme::builtin(variant);
        QWidget strip;
        strip.setAutoFillBackground(true);
        QPalette pal = strip.palette();
        pal.setColor(QPalette::Window, theme.colors().window);
        strip.setPalette(pal);
        struct Spec {
            const char* label;
            const char* unit;
            int decimals;
            double factor;
            KpiValue value;
        };
        const Spec specs[] = {
            {"Fleet goodput", "%", 1, 100, {Reading::fresh(0.9412f), Trend::Up, true, KpiStatus::Ok, "last 24 h", {}}},
            {"ETTR", "", 2, 1, {Reading::fresh(0.91f), Trend::Down, true, KpiStatus::Warning, "sliding 6 h", {}}},
            {"MFU", "%", 1, 100, {Reading::stale(0.41f), Trend::Flat, true, KpiStatus::Ok, {}, "42 s old"}},
            {"GPUs down", "", 0, 1, {Reading::fresh(3), Trend::Up, false, KpiStatus::Critical, "of 504", {}}},
            {"Open incidents", "", 0, 1, {Reading::missing(), Trend::None, false, KpiStatus::Neutral, {}, {}}},
        };
        int x = 8;
        const int tileWidth = variant == ThemeVariant::WarRoom ? 300 : 200;
        for (const Spec& spec : specs) {
            auto* tile = new KpiTile(&strip);
            tile->setTheme(theme);
            tile->setLabel(QString::fromUtf8(spec.label));
            tile->setUnit(QString::fromUtf8(spec.unit));
            tile->setFormat(spec.decimals, spec.factor);
            tile->setValue(spec.value);
            tile->setGeometry(x, 8, tileWidth, tile->sizeHint().height());
            x += tileWidth + 8;
        }
        int gaugeX = 8;
        const int gaugeY = 8 + strip.findChild<KpiTile*>()->height() + 8;
        auto gauge = [&](const char* label, const char* unit, double max, double warn, double crit, bool higherWorse,
                         Reading value) {
            auto* g = new GaugeWidget(&strip);
            g->setTheme(theme);
            g->setLabel(QString::fromUtf8(label));
            g->setUnit(QString::fromUtf8(unit));
            g->setRange(0, max);
            g->setThresholds(warn, crit, higherWorse);
            g->setValue(value);
            g->setGeometry(gaugeX, gaugeY, 200, 170);
            gaugeX += 208;
        };
        gauge("Rack power", "kW", 150, 120, 132, true, Reading::fresh(124.5f));
        gauge("Coolant flow", "L/min", 250, 150, 120, false, Reading::fresh(182));
        gauge("Valve", "%", 100, 90, 98, true, Reading::stale(64));
        gauge("Supply", "°C", 50, 32, 40, true, Reading::missing());
        strip.resize(x, gaugeY + 178);
        save(strip, QStringLiteral("kpis_%1").arg(suffix));
    }
}

void breakdown() {
    StackedBreakdownChart chart;
    chart.resize(820, 320);
    chart.setTitle(QStringLiteral("GPU-hours by category (last 6 h)"));
    chart.setValueUnit(QStringLiteral("GPU·h"));
    const Theme& theme = Theme::builtin(ThemeVariant::Dark);
    chart.setData({"10:00", "11:00", "12:00", "13:00", "14:00", "15:00"},
                  {{"productive", {452, 460, 401, 455, 470, 468}, theme.colors().ok},
                   {"startup", {6, 2, 14, 3, 2, 2}, {}},
                   {"checkpoint save/restore", {18, 19, 31, 18, 18, 19}, {}},
                   {"wasted progress", {0, 0, 28, 0, 0, 4}, {}},
                   {"infra recovery", {2, 0, 30, 6, 0, 0}, theme.colors().crit},
                   {"straggler slowdown", {14, 11, 8, 12, 6, 9}, {}}});
    chart.show();
    QApplication::processEvents();
    save(chart, QStringLiteral("badput_breakdown"));
}

// The SVG icons from resources/, drawn through QSvgRenderer on both backgrounds.
void icons() {
    const QStringList names{"watchfloor", "rack", "alert", "isolate", "leak", "drain"};
    QImage img(names.size() * 72 + 8, 2 * 72 + 8, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&img);
    int row = 0;
    for (ThemeVariant variant : {ThemeVariant::Dark, ThemeVariant::Light}) {
        const Theme& theme = Theme::builtin(variant);
        p.fillRect(QRect(0, row * 72, img.width(), 72 + 8), theme.colors().window);
        for (qsizetype i = 0; i < names.size(); ++i) {
            QFile f(QStringLiteral(":/icons/%1.svg").arg(names[i]));
            if (!f.open(QIODevice::ReadOnly)) {
                QTextStream(stderr) << "missing icon " << names[i] << "\n";
                continue;
            }
            // Monochrome icons use currentColor: substitute the theme text colour.
            QByteArray svg = f.readAll();
            svg.replace("currentColor", theme.colors().text.name().toLatin1());
            QSvgRenderer renderer(svg);
            renderer.render(&p, QRectF(8 + i * 72, 8 + row * 72, 56, 56));
        }
        ++row;
    }
    p.end();
    const QString path = QDir(g_outDir).filePath("icons.png");
    img.save(path);
    QTextStream(stdout) << path << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    g_outDir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("gallery");
    QDir().mkpath(g_outDir);
    rackMaps();
    elevation();
    charts();
    heatmap();
    loop();
    kpis();
    breakdown();
    icons();
    return 0;
}
