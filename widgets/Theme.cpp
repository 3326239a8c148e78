#include "Theme.h"

#include "WallLegibility.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtGlobal>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace watchfloor::widgets {
namespace {

struct ColorField {
    const char* key;
    QColor ThemeColors::*member;
};

constexpr std::array kColorFields{
    ColorField{"window", &ThemeColors::window},
    ColorField{"panel", &ThemeColors::panel},
    ColorField{"panelRaised", &ThemeColors::panelRaised},
    ColorField{"grid", &ThemeColors::grid},
    ColorField{"text", &ThemeColors::text},
    ColorField{"textDim", &ThemeColors::textDim},
    ColorField{"textStrong", &ThemeColors::textStrong},
    ColorField{"accent", &ThemeColors::accent},
    ColorField{"selection", &ThemeColors::selection},
    ColorField{"hover", &ThemeColors::hover},
    ColorField{"ok", &ThemeColors::ok},
    ColorField{"warn", &ThemeColors::warn},
    ColorField{"crit", &ThemeColors::crit},
    ColorField{"info", &ThemeColors::info},
    ColorField{"stale", &ThemeColors::stale},
    ColorField{"silent", &ThemeColors::silent},
    ColorField{"missing", &ThemeColors::missing},
    ColorField{"coolantSupply", &ThemeColors::coolantSupply},
    ColorField{"coolantReturn", &ThemeColors::coolantReturn},
};

std::optional<QColor> parseColor(const QJsonValue& v) {
    if (!v.isString()) return std::nullopt;
    QColor c = QColor::fromString(v.toString());
    if (!c.isValid()) return std::nullopt;
    return c;
}

QString parseColorList(const QJsonObject& root, const char* key, std::size_t minCount, std::vector<QColor>& out) {
    const QJsonArray arr = root.value(QLatin1String(key)).toArray();
    if (arr.size() < static_cast<qsizetype>(minCount))
        return QStringLiteral("\"%1\" needs at least %2 colours").arg(QLatin1String(key)).arg(minCount);
    out.clear();
    for (const QJsonValue& v : arr) {
        auto c = parseColor(v);
        if (!c) return QStringLiteral("\"%1\" holds an invalid colour %2").arg(QLatin1String(key), v.toString());
        out.push_back(*c);
    }
    return {};
}

const char* resourcePath(ThemeVariant variant) {
    switch (variant) {
    case ThemeVariant::Dark: return ":/themes/dark.json";
    case ThemeVariant::Light: return ":/themes/light.json";
    case ThemeVariant::WarRoom: return ":/themes/warroom.json";
    }
    return ":/themes/dark.json";
}

Theme loadBuiltin(ThemeVariant variant) {
    ThemeLoadResult r = Theme::fromFile(QString::fromLatin1(resourcePath(variant)));
    if (!r.theme) qFatal("watchfloor_widgets: built-in theme is broken: %s", qPrintable(r.error));
    return *r.theme;
}

}  // namespace

const Theme& Theme::builtin(ThemeVariant variant) {
    static const Theme dark = loadBuiltin(ThemeVariant::Dark);
    static const Theme light = loadBuiltin(ThemeVariant::Light);
    static const Theme warRoom = loadBuiltin(ThemeVariant::WarRoom);
    switch (variant) {
    case ThemeVariant::Dark: return dark;
    case ThemeVariant::Light: return light;
    case ThemeVariant::WarRoom: return warRoom;
    }
    return dark;
}

ThemeLoadResult Theme::fromFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {std::nullopt, QStringLiteral("cannot read theme file %1: %2").arg(path, f.errorString())};
    return fromJson(f.readAll(), path);
}

ThemeLoadResult Theme::fromJson(const QByteArray& json, const QString& sourceName) {
    auto fail = [&](const QString& why) {
        return ThemeLoadResult{std::nullopt, QStringLiteral("theme %1: %2").arg(sourceName, why)};
    };
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (doc.isNull())
        return fail(
            QStringLiteral("not valid JSON at offset %1: %2").arg(parseError.offset).arg(parseError.errorString()));
    const QJsonObject root = doc.object();

    Theme t;
    t.m_name = root.value(QLatin1String("name")).toString();
    if (t.m_name.isEmpty()) return fail(QStringLiteral("\"name\" is missing"));
    t.m_fontScale = root.value(QLatin1String("fontScale")).toDouble(1.0);
    if (t.m_fontScale < 0.5 || t.m_fontScale > 4.0)
        return fail(QStringLiteral("\"fontScale\" %1 is outside 0.5..4").arg(t.m_fontScale));

    const QJsonObject colors = root.value(QLatin1String("colors")).toObject();
    for (const ColorField& field : kColorFields) {
        auto c = parseColor(colors.value(QLatin1String(field.key)));
        if (!c) return fail(QStringLiteral("colour \"colors.%1\" is missing or invalid").arg(QLatin1String(field.key)));
        t.m_colors.*field.member = *c;
    }
    if (QString e = parseColorList(root, "sequential", 2, t.m_sequential); !e.isEmpty()) return fail(e);
    if (QString e = parseColorList(root, "categorical", 4, t.m_categorical); !e.isEmpty()) return fail(e);
    return {std::move(t), {}};
}

Theme Theme::forWall(double wallScale) const {
    Theme t = *this;
    t.m_wallScale = std::max(1.0, wallScale);
    t.m_minCapHeightPx = static_cast<int>(std::ceil(kWallMinCapHeightPx1080 * t.m_wallScale));
    return t;
}

QFont Theme::font(double pointSize, bool bold) const {
    QFont f;
    f.setBold(bold);
    f.setStyleHint(QFont::SansSerif);
    if (m_wallScale <= 0) {
        f.setPointSizeF(pointSize * m_fontScale);
        return f;
    }
    // Points at the reference 96 dpi, then the wall's scale; below the floor, the smallest size
    // whose capitals are m_minCapHeightPx tall in this very font (fonts differ in cap ratio).
    const double wanted = pointSize * m_fontScale * m_wallScale * 96.0 / 72.0;
    // Probing metrics is slow and the map asks for fonts while painting: one probe per floor.
    static QHash<QPair<int, bool>, int> floorPixels;
    const auto key = qMakePair(m_minCapHeightPx, bold);
    auto floor = floorPixels.find(key);
    // One row over the minimum: antialiasing leaves a capital's top row too faint to count.
    if (floor == floorPixels.end()) floor = floorPixels.insert(key, pixelSizeForCapHeight(f, m_minCapHeightPx + 1));
    f.setPixelSize(std::max(static_cast<int>(std::lround(wanted)), *floor));
    return f;
}

QString Theme::cssFontSize(double pointSize, bool bold) const {
    if (m_wallScale <= 0) return QStringLiteral("%1pt").arg(pointSize * m_fontScale, 0, 'f', 1);
    return QStringLiteral("%1px").arg(font(pointSize, bold).pixelSize());
}

}  // namespace watchfloor::widgets
