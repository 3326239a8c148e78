#pragma once
// The status bar's word on fleetd's telemetry sources: "● Sources: 2 up", or "● Sources: 1 of 2
// down" in the warning or critical colour, with the whole story in the tooltip. Hidden while no
// endpoint reads external sources (the digital twin). Clicking it asks for the Sources dock.

#include <QToolButton>

namespace watchfloor::client {
class FleetStore;
}
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class SourcesIndicator : public QToolButton {
    Q_OBJECT
public:
    explicit SourcesIndicator(QWidget* parent = nullptr);
    void refresh(const client::FleetStore& store, const widgets::Theme& theme);
};

}  // namespace watchfloor::ui
