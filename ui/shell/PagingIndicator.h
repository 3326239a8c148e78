#pragma once
// The status bar's word on paging (fleetd --alertmanager): "Paging: delivered", or, in the
// critical colour, "Paging: not delivered since 12:04 — connection refused by …" — the operator
// must know when incidents stop reaching the on-call. Hidden while no endpoint pages anywhere.
// With several endpoints the worst one speaks; the tooltip has every endpoint's status.

#include <QLabel>

namespace watchfloor::v1 {
class PagingStatus;
}
namespace watchfloor::client {
class FleetStore;
}
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

// One line for one endpoint's pager (times are wall-clock, shown as UTC).
QString pagingHeadline(const watchfloor::v1::PagingStatus& status);

class PagingIndicator : public QLabel {
    Q_OBJECT
public:
    explicit PagingIndicator(QWidget* parent = nullptr);
    void refresh(const client::FleetStore& store, const widgets::Theme& theme);
};

}  // namespace watchfloor::ui
