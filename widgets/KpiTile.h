#pragma once
// A fleet KPI as one large number: label, value with unit, trend arrow, status colour and
// freshness ("goodput 94.1 % ▲", "GPUs down 3", "ETTR 0.91"). A stale value is greyed and says
// how old it is; a missing one reads "n/a" — never a healthy-looking zero.

#include "Reading.h"
#include "Theme.h"

#include <QWidget>

namespace watchfloor::widgets {

enum class Trend { None, Up, Down, Flat };
enum class KpiStatus { Neutral, Ok, Warning, Critical };

struct KpiValue {
    Reading value;
    Trend trend = Trend::None;
    bool upIsGood = true;  // goodput: up is good; GPUs down: up is bad
    KpiStatus status = KpiStatus::Neutral;
    QString detail;    // small line under the number, e.g. "of 504 GPUs", "last 24 h"
    QString staleAge;  // e.g. "42 s old"; shown when value is stale
};

class KpiTile : public QWidget {
    Q_OBJECT
public:
    explicit KpiTile(QWidget* parent = nullptr);

    void setLabel(const QString& label);
    void setUnit(const QString& unit);
    // Digits after the decimal point; displayFactor scales the shown number (ratio → %).
    void setFormat(int decimals, double displayFactor = 1.0);
    void setValue(const KpiValue& value);
    void setTheme(const Theme& theme);

    QString label() const { return m_label; }
    // The number as shown, e.g. "94.1 %" or "n/a".
    QString valueText() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void activated();  // clicked: ui/ drills into the KPI's page

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    QString m_label;
    QString m_unit;
    int m_decimals = 0;
    double m_displayFactor = 1.0;
    KpiValue m_value;
    Theme m_theme;
};

}  // namespace watchfloor::widgets
