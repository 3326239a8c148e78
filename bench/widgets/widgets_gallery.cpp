// Renders each widget with plausible synthetic data to PNG files (default ./gallery), in the dark,
// light and war-room themes, so a human can check they look right. Run with
// QT_QPA_PLATFORM=offscreen. Usage: widgets_gallery [output-dir]
#include "SyntheticFleet.h"

#include "widgets/RackMapWidget.h"

#include <QApplication>
#include <QDir>
#include <QRandomGenerator>
#include <QTextStream>

#include <cmath>

using namespace watchfloor::widgets;

namespace {

QString g_outDir;

void save(QWidget& w, const QString& name)
{
    const QString path = QDir(g_outDir).filePath(name + ".png");
    if (!w.grab().save(path))
        QTextStream(stderr) << "cannot write " << path << "\n";
    else
        QTextStream(stdout) << path << "\n";
}

std::vector<RackStatus> temperatures(int count, QRandomGenerator& rng)
{
    std::vector<RackStatus> s(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const double hall = (i / 300) % 3;
        float t = static_cast<float>(58 + 6 * hall + rng.bounded(8.0) + 10 * std::sin(i / 37.0));
        s[static_cast<std::size_t>(i)].value = Reading::fresh(t);
        if (i % 97 == 5)
            s[static_cast<std::size_t>(i)].value = Reading::stale(t);
        if (i % 211 == 17)
            s[static_cast<std::size_t>(i)].value = Reading::missing();
        if (i % 53 == 11)
            s[static_cast<std::size_t>(i)].alertCount = 1 + i % 4;
    }
    if (count > 40) {
        s[40].isolated = true;
        s[40].value = Reading::fresh(31);
        s[41].value = Reading::fresh(89);
        s[41].alertCount = 3;
    }
    return s;
}

void rackMaps()
{
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
    }
    const Theme& theme = Theme::builtin(ThemeVariant::Dark);
    RackMapWidget small;
    small.resize(1000, 560);
    small.setTheme(theme);
    small.setRacks(testing::syntheticFleet(7, 4, 1, 1));
    small.setColorScale(ColorScale::forLens(Lens::Health, theme));
    std::vector<RackStatus> s(7);
    for (int i = 0; i < 7; ++i)
        s[static_cast<std::size_t>(i)].value = Reading::fresh(0);
    s[1].value = Reading::fresh(float(HealthCategory::Degraded));
    s[1].alertCount = 2;
    s[3].value = Reading::fresh(float(HealthCategory::Isolated));
    s[3].isolated = true;
    s[4].value = Reading::stale(0);
    s[6].value = Reading::missing();
    small.setStatuses(s);
    save(small, "rackmap_7_health");
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    g_outDir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("gallery");
    QDir().mkpath(g_outDir);
    rackMaps();
    return 0;
}
