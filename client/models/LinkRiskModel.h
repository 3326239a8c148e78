#pragma once
// The Links page's "Links at risk" table: fleetd's listed rail links over every endpoint
// (client/LinksAtRisk.h linkRiskRows), at risk first, then by P(Error or down within 6 h). The
// links that are only elevated (above Normal, not at risk, not on the ladder: the fleet's quiet
// majority) come after the rest and are left out until setElevatedShown(true); shown, they carry
// MinorRole (drawn dim) so the links that need a decision stand out. Columns: the link, its verdict, its stage on the
// ladder (the reason as tooltip), both ends' BER, P 1 h / 6 h / 24 h, the time to the Error line with its interval, the
// top influencer, the jobs on its tray and the GPU-hours at stake. EntityIdRole is the NIC port (a row opens its rack's
// links), SortRole sorts probabilities, hours and GPU-hours as numbers. Rebuilt when link health changes; the
// checkpoint's "in 25 min" follows the fleet clock.

#include "FleetChangeSet.h"
#include "LinksAtRisk.h"

#include <QAbstractTableModel>

#include <vector>

namespace watchfloor::client {

class FleetStore;

class LinkRiskModel : public QAbstractTableModel {
    Q_OBJECT

public:
    // The stage third, as one word (its reason as the tooltip and under the table): at the end, a
    // wall at 1920 px wide never showed it without scrolling.
    enum Column { Link, Verdict, Stage, Ber, P1h, P6h, P24h, Eta, Influencer, Jobs, AtStake, ColumnCount };

    explicit LinkRiskModel(const FleetStore& store, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    const LinkRiskRow* linkAt(int row) const;
    // The row of a NIC port, or -1 (also for an elevated link left out).
    int rowOf(EntityId port) const;
    void refresh();

    // Not at risk, not on the ladder past watch, and its verdict no worse than elevated (a link
    // above Warning, or saturated, stays with the links that need a look).
    static bool elevatedOnly(const watchfloor::v1::LinkHealth& link);
    // How many listed links are elevated only, shown or not.
    int elevatedCount() const { return int(m_rows.size()) - m_pressing; }
    bool elevatedShown() const { return m_elevatedShown; }
    void setElevatedShown(bool shown);
    // Whether fleetd lists the port at all (an elevated link left out included).
    bool lists(EntityId port) const;

private:
    const FleetStore& m_store;
    std::vector<LinkRiskRow> m_rows;  // the pressing links, worst first, then the elevated ones
    int m_pressing = 0;
    bool m_elevatedShown = false;
};

}  // namespace watchfloor::client
