#pragma once
// A 240° arc gauge for a bounded value with warning/critical bands (e.g. valve %, rack power
// against its 120–132 kW design, MFU). Stale: arc greyed and labelled; missing: empty arc, "n/a".

#include "Reading.h"
#include "Theme.h"

#include <QWidget>

namespace watchfloor::widgets {

class GaugeWidget : public QWidget {
    Q_OBJECT
public:
    explicit GaugeWidget(QWidget* parent = nullptr);

    void setLabel(const QString& label);
    void setUnit(const QString& unit);
    void setRange(double min, double max);
    // Thresholds in value units; higherIsWorse=false for "low is bad" gauges (flow, goodput).
    void setThresholds(double warning, double critical, bool higherIsWorse = true);
    void setDecimals(int decimals);
    void setValue(const Reading& value);
    void setTheme(const Theme& theme);

    const Reading& value() const { return m_value; }
    // Colour the value arc is drawn in for the current value (for tests and legends).
    QColor valueColour() const;

    QSize sizeHint() const override { return {180, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString m_label;
    QString m_unit;
    double m_min = 0;
    double m_max = 100;
    double m_warning = 80;
    double m_critical = 90;
    bool m_higherIsWorse = true;
    int m_decimals = 0;
    Reading m_value;
    Theme m_theme;
};

}  // namespace watchfloor::widgets
