#pragma once
// Builds the console's pages. MainWindow owns them; tests build single pages the same way.

#include "AuditPage.h"
#include "CoolingPage.h"
#include "EventsPage.h"
#include "FleetPage.h"
#include "GoodputPage.h"
#include "IncidentPage.h"
#include "JobsPage.h"
#include "LinksPage.h"
#include "RackPage.h"
#include "RepairsPage.h"
#include "SourcesPage.h"

namespace watchfloor::ui {

Page* createPage(PageId id, const PageContext& context, QWidget* parent);

}  // namespace watchfloor::ui
