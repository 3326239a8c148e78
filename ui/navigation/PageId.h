#pragma once
// The console's pages, and their command-line/settings spelling ("fleet", "rack", ...).

#include <QString>
#include <QStringList>

#include <array>
#include <optional>

namespace watchfloor::ui {

enum class PageId { Fleet, Rack, Cooling, Links, Goodput, Jobs, Events, Sources, Audit, Repairs, Incident };

// The Incident page (one incident: its timeline, blast radius and annotated charts) opens from the
// Alerts dock; it is last, so Ctrl+1..9 keep their pages. Repairs (the repair cases) follows the
// nine Ctrl+ pages: it came later, and a number would move the keys operators know.
inline constexpr std::array<PageId, 11> kAllPages{PageId::Fleet,   PageId::Rack,    PageId::Cooling, PageId::Links,
                                                  PageId::Goodput, PageId::Jobs,    PageId::Events,  PageId::Sources,
                                                  PageId::Audit,   PageId::Repairs, PageId::Incident};
// What the war-room wall rotates through: not the audit trail (it names people and their
// reasons, and is not for a room's big screen), nor the Sources page (a technician's table; the
// wall shows a silent source on the map, the KPI strip and the banner), nor Repairs (a work list
// with the buttons that take the next step).
inline constexpr std::array<PageId, 7> kWallPages{PageId::Fleet,   PageId::Rack, PageId::Cooling, PageId::Links,
                                                  PageId::Goodput, PageId::Jobs, PageId::Events};
bool isWallPage(PageId page);

QString pageKey(PageId page);                           // "fleet"
QString pageTitle(PageId page);                         // "Fleet"
std::optional<PageId> pageFromKey(const QString& key);  // case-insensitive
QStringList allPageKeys();

}  // namespace watchfloor::ui
