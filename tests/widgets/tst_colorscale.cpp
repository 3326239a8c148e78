#include "ColorScale.h"
#include "PaintHelpers.h"
#include "Theme.h"

#include <QTest>

#include <cmath>

using namespace watchfloor::widgets;

class TestColorScale : public QObject {
    Q_OBJECT
private slots:
    void builtinThemesLoad_data();
    void builtinThemesLoad();
    void badThemeNamesTheField_data();
    void badThemeNamesTheField();
    void sequentialEndsAreRampEnds();
    void lowIsBadLensesAreReversed();
    void missingIsNeverAColour();
    void formatsWithUnits_data();
    void formatsWithUnits();
    void categoricalHealthAndJobs();
    void staleTintDiffersFromFresh();
};

void TestColorScale::builtinThemesLoad_data() {
    QTest::addColumn<int>("variant");
    QTest::addColumn<QString>("name");
    QTest::newRow("dark") << int(ThemeVariant::Dark) << "dark";
    QTest::newRow("light") << int(ThemeVariant::Light) << "light";
    QTest::newRow("warroom") << int(ThemeVariant::WarRoom) << "warroom";
}

void TestColorScale::builtinThemesLoad() {
    QFETCH(int, variant);
    QFETCH(QString, name);
    const Theme& t = Theme::builtin(static_cast<ThemeVariant>(variant));
    QCOMPARE(t.name(), name);
    QVERIFY(t.colors().window.isValid());
    QVERIFY(t.sequentialRamp().size() >= 2);
    if (name == "warroom") QVERIFY(t.fontScale() > 1.2);
}

void TestColorScale::badThemeNamesTheField_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("not json") << QByteArray("{") << "not valid JSON";
    QTest::newRow("no name") << QByteArray("{}") << "\"name\"";
    QTest::newRow("bad colour") << QByteArray(R"({"name":"x","colors":{"window":"#zz"}})") << "colors.window";
}

void TestColorScale::badThemeNamesTheField() {
    QFETCH(QByteArray, json);
    QFETCH(QString, mentions);
    const ThemeLoadResult r = Theme::fromJson(json, "site.json");
    QVERIFY(!r.theme);
    QVERIFY2(r.error.contains(mentions) && r.error.contains("site.json"), qPrintable(r.error));
}

void TestColorScale::sequentialEndsAreRampEnds() {
    const Theme& t = Theme::builtin(ThemeVariant::Dark);
    const ColorScale s = ColorScale::forLens(Lens::GpuTemperature, t);
    QCOMPARE(s.colorFor(s.min()).rgb(), t.sequentialRamp().front().rgb());
    QCOMPARE(s.colorFor(s.max()).rgb(), t.sequentialRamp().back().rgb());
    QCOMPARE(s.colorFor(s.max() + 50).rgb(), t.sequentialRamp().back().rgb());  // clamped
    QVERIFY(s.colorFor(60) != s.colorFor(85));
}

void TestColorScale::lowIsBadLensesAreReversed() {
    const Theme& t = Theme::builtin(ThemeVariant::Dark);
    const ColorScale flow = ColorScale::forLens(Lens::CoolantFlow, t);
    QVERIFY(!flow.higherIsWorse());
    QCOMPARE(flow.colorFor(0).rgb(), t.sequentialRamp().back().rgb());  // no flow = hottest colour
    const ColorScale goodput = ColorScale::forLens(Lens::Goodput, t);
    QCOMPARE(goodput.colorFor(1.0f).rgb(), t.sequentialRamp().front().rgb());
}

void TestColorScale::missingIsNeverAColour() {
    const Theme& t = Theme::builtin(ThemeVariant::Dark);
    const ColorScale s = ColorScale::forLens(Lens::Power, t);
    QVERIFY(!s.colorFor(std::nanf("")).isValid());
    QVERIFY(!readingFill(s, Reading::missing(), t).isValid());
    QVERIFY(!readingFill(s, Reading{std::nanf(""), Freshness::Fresh}, t).isValid());  // a blank is not a reading
    QCOMPARE(s.formatReading(Reading::missing()), QStringLiteral("n/a"));
}

void TestColorScale::formatsWithUnits_data() {
    QTest::addColumn<int>("lens");
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("text");
    const QString nnbsp(QChar(0x202F));
    QTest::newRow("temperature") << int(Lens::GpuTemperature) << 72.4f << "72" + nnbsp + "°C";
    QTest::newRow("power") << int(Lens::Power) << 121.6f << "122" + nnbsp + "kW";
    QTest::newRow("flow") << int(Lens::CoolantFlow) << 180.f << "180" + nnbsp + "L/min";
    QTest::newRow("delta T") << int(Lens::CoolantDeltaT) << 9.64f << "9.6" + nnbsp + "°C";
    QTest::newRow("goodput ratio shown as %") << int(Lens::Goodput) << 0.953f << "95.3%";
    QTest::newRow("health") << int(Lens::Health) << 2.f << "Failed";
}

void TestColorScale::formatsWithUnits() {
    QFETCH(int, lens);
    QFETCH(float, value);
    QFETCH(QString, text);
    QCOMPARE(ColorScale::forLens(static_cast<Lens>(lens), Theme::builtin(ThemeVariant::Dark)).formatValue(value), text);
}

void TestColorScale::categoricalHealthAndJobs() {
    const Theme& t = Theme::builtin(ThemeVariant::Dark);
    const ColorScale health = ColorScale::forLens(Lens::Health, t);
    QCOMPARE(health.colorFor(float(HealthCategory::Healthy)), t.colors().ok);
    QCOMPARE(health.colorFor(float(HealthCategory::Failed)), t.colors().crit);
    QVERIFY(!health.colorFor(9).isValid());
    const ColorScale jobs = ColorScale::forJobs({"llama-405b", "moe-1t"}, t);
    QCOMPARE(jobs.categories().size(), std::size_t(3));
    QCOMPARE(jobs.formatValue(0), QStringLiteral("idle"));
    QCOMPARE(jobs.formatValue(2), QStringLiteral("moe-1t"));
    QVERIFY(jobs.colorFor(1) != jobs.colorFor(2));
}

void TestColorScale::staleTintDiffersFromFresh() {
    const Theme& t = Theme::builtin(ThemeVariant::Dark);
    const ColorScale health = ColorScale::forLens(Lens::Health, t);
    const QColor fresh = readingFill(health, Reading::fresh(0), t);
    const QColor stale = readingFill(health, Reading::stale(0), t);
    QCOMPARE(fresh, t.colors().ok);
    QVERIFY(stale != fresh);
    QVERIFY(stale.hslSaturationF() < fresh.hslSaturationF() * 0.6);  // visibly greyed
}

QTEST_MAIN(TestColorScale)
#include "tst_colorscale.moc"
