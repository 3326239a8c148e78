#include "LegendWidget.h"

#include "PaintHelpers.h"

#include <QPainter>

namespace watchfloor::widgets {

LegendWidget::LegendWidget(QWidget* parent)
    : QWidget(parent),
      m_scale(ColorScale::forLens(Lens::Health, Theme::builtin(ThemeVariant::Dark))),
      m_theme(Theme::builtin(ThemeVariant::Dark)) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void LegendWidget::setScale(const ColorScale& scale) {
    m_scale = scale;
    updateGeometry();
    update();
}

void LegendWidget::setTheme(const Theme& theme) {
    m_theme = theme;
    updateGeometry();
    update();
}

QSize LegendWidget::sizeHint() const { return legendSizeHint(m_scale, m_theme); }

void LegendWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), m_theme.colors().window);
    paintLegend(p, rect(), m_scale, m_theme);
}

}  // namespace watchfloor::widgets
