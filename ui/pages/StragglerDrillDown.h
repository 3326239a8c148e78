#pragma once
// The straggler drill-down (issue 16 item 5): job → every tray's step time over the last two
// hours as a heat map (x = time, y = the job's trays, slowest first, colour = step time over the
// median tray of that minute) → the selected tray's physical cause (StragglerCausePanel) → the
// proposed eviction through the drain dialog. Data from fleetd on demand: GetStepTimeHeatmap for
// the map, ListEvents for the tray's journal; both unary with the connection's deadline, answered
// on the GUI thread.

#include "PageContext.h"

#include "EntityId.h"
#include "StepTimeGrid.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QDialog>

#include <chrono>

class QLabel;

namespace watchfloor::widgets {
class HeatmapWidget;
class LegendWidget;
class Theme;
}  // namespace watchfloor::widgets

namespace watchfloor::ui {

class StragglerCausePanel;

class StragglerDrillDown : public QDialog {
    Q_OBJECT
public:
    static constexpr std::chrono::hours kWindow{2};
    static constexpr std::chrono::minutes kBucket{1};
    static constexpr std::chrono::seconds kReloadEvery{30};

    // `tray` invalid: select the slowest tray once the map arrives.
    StragglerDrillDown(const PageContext& context, client::EntityId job, client::EntityId tray,
                       const widgets::Theme& theme, QWidget* parent = nullptr);

    // Asks fleetd again for the map (and the selected tray's events).
    void reload();
    void selectTray(client::EntityId tray);

    widgets::HeatmapWidget* heatmap() const { return m_heatmap; }
    StragglerCausePanel* causePanel() const { return m_causes; }
    const client::StepTimeGrid& grid() const { return m_grid; }
    client::EntityId selectedTray() const { return m_tray; }
    // The trays in the map's display order (slowest first).
    QStringList displayedTrays() const;
    QLabel* summary() const { return m_summary; }

signals:
    void mapLoaded();
    void causesLoaded();

private:
    void showMap(const watchfloor::v1::StepTimeHeatmap& heatmap);
    void loadCauses();
    QString cellToolTip(int row, int column) const;
    void setRamp(float top);

    PageContext m_context;
    client::EntityId m_job;
    client::EntityId m_tray;
    const widgets::Theme& m_theme;
    QLabel* m_summary;
    widgets::HeatmapWidget* m_heatmap;
    widgets::LegendWidget* m_legend;  // under the scrolled map, so the ramp stays in view
    StragglerCausePanel* m_causes;
    client::StepTimeGrid m_grid;
    std::vector<int> m_order;     // display row -> grid row
    quint64 m_generation = 0;     // answers to an older reload are dropped
    quint64 m_causesRequest = 0;  // and to an older cause request, for another tray or the same one
};

// Opens (non-modal, deleted on close) the drill-down for `job`; `tray` as for the constructor.
StragglerDrillDown* openStragglerDrillDown(const PageContext& context, client::EntityId job, client::EntityId tray,
                                           const widgets::Theme& theme, QWidget* parent);

}  // namespace watchfloor::ui
