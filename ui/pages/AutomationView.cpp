#include "AutomationView.h"

#include "FleetFormat.h"

#include "FleetStore.h"

#include <algorithm>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

namespace {

QString nodeStateWord(v1::NodeState state) {
    switch (state) {
    case v1::NODE_STATE_DRAINING: return QStringLiteral("draining");
    case v1::NODE_STATE_DRAINED: return QStringLiteral("drained");
    case v1::NODE_STATE_DOWN: return QStringLiteral("down");
    default: return QStringLiteral("out of service");
    }
}

int ownerRank(v1::DrainOwnerKind kind) {
    switch (kind) {
    case v1::DRAIN_OWNER_KIND_OPERATOR: return 0;
    case v1::DRAIN_OWNER_KIND_AUTOMATION: return 1;
    case v1::DRAIN_OWNER_KIND_HEALTH_CHECK: return 2;
    default: return 3;
    }
}

// "max(1, floor(0.5 % × 126)) = 1 binds" or "5 per 10 min"
QString limitText(const v1::AutomationStatus& a) {
    const QString window = formatDuration(double(a.window_s()));
    QString text = QStringLiteral("%1 of %2 per %3").arg(a.actions_in_window()).arg(a.effective_limit()).arg(window);
    if (a.max_fleet_ratio() > 0) {
        const bool shareBinds = a.effective_limit() < a.max_actions_per_window();
        text += QStringLiteral(" (%1 of %2 trays = %3%4)")
                    .arg(formatRatioPercent(a.max_fleet_ratio(), 2))
                    .arg(a.fleet_trays())
                    .arg(a.effective_limit())
                    .arg(shareBinds ? QStringLiteral(", below %1: the share binds").arg(a.max_actions_per_window())
                                    : QStringLiteral("; %1 binds").arg(a.max_actions_per_window()));
    }
    return text;
}

}  // namespace

QString drainOwnerText(const v1::DrainOwner& owner) {
    switch (owner.kind()) {
    case v1::DRAIN_OWNER_KIND_OPERATOR:
        return owner.principal().empty() ? QStringLiteral("by a person outside fleetd")
                                         : QStringLiteral("by %1").arg(QString::fromStdString(owner.principal()));
    case v1::DRAIN_OWNER_KIND_AUTOMATION: return QStringLiteral("by automation");
    case v1::DRAIN_OWNER_KIND_HEALTH_CHECK: return QStringLiteral("held by the health check");
    default: return QStringLiteral("owner unknown");
    }
}

std::vector<DrainRow> drainRows(const client::FleetStore& store) {
    std::vector<DrainRow> rows;
    for (int e = 0; e < store.endpointCount(); ++e) {
        const client::EndpointFleet& fleet = store.endpointFleet(e);
        for (const auto& [node, owner] : fleet.drainOwners()) {
            const client::EntityId id{quint16(e), node};
            const QString name = store.name(id);
            const client::EntityStatus status = fleet.status(node);
            const std::string_view reason = fleet.statusReason(node);
            DrainRow row;
            row.trayId = id;
            row.tray = name;
            row.kind = owner.kind();
            const bool held = owner.kind() == v1::DRAIN_OWNER_KIND_HEALTH_CHECK;
            row.text = QStringLiteral("%1 · %2%3%4")
                           .arg(name, nodeStateWord(status.nodeState),
                                held ? QStringLiteral(", ") : QStringLiteral(" "), drainOwnerText(owner));
            // The stored reason repeats the owner's principal ("alice: fan noise"): said once.
            QString why = QString::fromUtf8(reason.data(), qsizetype(reason.size()));
            const QString prefix = QString::fromStdString(owner.principal()) + QStringLiteral(": ");
            if (!owner.principal().empty() && why.startsWith(prefix)) why = why.mid(prefix.size());
            if (!why.isEmpty()) row.text += QStringLiteral(": ") + why;
            rows.push_back(std::move(row));
        }
    }
    std::sort(rows.begin(), rows.end(), [](const DrainRow& a, const DrainRow& b) {
        return ownerRank(a.kind) != ownerRank(b.kind) ? ownerRank(a.kind) < ownerRank(b.kind) : a.tray < b.tray;
    });
    return rows;
}

BreakerCard breakerCard(const client::FleetStore& store) {
    BreakerCard card;
    QStringList details, tips;
    int tripped = 0, reporting = 0;
    for (int e = 0; e < store.endpointCount(); ++e) {
        const v1::AutomationStatus* a = store.endpointFleet(e).automation();
        if (!a) continue;
        card.any = true;
        if (a->state() == v1::BREAKER_STATE_UNSPECIFIED) continue;  // this fleetd takes actions but runs no automation
        ++reporting;
        const QString prefix =
            store.endpointCount() > 1 ? store.endpointDisplayName(e) + QStringLiteral(": ") : QString();
        QString detail = prefix + limitText(*a);
        if (a->state() == v1::BREAKER_STATE_TRIPPED) {
            ++tripped;
            detail = prefix + QStringLiteral("tripped %1 UTC · an admin resets it")
                                  .arg(a->tripped_unix_ms() > 0 ? formatUnixMs(a->tripped_unix_ms())
                                                                : QStringLiteral("before the restart"));
            tips << prefix + QString::fromStdString(a->trip_reason());
        }
        if (!a->last_reset_by().empty())
            detail += QStringLiteral(" · reset by %1 at %2 UTC")
                          .arg(QString::fromStdString(a->last_reset_by()), formatUnixMs(a->last_reset_unix_ms()));
        details << detail;
    }
    card.tripped = tripped > 0;
    if (reporting == 0) {
        card.value = QStringLiteral("off");
        card.detail =
            card.any ? QStringLiteral("no automatic draining (--auto-drain)") : QStringLiteral("operator actions off");
    } else {
        card.value = tripped > 0 ? QStringLiteral("TRIPPED") : QStringLiteral("closed");
        if (reporting > 1 && tripped > 0) card.value += QStringLiteral(" (%1 of %2)").arg(tripped).arg(reporting);
        card.detail = details.join(QStringLiteral(" · "));
    }
    tips.prepend(
        QStringLiteral("Automatic draining stops past the limit of distinct trays per window (the lower of "
                       "the count and the share of the fleet); it never resets itself."));
    card.toolTip = tips.join(QStringLiteral("\n"));
    return card;
}

}  // namespace watchfloor::ui
