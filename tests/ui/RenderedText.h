#pragma once
// Where a window draws its text, and how tall that text came out in the pixels.
//
// recordText() renders the window into a paint device whose engine keeps every text run it is
// handed (string, font, baseline, box in window pixels) and draws nothing. capHeightsIn() then
// looks at the real rendering of the same window: for each run with a capital letter or a digit,
// it counts the rows of ink from the baseline up over the run's box: the tallest glyph standing
// on the baseline, at least a capital's height (an ascender such as 'l' is ~4 % taller in DejaVu).
// What is measured is the glyph as it reached the image (clipped or not), not a font's nominal
// size. (Rich text places its runs itself, so a single character's column is not reliable.)

#include <QFontMetricsF>
#include <QImage>
#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QTextItem>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace watchfloor::testing {

struct DrawnText {
    QString text;
    QFont font;
    QPointF origin;  // start of the baseline, window pixels
    QTransform toWindow;
    QRectF box;  // ascent to descent, window pixels
};

class TextRecordingEngine : public QPaintEngine {
public:
    TextRecordingEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState& state) override {
        if (state.state() & QPaintEngine::DirtyTransform) m_transform = state.transform();
    }
    // Nothing but text is kept; the base class's fallbacks call each other, so each is a no-op.
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawPolygon(const QPoint*, int, PolygonDrawMode) override {}
    void drawPath(const QPainterPath&) override {}
    void drawRects(const QRectF*, int) override {}
    void drawRects(const QRect*, int) override {}
    void drawLines(const QLineF*, int) override {}
    void drawLines(const QLine*, int) override {}
    void drawEllipse(const QRectF&) override {}
    void drawEllipse(const QRect&) override {}
    void drawPoints(const QPointF*, int) override {}
    void drawPoints(const QPoint*, int) override {}
    void drawImage(const QRectF&, const QImage&, const QRectF&, Qt::ImageConversionFlags) override {}
    void drawTiledPixmap(const QRectF&, const QPixmap&, const QPointF&) override {}
    void drawTextItem(const QPointF& p, const QTextItem& item) override {
        if (item.text().trimmed().isEmpty()) return;
        const QRectF local(p.x(), p.y() - item.ascent(), item.width(), item.ascent() + item.descent());
        texts.push_back({item.text(), item.font(), m_transform.map(p), m_transform, m_transform.mapRect(local)});
    }
    Type type() const override { return QPaintEngine::User; }

    std::vector<DrawnText> texts;

private:
    QTransform m_transform;
};

class TextRecorder : public QPaintDevice {
public:
    explicit TextRecorder(QSize size) : m_size(size) {}
    ~TextRecorder() override = default;
    QPaintEngine* paintEngine() const override { return &m_engine; }
    std::vector<DrawnText>& texts() { return m_engine.texts; }

protected:
    int metric(PaintDeviceMetric metric) const override {
        switch (metric) {
        case PdmWidth: return m_size.width();
        case PdmHeight: return m_size.height();
        case PdmWidthMM: return m_size.width() * 254 / 960;
        case PdmHeightMM: return m_size.height() * 254 / 960;
        case PdmNumColors: return 0x7fffffff;
        case PdmDepth: return 32;
        case PdmDpiX:
        case PdmDpiY:
        case PdmPhysicalDpiX:
        case PdmPhysicalDpiY: return 96;  // the offscreen screen's: fonts in points resolve alike
        case PdmDevicePixelRatio: return 1;
        case PdmDevicePixelRatioScaled: return static_cast<int>(devicePixelRatioFScale());
        }
        return 0;
    }

private:
    QSize m_size;
    mutable TextRecordingEngine m_engine;
};

inline std::vector<DrawnText> recordText(QWidget& window) {
    TextRecorder recorder(window.size());
    {
        QPainter painter(&recorder);
        window.render(&painter);
    }
    return std::move(recorder.texts());
}

inline QImage renderImage(QWidget& window) {
    QImage image(window.size(), QImage::Format_ARGB32);
    image.fill(window.palette().window().color());
    QPainter painter(&image);
    window.render(&painter);
    return image;
}

struct MeasuredGlyph {
    QString text;  // the run
    QChar glyph;   // the capital or digit measured
    int heightPx;  // rows of ink from the baseline up in that glyph's column
    QPoint at;     // the glyph's baseline, window pixels
};

// The first capital letter or digit of a run, and the run's box above its baseline.
inline std::optional<std::pair<int, QRectF>> measurableGlyph(const DrawnText& t) {
    for (int i = 0; i < t.text.size(); ++i) {
        const QChar c = t.text[i];
        if (!(c.isUpper() && c.unicode() < 0x250) && !(c >= u'0' && c <= u'9')) continue;
        return std::pair{i, QRectF(t.box.left(), t.box.top(), t.box.width(), t.origin.y() - t.box.top())};
    }
    return std::nullopt;
}

// Ink: a pixel whose colour is far from the column's most common colour (the background there).
inline int inkRowsAboveBaseline(const QImage& image, const QRectF& column, double baseline) {
    const int left = std::max(0, static_cast<int>(std::floor(column.left())));
    const int right = std::min(image.width() - 1, static_cast<int>(std::ceil(column.right())) - 1);
    const int base = static_cast<int>(std::lround(baseline));
    const int top = std::max(0, static_cast<int>(std::floor(column.top())) - 2);
    if (left > right || base <= top || base > image.height()) return 0;
    QHash<QRgb, int> counts;
    for (int y = top; y < std::min(image.height(), base + 2); ++y)
        for (int x = left; x <= right; ++x) ++counts[image.pixel(x, y) | 0xff000000];
    QRgb background = 0;
    int most = -1;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        if (it.value() > most) {
            most = it.value();
            background = it.key();
        }
    auto rowHasInk = [&](int y) {
        if (y < 0 || y >= image.height()) return false;
        for (int x = left; x <= right; ++x) {
            const QRgb p = image.pixel(x, y);
            const int d = std::max({std::abs(qRed(p) - qRed(background)), std::abs(qGreen(p) - qGreen(background)),
                                    std::abs(qBlue(p) - qBlue(background))});
            if (d > 64) return true;
        }
        return false;
    };
    // The glyph stands on the baseline (give or take hinting): find its foot, then climb.
    int y = -1;
    for (int probe = base + 1; probe >= base - 3; --probe)
        if (rowHasInk(probe)) {
            y = probe;
            break;
        }
    if (y < 0) return 0;
    const int foot = y;
    while (y - 1 >= top && rowHasInk(y - 1)) --y;
    return foot - y + 1;
}

inline bool visibleWhole(QWidget& window, const QRectF& box) {
    QWidget* under = window.childAt(box.center().toPoint());
    if (!under) return QRectF(window.rect()).contains(box.adjusted(1, 1, -1, -1));
    const QRect shown = under->visibleRegion().boundingRect().translated(under->mapTo(&window, QPoint(0, 0)));
    return QRectF(shown).contains(QRectF(box.left() + 1, box.center().y(), 1, box.bottom() - box.center().y() - 1));
}

inline std::vector<MeasuredGlyph> capHeightsIn(QWidget& window, const QImage& image,
                                               const std::vector<DrawnText>& texts) {
    std::vector<MeasuredGlyph> out;
    for (const DrawnText& t : texts) {
        const auto glyph = measurableGlyph(t);
        if (!glyph) continue;
        const QRectF column = glyph->second;
        if (!QRectF(image.rect()).intersects(column)) continue;
        const int height = inkRowsAboveBaseline(image, column, t.origin.y());
        if (height == 0) continue;  // clipped away or covered: not on the wall
        // A row scrolled half out of its view is not a label: only runs whole inside the widget
        // that shows them are measured.
        if (!visibleWhole(window, t.box)) continue;
        out.push_back({t.text, t.text[glyph->first], height, t.origin.toPoint()});
    }
    return out;
}

}  // namespace watchfloor::testing
