#pragma once
// A one-line legend for a ColorScale (ramp or category swatches, plus stale and no-data
// swatches). RackMapWidget draws the same legend inside itself when asked to.

#include "ColorScale.h"
#include "Theme.h"

#include <QWidget>

namespace watchfloor::widgets {

class LegendWidget : public QWidget {
    Q_OBJECT
public:
    explicit LegendWidget(QWidget* parent = nullptr);

    void setScale(const ColorScale& scale);
    void setTheme(const Theme& theme);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    ColorScale m_scale;
    Theme m_theme;
};

}  // namespace watchfloor::widgets
