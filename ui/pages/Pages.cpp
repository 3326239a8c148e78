#include "Pages.h"

namespace watchfloor::ui {

Page* createPage(PageId id, const PageContext& context, QWidget* parent) {
    switch (id) {
    case PageId::Fleet: return new FleetPage(context, parent);
    case PageId::Rack: return new RackPage(context, parent);
    case PageId::Cooling: return new CoolingPage(context, parent);
    case PageId::Links: return new LinksPage(context, parent);
    case PageId::Goodput: return new GoodputPage(context, parent);
    case PageId::Jobs: return new JobsPage(context, parent);
    case PageId::Events: return new EventsPage(context, parent);
    case PageId::Sources: return new SourcesPage(context, parent);
    case PageId::Audit: return new AuditPage(context, parent);
    case PageId::Repairs: return new RepairsPage(context, parent);
    case PageId::Incident: return new IncidentPage(context, parent);
    }
    return new FleetPage(context, parent);
}

}  // namespace watchfloor::ui
