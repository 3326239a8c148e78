#pragma once
// The liquid-cooling loop of one rack as a schematic: CDU supply → control valve → supply
// manifold → compute/switch trays → return manifold → CDU return, annotated with the live
// numbers (supply/return °C, flow L/min, ΔP bar, valve %, heat load kW) and the leak sensors.
// The valve is drawn closed when the rack is isolated, wet sensors are highlighted, stale values
// are greyed with "(stale)", missing ones read "n/a".

#include "Reading.h"
#include "Theme.h"

#include <QWidget>

#include <vector>

namespace watchfloor::widgets {

enum class LeakSensorState { Dry, Wet, Fault, Unknown };

struct LeakSensor {
    QString name;  // e.g. "tray 07 cold plate", "rack floor rope"
    LeakSensorState state = LeakSensorState::Unknown;
};

struct LoopStatus {
    QString title;           // e.g. "Rack a1-03 cooling loop"
    Reading supply_c;        // RackLiquidSupplyTemperature
    Reading return_c;        // RackLiquidReturnTemperature
    Reading flow_lpm;        // RackLiquidFlow
    Reading dp_bar;          // RackLiquidDifferentialPressure
    Reading dpSetpoint_bar;  // RackLiquidDifferentialPressureSp
    Reading valve_pct;       // RackControlValvePosition, 0 closed .. 100 open
    Reading power_kw;        // RackPower (heat into the loop)
    bool isolated = false;   // RackLiquidIsolationStatus: valve closed by hand or by leak response
    std::vector<LeakSensor> leakSensors;
    int trayBranches = 27;  // 18 compute + 9 switch trays plumbed to the manifold
};

class LoopSchematicWidget : public QWidget {
    Q_OBJECT
public:
    explicit LoopSchematicWidget(QWidget* parent = nullptr);

    void setStatus(const LoopStatus& status);
    const LoopStatus& status() const { return m_status; }
    void setTheme(const Theme& theme);

    // Where the valve symbol is drawn (for tests and overlays).
    QRect valveRect() const;
    // Row of a leak sensor in the sensor list, widget coordinates.
    QRect leakSensorRect(int index) const;
    int wetSensorCount() const;

    QSize sizeHint() const override { return {760, 380}; }
    QSize minimumSizeHint() const override { return {480, 260}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Geometry {
        QRect area;
        int inletX;
        int valveX;
        int supplyManifoldX;
        int returnManifoldX;
        int supplyY;
        int returnY;
        QRect trays;
        QRect sensors;
    };
    Geometry geometry() const;
    void paintValue(QPainter& p, const QRect& r, const QString& caption, const Reading& value, const QString& unit,
                    int decimals, Qt::Alignment align) const;
    void paintValve(QPainter& p, const QRect& r) const;
    void paintSensors(QPainter& p, const Geometry& g) const;

    LoopStatus m_status;
    Theme m_theme;
};

}  // namespace watchfloor::widgets
