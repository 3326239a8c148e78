#include "EntityNavigation.h"

#include "FleetFormat.h"

#include "FleetStore.h"

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

PageId pageForKind(v1::EntityKind kind) {
    switch (kind) {
    case v1::ENTITY_KIND_RACK:
    case v1::ENTITY_KIND_NODE:
    case v1::ENTITY_KIND_GPU:
    case v1::ENTITY_KIND_CPU:
    case v1::ENTITY_KIND_NVSWITCH_TRAY:
    case v1::ENTITY_KIND_POWER_SHELF: return PageId::Rack;
    case v1::ENTITY_KIND_COOLING_LOOP: return PageId::Cooling;
    case v1::ENTITY_KIND_NVLINK:
    case v1::ENTITY_KIND_NIC_PORT: return PageId::Links;
    case v1::ENTITY_KIND_JOB: return PageId::Jobs;
    default: break;
    }
    return PageId::Fleet;
}

Location locationFor(const client::FleetStore& store, client::EntityId id) {
    const v1::EntityKind kind = store.kind(id);
    if (kind == v1::ENTITY_KIND_FLEET) return {PageId::Fleet, {}};
    return {pageForKind(kind), store.name(id)};
}

QVector<Breadcrumb> breadcrumbsFor(const client::FleetStore& store, PageId page, const QString& entityName) {
    QVector<Breadcrumb> crumbs;
    client::EntityId id = entityName.isEmpty() ? client::EntityId{} : store.findByName(entityName);
    while (id.isValid()) {
        const v1::EntityKind kind = store.kind(id);
        if (kind == v1::ENTITY_KIND_FLEET) break;
        crumbs.prepend({store.name(id), locationFor(store, id)});
        id = store.parent(id);
    }
    crumbs.prepend({QStringLiteral("Fleet"), {PageId::Fleet, {}}});
    // On a page other than the entity's own (the Cooling page of a rack), say which page it is.
    if (page != crumbs.last().target.page) crumbs.append({pageTitle(page), {page, entityName}});
    return crumbs;
}

QVector<JumpTarget> searchJumpTargets(const client::FleetStore& store, const QString& text, int limit) {
    QVector<JumpTarget> targets;
    for (client::EntityId id : store.search(text, limit)) {
        const v1::EntityKind kind = store.kind(id);
        QStringList context;
        for (client::EntityId up = store.parent(id); up.isValid(); up = store.parent(up)) {
            if (store.kind(up) == v1::ENTITY_KIND_FLEET) break;
            context << store.name(up);
        }
        if (store.endpointCount() > 1) context << store.endpointLabel(id.endpoint);
        targets.append({store.name(id), kindLabel(kind), context.join(QStringLiteral(" · ")), locationFor(store, id)});
    }
    return targets;
}

}  // namespace watchfloor::ui
