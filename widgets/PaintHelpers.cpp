#include "PaintHelpers.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace watchfloor::widgets {
namespace {

constexpr int kSwatch = 12;
constexpr int kLegendPad = 6;
constexpr int kRampWidth = 180;

QColor blend(const QColor& a, const QColor& b, float t) {
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * t, a.greenF() + (b.greenF() - a.greenF()) * t,
                            a.blueF() + (b.blueF() - a.blueF()) * t);
}

void paintSwatchLabel(QPainter& p, int& x, int y, const QString& label, const QFontMetrics& fm, auto&& paintSwatch) {
    const QRect swatch(x, y + (fm.height() - kSwatch) / 2, kSwatch, kSwatch);
    paintSwatch(swatch);
    x += kSwatch + 4;
    p.drawText(QPoint(x, y + fm.ascent()), label);
    x += fm.horizontalAdvance(label) + 12;
}

}  // namespace

QColor staleTint(const QColor& color, const Theme& theme) {
    const QColor grey = QColor::fromHslF(color.hslHueF() < 0 ? 0 : color.hslHueF(), 0.0, color.lightnessF());
    return blend(blend(color, grey, 0.6f), theme.colors().stale, 0.45f);
}

QColor readingFill(const ColorScale& scale, const Reading& reading, const Theme& theme) {
    if (reading.isMissing()) return {};
    const QColor c = scale.colorFor(reading.value);
    if (!c.isValid()) return {};
    return reading.isStale() ? staleTint(c, theme) : c;
}

QColor textColorOn(const QColor& background) {
    const double luminance = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return luminance > 0.5 ? QColor(0x10, 0x14, 0x18) : QColor(0xf4, 0xf6, 0xf8);
}

void paintMissingCell(QPainter& p, const QRect& r, const Theme& theme, bool naText) {
    const ThemeColors& c = theme.colors();
    p.fillRect(r, c.window);
    p.setPen(QPen(c.missing, 1, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.adjusted(0, 0, -1, -1));
    if (naText && r.width() >= 22 && r.height() >= 12) {
        p.setPen(c.textDim);
        p.drawText(r, Qt::AlignCenter, QStringLiteral("n/a"));
    }
}

void paintHatch(QPainter& p, const QRect& r, const QColor& color) { p.fillRect(r, QBrush(color, Qt::BDiagPattern)); }

void paintSilentHatch(QPainter& p, const QRect& r, const Theme& theme) {
    p.fillRect(r, QBrush(theme.colors().silent, Qt::DiagCrossPattern));
}

void paintMaintenanceHatch(QPainter& p, const QRect& r, const Theme& theme) {
    QColor tint = theme.colors().info;
    tint.setAlphaF(0.28f);
    p.fillRect(r, tint);
    // Wider than the stale hatch (1 px Qt pattern) so the two never read alike.
    p.save();
    p.setClipRect(r);
    QPen pen(theme.colors().info, std::max(1.5, r.width() / 16.0));
    p.setPen(pen);
    const int step = std::max(6, r.width() / 5);
    for (int x = r.left() - r.height(); x < r.right(); x += step)
        p.drawLine(QPointF(x, r.bottom() + 1), QPointF(x + r.height() + 1, r.top()));
    p.restore();
}

void paintSilentFrame(QPainter& p, const QRect& r, const Theme& theme, int width) {
    const QColor& c = theme.colors().silent;
    const QRect in = r.adjusted(width, width, -width, -width);
    p.fillRect(QRect(r.left(), r.top(), r.width(), width), c);
    p.fillRect(QRect(r.left(), r.bottom() - width + 1, r.width(), width), c);
    p.fillRect(QRect(r.left(), in.top(), width, in.height()), c);
    p.fillRect(QRect(r.right() - width + 1, in.top(), width, in.height()), c);
}

void paintReadingCell(QPainter& p, const QRect& r, const ColorScale& scale, const Reading& reading, const Theme& theme,
                      bool naText) {
    const QColor fill = readingFill(scale, reading, theme);
    if (!fill.isValid()) {
        paintMissingCell(p, r, theme, naText);
        return;
    }
    p.fillRect(r, fill);
    if (reading.isSilent())
        paintSilentHatch(p, r, theme);
    else if (reading.isStale())
        paintHatch(p, r, theme.colors().window);
}

void paintCross(QPainter& p, const QRect& r, const QColor& color, qreal width) {
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(color, width, Qt::SolidLine, Qt::RoundCap));
    const QRectF f = QRectF(r).adjusted(width + 1, width + 1, -width - 1, -width - 1);
    p.drawLine(f.topLeft(), f.bottomRight());
    p.drawLine(f.topRight(), f.bottomLeft());
    p.restore();
}

void paintDrainStripes(QPainter& p, const QRect& r, const QColor& color) {
    p.save();
    p.setClipRect(r);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(color, 2));
    const int step = 6;
    for (int x = r.left() - r.height(); x < r.right(); x += step)
        p.drawLine(QPointF(x, r.bottom() + 1), QPointF(x + r.height() + 1, r.top()));
    p.restore();
}

void paintCountBadge(QPainter& p, const QPointF& center, qreal radius, int count, const QColor& fill) {
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    p.drawEllipse(center, radius, radius);
    if (radius >= 6) {
        QFont f = p.font();
        f.setPixelSize(static_cast<int>(radius * 1.3));
        f.setBold(true);
        p.setFont(f);
        p.setPen(textColorOn(fill));
        const QString text = count > 99 ? QStringLiteral("99+") : QString::number(count);
        p.drawText(QRectF(center.x() - radius * 2, center.y() - radius, radius * 4, radius * 2), Qt::AlignCenter, text);
    }
    p.restore();
}

QSize legendSizeHint(const ColorScale& scale, const Theme& theme, bool withMaintenance) {
    const QFontMetrics fm(theme.labelFont());
    const QFontMetrics title(theme.headerFont());
    int width = title.horizontalAdvance(scale.title()) + 12;
    if (scale.kind() == ColorScale::Kind::Sequential) {
        width += fm.horizontalAdvance(scale.formatValue(scale.min())) + kRampWidth +
                 fm.horizontalAdvance(scale.formatValue(scale.max())) + 16;
    } else {
        for (const auto& c : scale.categories()) width += kSwatch + 16 + fm.horizontalAdvance(c.label);
    }
    width += 3 * (kSwatch + 16) + fm.horizontalAdvance(QStringLiteral("stale")) +
             fm.horizontalAdvance(QStringLiteral("source silent")) + fm.horizontalAdvance(QStringLiteral("no data"));
    if (withMaintenance) width += kSwatch + 16 + fm.horizontalAdvance(QStringLiteral("maintenance"));
    return {width + 2 * kLegendPad, std::max(fm.height(), title.height()) + 2 * kLegendPad};
}

void paintLegend(QPainter& p, const QRect& r, const ColorScale& scale, const Theme& theme, bool withMaintenance) {
    const ThemeColors& c = theme.colors();
    p.save();
    p.setClipRect(r);
    const QFontMetrics fm(theme.labelFont());
    const int y = r.top() + (r.height() - fm.height()) / 2;
    int x = r.left() + kLegendPad;

    p.setFont(theme.headerFont());
    p.setPen(c.text);
    const QFontMetrics titleMetrics(p.font());
    p.drawText(QPoint(x, y + fm.ascent()), scale.title());
    x += titleMetrics.horizontalAdvance(scale.title()) + 12;

    p.setFont(theme.labelFont());
    if (scale.kind() == ColorScale::Kind::Sequential) {
        const QString lo = scale.formatValue(scale.min());
        const QString hi = scale.formatValue(scale.max());
        p.setPen(c.textDim);
        p.drawText(QPoint(x, y + fm.ascent()), lo);
        x += fm.horizontalAdvance(lo) + 6;
        const QRect ramp(x, y + (fm.height() - kSwatch) / 2, kRampWidth, kSwatch);
        QLinearGradient g(ramp.topLeft(), ramp.topRight());
        constexpr int kStops = 16;
        for (int i = 0; i <= kStops; ++i) {
            const float t = static_cast<float>(i) / kStops;
            float v = scale.min() + (scale.max() - scale.min()) * t;
            if (scale.mapping() == ColorScale::Mapping::Log1p)
                v = std::expm1(std::log1p(scale.min()) + (std::log1p(scale.max()) - std::log1p(scale.min())) * t);
            g.setColorAt(t, scale.colorFor(v));
        }
        p.fillRect(ramp, g);
        x += kRampWidth + 6;
        p.drawText(QPoint(x, y + fm.ascent()), hi);
        x += fm.horizontalAdvance(hi) + 16;
    } else {
        p.setPen(c.text);
        for (const auto& cat : scale.categories())
            paintSwatchLabel(p, x, y, cat.label, fm, [&](const QRect& s) { p.fillRect(s, cat.color); });
        x += 4;
    }
    p.setPen(c.textDim);
    const QColor sample = scale.kind() == ColorScale::Kind::Sequential ? scale.colorFor(scale.min()) : c.ok;
    paintSwatchLabel(p, x, y, QStringLiteral("stale"), fm, [&](const QRect& s) {
        p.fillRect(s, staleTint(sample, theme));
        paintHatch(p, s, c.window);
    });
    p.setPen(c.silent);
    paintSwatchLabel(p, x, y, QStringLiteral("source silent"), fm, [&](const QRect& s) {
        p.fillRect(s, staleTint(sample, theme));
        paintSilentHatch(p, s, theme);
    });
    p.setPen(c.textDim);
    paintSwatchLabel(p, x, y, QStringLiteral("no data"), fm, [&](const QRect& s) {
        paintMissingCell(p, s, theme, false);
        p.setPen(c.textDim);
    });
    if (withMaintenance) {
        p.setPen(c.info);
        paintSwatchLabel(p, x, y, QStringLiteral("maintenance"), fm, [&](const QRect& s) {
            p.fillRect(s, sample);
            paintMaintenanceHatch(p, s, theme);
            p.setPen(c.info);
        });
    }
    p.restore();
}

}  // namespace watchfloor::widgets
