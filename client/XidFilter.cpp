#include "XidFilter.h"

#include "FleetStore.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

QString XidRow::code() const {
    return mnemonic.isEmpty() ? QString::number(xid) : QStringLiteral("%1 %2").arg(xid).arg(mnemonic);
}

std::vector<XidRow> selectXids(const FleetStore& store, const XidFilter& filter) {
    std::vector<XidRow> rows;
    if (!filter.scope.isValid() || filter.limit <= 0) return rows;
    const std::deque<StoredEvent>& events = store.eventLog().events();
    for (auto it = events.rbegin(); it != events.rend() && int(rows.size()) < filter.limit; ++it) {
        const v1::Event& e = it->event;
        if (e.type() != v1::EVENT_TYPE_XID) continue;
        const EntityId entity = store.eventEntity(*it);
        if (!store.isWithin(entity, filter.scope)) continue;
        rows.push_back(XidRow{it->serial, entity, e.time_unix_ms(), e.xid().xid(),
                              QString::fromStdString(e.xid().mnemonic()), e.xid().recommended_action(), e.xid().fatal(),
                              QString::fromStdString(e.xid().fleet_policy()), QString::fromStdString(e.message())});
    }
    return rows;
}

}  // namespace watchfloor::client
