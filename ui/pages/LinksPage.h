#pragma once
// Links page: on top the fleet's rail links at risk, worst first, with the selected one's BER
// history and forecast (LinksAtRiskPanel); below, one rack's NVLink fabric as a GPU × link heatmap
// (worst GPUs first), and its scale-out InfiniBand ports with counters, BER, fleetd's P 6 h (▲ at
// risk), both ends of the cable and the rail, worst first. With no entity asked for it opens the
// rack of the worst link at risk.

#include "Page.h"
#include "PageContext.h"

#include "EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QHash>

#include <vector>

class QComboBox;
class QLabel;
class QTableWidget;

namespace watchfloor::client {
struct FleetChangeSet;
}
namespace watchfloor::widgets {
class HeatmapWidget;
}

namespace watchfloor::ui {

class LinksAtRiskPanel;
class PageHeader;

class LinksPage : public Page {
    Q_OBJECT
public:
    LinksPage(const PageContext& context, QWidget* parent = nullptr);

    PageId id() const override { return PageId::Links; }
    bool showEntity(const QString& name) override;
    QString entity() const override { return m_entity; }
    void setWallDisplay(bool wall) override;
    void applyTheme(const widgets::Theme& theme) override;
    bool hasContent() const override;
    void setActive(bool active) override;

    widgets::HeatmapWidget* heatmap() const { return m_heatmap; }
    int portRowCount() const;
    QString worstPortName() const;
    LinksAtRiskPanel* linksAtRisk() const { return m_atRisk; }
    // The ports table (tests read its cells).
    QTableWidget* portsTable() const { return m_ports; }
    // The heatmap's tooltip for one GPU row (in rack order) and link: state, counters, symbol BER
    // (fleetd's NVLink5 estimate for the GPU's links where it has one), PLR shares, throughput.
    QString linkTooltip(int row, int column) const;

private:
    void onStoreChanged(const client::FleetChangeSet& changes);
    void rebuildGrid();
    void refresh();
    void refreshHeatmap();
    void refreshPorts();
    void applyScale();

    client::FleetStore& m_store;
    const widgets::Theme* m_theme = nullptr;
    client::EntityId m_rack;
    QString m_entity;
    PageHeader* m_header;
    QComboBox* m_metricBox;
    widgets::HeatmapWidget* m_heatmap;
    QLabel* m_noDetail;
    QTableWidget* m_ports;
    LinksAtRiskPanel* m_atRisk;
    std::vector<client::EntityId> m_gpus;                       // heatmap rows
    std::vector<std::vector<client::EntityId>> m_links;         // [row][link id]
    QHash<quint32, const watchfloor::v1::NicPort*> m_portInfo;  // into the endpoint's topology
    bool m_dirty = true;
};

}  // namespace watchfloor::ui
