#include "ColorScale.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace watchfloor::widgets {
namespace {

QColor interpolateRamp(const std::vector<QColor>& stops, float t) {
    if (stops.size() == 1) return stops.front();
    const float pos = std::clamp(t, 0.f, 1.f) * static_cast<float>(stops.size() - 1);
    const std::size_t i = std::min(static_cast<std::size_t>(pos), stops.size() - 2);
    const float f = pos - static_cast<float>(i);
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * f, a.greenF() + (b.greenF() - a.greenF()) * f,
                            a.blueF() + (b.blueF() - a.blueF()) * f);
}

float mapped(float v, ColorScale::Mapping m) {
    return m == ColorScale::Mapping::Log1p ? std::log1p(std::max(v, 0.f)) : v;
}

}  // namespace

QString lensName(Lens lens) {
    switch (lens) {
    case Lens::Health: return QStringLiteral("Health");
    case Lens::GpuTemperature: return QStringLiteral("GPU temperature");
    case Lens::Power: return QStringLiteral("Rack power");
    case Lens::CoolantFlow: return QStringLiteral("Coolant flow");
    case Lens::CoolantDeltaT: return QStringLiteral("Coolant ΔT");
    case Lens::LinkErrors: return QStringLiteral("Link errors");
    case Lens::Goodput: return QStringLiteral("Goodput");
    case Lens::Job: return QStringLiteral("Job");
    case Lens::Lifecycle: return QStringLiteral("Lifecycle / lemons");
    }
    return {};
}

ColorScale ColorScale::forLens(Lens lens, const Theme& theme) {
    // Ranges follow docs/domain/cooling.md: ~120–132 kW per NVL72 rack, 1.5 L/min
    // per kW (≈180–200 L/min), ΔT planning band 8–12 °C; GPU slowdown sits in the high 80s °C.
    switch (lens) {
    case Lens::Health: {
        const ThemeColors& c = theme.colors();
        return categorical(lensName(lens), {{QStringLiteral("Healthy"), c.ok},
                                            {QStringLiteral("Degraded"), c.warn},
                                            {QStringLiteral("Failed"), c.crit},
                                            {QStringLiteral("Isolated"), c.info}});
    }
    case Lens::GpuTemperature: return sequential(lensName(lens), QStringLiteral("°C"), 30.f, 90.f, theme);
    case Lens::Power: return sequential(lensName(lens), QStringLiteral("kW"), 0.f, 140.f, theme);
    case Lens::CoolantFlow: return sequential(lensName(lens), QStringLiteral("L/min"), 0.f, 220.f, theme, false);
    case Lens::CoolantDeltaT: {
        ColorScale s = sequential(lensName(lens), QStringLiteral("°C"), 0.f, 20.f, theme);
        s.setDecimals(1);
        return s;
    }
    case Lens::LinkErrors:
        return sequential(lensName(lens), QStringLiteral("/min"), 0.f, 1000.f, theme, true, Mapping::Log1p);
    case Lens::Goodput: {
        ColorScale s = sequential(lensName(lens), QStringLiteral("%"), 0.f, 1.f, theme, false);
        s.setDisplayFactor(100.f);
        s.setDecimals(1);
        return s;
    }
    case Lens::Job: return forJobs({}, theme);
    case Lens::Lifecycle: {
        const ThemeColors& c = theme.colors();
        return categorical(lensName(lens), {{QStringLiteral("All in production"), c.ok},
                                            {QStringLiteral("Burn-in / maintenance"), c.info},
                                            {QStringLiteral("Lemon / proposal"), c.warn},
                                            {QStringLiteral("Triage / RMA"), c.crit}});
    }
    }
    return forJobs({}, theme);
}

ColorScale ColorScale::forJobs(const QStringList& jobNames, const Theme& theme) {
    std::vector<Category> cats;
    cats.reserve(static_cast<std::size_t>(jobNames.size()) + 1);
    cats.push_back({QStringLiteral("idle"), theme.colors().panelRaised});
    const auto& palette = theme.categorical();
    for (qsizetype i = 0; i < jobNames.size(); ++i)
        cats.push_back({jobNames[i], palette[static_cast<std::size_t>(i) % palette.size()]});
    return categorical(lensName(Lens::Job), std::move(cats));
}

ColorScale ColorScale::sequential(QString title, QString unit, float min, float max, const Theme& theme,
                                  bool higherIsWorse, Mapping mapping) {
    ColorScale s;
    s.m_kind = Kind::Sequential;
    s.m_title = std::move(title);
    s.m_unit = std::move(unit);
    s.m_min = min;
    s.m_max = max > min ? max : min + 1.f;
    s.m_higherIsWorse = higherIsWorse;
    s.m_mapping = mapping;
    const auto& ramp = theme.sequentialRamp();
    for (std::size_t i = 0; i < s.m_lut.size(); ++i) {
        const float t = static_cast<float>(i) / static_cast<float>(s.m_lut.size() - 1);
        s.m_lut[i] = interpolateRamp(ramp, higherIsWorse ? t : 1.f - t);
    }
    return s;
}

ColorScale ColorScale::categorical(QString title, std::vector<Category> categories) {
    ColorScale s;
    s.m_kind = Kind::Categorical;
    s.m_title = std::move(title);
    s.m_categories = std::move(categories);
    s.m_min = 0.f;
    s.m_max = static_cast<float>(s.m_categories.size());
    return s;
}

float ColorScale::normalized(float value) const {
    if (std::isnan(value)) return value;
    const float lo = mapped(m_min, m_mapping);
    const float hi = mapped(m_max, m_mapping);
    return std::clamp((mapped(value, m_mapping) - lo) / (hi - lo), 0.f, 1.f);
}

QColor ColorScale::colorFor(float value) const {
    if (std::isnan(value)) return {};
    if (m_kind == Kind::Categorical) {
        const auto i = static_cast<long>(std::lround(value));
        if (i < 0 || i >= static_cast<long>(m_categories.size())) return {};
        return m_categories[static_cast<std::size_t>(i)].color;
    }
    const auto idx = static_cast<std::size_t>(normalized(value) * static_cast<float>(m_lut.size() - 1) + 0.5f);
    return m_lut[idx];
}

QString ColorScale::formatValue(float value) const {
    if (std::isnan(value)) return QStringLiteral("n/a");
    if (m_kind == Kind::Categorical) {
        const auto i = static_cast<long>(std::lround(value));
        if (i < 0 || i >= static_cast<long>(m_categories.size())) return QStringLiteral("unknown");
        return m_categories[static_cast<std::size_t>(i)].label;
    }
    const QString number = QString::number(static_cast<double>(value * m_displayFactor), 'f', m_decimals);
    if (m_unit == QLatin1String("%")) return number + m_unit;
    return m_unit.isEmpty() ? number : number + QChar(0x202F) + m_unit;
}

QString ColorScale::formatReading(const Reading& r) const {
    if (r.isMissing()) return QStringLiteral("n/a");
    QString s = formatValue(r.value);
    if (r.isSilent())
        s += QStringLiteral(" (last read, source silent)");
    else if (r.isStale())
        s += QStringLiteral(" (stale)");
    return s;
}

}  // namespace watchfloor::widgets
