#pragma once
// Where an entity is shown, and how it sits in the fleet tree: the page that opens for each kind
// of entity, the breadcrumb trail above a page, and the Ctrl+K search over the store's names.

#include "BreadcrumbBar.h"
#include "JumpBox.h"
#include "NavigationHistory.h"

#include "EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

namespace watchfloor::client {
class FleetStore;
}

namespace watchfloor::ui {

// Rack hardware opens the Rack page, loops the Cooling page, links the Links page, jobs the Jobs
// page, regions and the fleet the Fleet page.
PageId pageForKind(watchfloor::v1::EntityKind kind);
Location locationFor(const client::FleetStore& store, client::EntityId id);

// Fleet › region › rack › node › GPU … for the entity, each crumb opening its own page.
QVector<Breadcrumb> breadcrumbsFor(const client::FleetStore& store, PageId page, const QString& entityName);

QVector<JumpTarget> searchJumpTargets(const client::FleetStore& store, const QString& text, int limit);

}  // namespace watchfloor::ui
