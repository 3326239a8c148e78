#pragma once
// Every exporter fleetd scrapes itself (--source scrape), one row per tray and exporter, over all
// endpoints: host, exporter, health (up, down, frozen), since when, the age of its last usable
// answer, the scrape's duration, series, lines the parser refused, the URL and the last error.
// Rows stay in topology order (endpoint, tray); a view sorts on SortRole (the State column sorts
// worst first). FreshnessRole is Silent for a target that is not up, so the console's delegate
// draws it like the silent tray on the map; EntityIdRole is the tray, so a row opens its rack.

#include "EntityId.h"
#include "FleetChangeSet.h"

#include <QAbstractTableModel>

#include <vector>

namespace watchfloor::v1 {
class ScrapeTarget;
}

namespace watchfloor::client {

class FleetStore;

class ScrapeTargetModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        Endpoint,
        Host,
        Exporter,
        State,
        Since,
        LastSuccess,
        Duration,
        Series,
        Rejected,
        Url,
        LastError,
        ColumnCount
    };

    explicit ScrapeTargetModel(const FleetStore& store, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    struct Counts {
        int targets = 0, up = 0, down = 0, frozen = 0, unscraped = 0;
    };
    Counts counts() const;
    // The target of a row; nullptr once it is gone (until the next refresh).
    const watchfloor::v1::ScrapeTarget* target(int row) const;

private:
    struct Row {
        int endpoint = 0;
        std::uint32_t node = 0;
        int target = 0;
        bool operator==(const Row&) const = default;
    };
    std::vector<Row> currentRows() const;
    void refresh(const FleetChangeSet& changes);

    const FleetStore& m_store;
    std::vector<Row> m_rows;
};

}  // namespace watchfloor::client
