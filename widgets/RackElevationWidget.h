#pragma once
// Front elevation of one GB200 NVL72 rack, top to bottom as built: power shelves, 10 compute
// trays, 9 NVLink switch trays, 8 compute trays, power shelves; the coolant manifold runs down the
// right side. Each compute tray shows 2 Grace CPUs and 4 Blackwell GPUs (two superchips); GPU
// cells are coloured through a ColorScale with state overlays: ✕ down, stripes draining/drained,
// a corner flag for throttling. Hit testing is arithmetic (slot = y / slotHeight).

#include "ColorScale.h"
#include "Reading.h"
#include "Theme.h"

#include <QWidget>

#include <array>
#include <functional>
#include <vector>

namespace watchfloor::widgets {

// Slurm node state of a compute tray (proto NodeState without the proto dependency).
enum class TrayState { Unknown, Idle, Allocated, Draining, Drained, Down };
QString trayStateName(TrayState state);

// Where a tray's rail link stands, forecast or ladder (proto LinkStage without the proto
// dependency), least to most pressing: a link returned to service, treated and waiting for its
// clean window, isolated (its tray drained), isolating (the drain scheduled), forecast at risk,
// isolation proposed and waiting for a decision.
enum class LinkMark { None, Returned, Treated, Isolated, Isolating, AtRisk, Proposed };
QString linkMarkName(LinkMark mark);  // "at risk", "isolated", ...; "" for None
// The chip's text: "▲ ib1 at risk", "▲ ib1 proposed", "⊘ ib1 isolating", "⊘ ib1 isolated",
// "↻ ib1 treated", "✓ ib1 returned"; `withStage` false keeps the glyph and the port ("⊘ ib1"),
// what a narrow elevation shows. "" for None.
QString linkChipText(LinkMark mark, const QString& port, bool withStage);

struct GpuCell {
    QString id;
    Reading value;            // the lens value
    bool down = false;        // failed / fallen off the bus: ✕
    bool throttling = false;  // clocks event (thermal or power cap) active: corner flag
};

struct ComputeTray {
    QString id;     // node name, emitted by trayActivated
    QString label;  // e.g. "tray 03 · nid0103"
    TrayState state = TrayState::Unknown;
    std::array<GpuCell, 4> gpus;
    std::array<Reading, 2> cpus;  // coloured with the same scale as the GPUs
    int alertCount = 0;
    // The tray's telemetry source is silent: its cells are the last values read. Drawn in the
    // theme's silent colour (frame, cross-hatch, a "SILENT" chip with `silentReason`), apart from
    // a down tray (red) and a healthy one.
    bool silent = false;
    QString silentReason;  // a few words for the chip: "dcgm-exporter down"
    QString silentDetail;  // the whole story for the tooltip (empty: silentReason)
    // The tray's most pressing rail link, forecast to fail or on the isolate -> treat -> return
    // ladder: a chip beside the state chip naming the port and the stage ("▲ ib1 at risk",
    // "⊘ ib2 isolated"), whose glyph and fill say it without colour too; the detail (every marked
    // link of the tray, the stage's reason and since when) in the tray's tooltips.
    LinkMark linkMark = LinkMark::None;
    QString linkPort;    // e.g. "ib2"
    QString linkDetail;  // "Rail link r01-n07-ib2 isolated since 14:05 UTC (32 min): errors prove the BER over ..."
};

struct SwitchTray {
    QString id;
    QString label;
    Reading health;  // HealthCategory index (Healthy/Degraded/Failed)
};

struct PowerShelf {
    QString id;
    QString label;
    Reading power_kw;
    Reading health;  // HealthCategory index
};

struct ManifoldStatus {
    Reading supply_c;
    Reading return_c;
    Reading flow_lpm;
    bool isolated = false;  // valve closed
    int leaksDetected = 0;
};

struct RackElevation {
    static constexpr int kComputeTrays = 18;
    static constexpr int kComputeAboveSwitches = 10;
    static constexpr int kSwitchTrays = 9;
    static constexpr int kGpusPerTray = 4;

    QString rackId;
    QString rackLabel;
    std::array<ComputeTray, kComputeTrays> compute;
    std::array<SwitchTray, kSwitchTrays> switches;
    std::vector<PowerShelf> powerShelves;  // first half drawn above the trays, the rest below
    ManifoldStatus manifold;
};

class RackElevationWidget : public QWidget {
    Q_OBJECT
public:
    struct Hit {
        enum class Kind { None, Gpu, Cpu, ComputeTray, SwitchTray, PowerShelf, Manifold };
        Kind kind = Kind::None;
        int index = -1;  // tray / switch tray / shelf index
        int part = -1;   // GPU 0..3 or CPU 0..1 within the tray
        bool operator==(const Hit&) const = default;
    };

    explicit RackElevationWidget(QWidget* parent = nullptr);

    void setElevation(const RackElevation& elevation);
    const RackElevation& elevation() const { return m_rack; }
    void setColorScale(const ColorScale& scale);
    void setTheme(const Theme& theme);
    void setTooltipProvider(std::function<QString(const Hit&)> provider);

    Hit hitTest(const QPoint& pos) const;
    QRect gpuRect(int tray, int gpu) const;
    QRect cpuRect(int tray, int cpu) const;
    QRect trayRect(int tray) const;
    QRect switchTrayRect(int index) const;
    QString toolTipText(const Hit& hit) const;
    // The link chip a compute tray shows at the widget's size: linkChipText with the stage, or
    // without it where the label would lose its name, or "" (no mark, or no room at all).
    QString linkChipShown(int trayIndex) const;

    QSize sizeHint() const override { return {520, 760}; }
    QSize minimumSizeHint() const override { return {320, 420}; }

signals:
    void gpuActivated(const QString& gpuId);
    void trayActivated(const QString& trayId);  // compute tray (node), switch tray or power shelf
    void gpuHovered(const QString& gpuId);      // empty when leaving GPU cells

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    enum class SlotKind { PowerShelf, Compute, Switch };
    struct Slot {
        SlotKind kind;
        int index;
    };
    struct Geometry {
        QRect frame;  // rack outline
        int top = 0;
        int slotHeight = 0;
        int labelLeft = 0;
        int labelWidth = 0;
        int cellsLeft = 0;
        int cellsWidth = 0;
        int manifoldLeft = 0;
        int manifoldWidth = 0;
    };
    Geometry geometry() const;
    int slotAt(int y, const Geometry& g) const;
    QRect slotRect(int slot, const Geometry& g) const;
    int slotOf(SlotKind kind, int index) const;
    QRect partRect(const QRect& slotRect, bool cpu, int index, const Geometry& g) const;
    struct LinkChip {
        QString text;
        QRect rect;
    };
    // Left of the state chip; with the stage while the tray's label keeps its full width, else
    // the glyph and the port; none where even that leaves the label no room.
    LinkChip linkChip(const ComputeTray& tray, const QRect& stateChip, const QFontMetrics& fm, const Geometry& g) const;
    QFont trayFont(const QRect& slot) const;
    QRect stateChipRect(const ComputeTray& tray, const QRect& slot, const QFontMetrics& fm, const Geometry& g) const;
    void paintComputeTray(QPainter& p, const ComputeTray& tray, const QRect& slot, const Geometry& g);
    void paintSilentTray(QPainter& p, const ComputeTray& tray, const QRect& slot, const Geometry& g);
    void paintSwitchTray(QPainter& p, const SwitchTray& tray, const QRect& slot, const Geometry& g);
    void paintPowerShelf(QPainter& p, const PowerShelf& shelf, const QRect& slot, const Geometry& g);
    void paintManifold(QPainter& p, const Geometry& g);
    void rebuildSlots();

    RackElevation m_rack;
    std::vector<Slot> m_slots;
    ColorScale m_scale;
    ColorScale m_health;
    Theme m_theme;
    std::function<QString(const Hit&)> m_tooltipProvider;
    Hit m_hover;
};

}  // namespace watchfloor::widgets
