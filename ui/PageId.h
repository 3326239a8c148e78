#pragma once
// The console's pages, and their command-line/settings spelling ("fleet", "rack", ...).

#include <QString>
#include <QStringList>

#include <array>
#include <optional>

namespace watchfloor::ui {

enum class PageId { Fleet, Rack, Cooling, Links, Goodput, Jobs, Events, Audit };

inline constexpr std::array<PageId, 8> kAllPages{PageId::Fleet,   PageId::Rack, PageId::Cooling,
                                                 PageId::Links,   PageId::Goodput, PageId::Jobs,
                                                 PageId::Events,  PageId::Audit};
// What the war-room wall may show: everything but the audit trail (it names people and their
// reasons, and is not for a room's big screen).
inline constexpr std::array<PageId, 7> kWallPages{PageId::Fleet,   PageId::Rack, PageId::Cooling,
                                                  PageId::Links,   PageId::Goodput, PageId::Jobs,
                                                  PageId::Events};
bool isWallPage(PageId page);

QString pageKey(PageId page);     // "fleet"
QString pageTitle(PageId page);   // "Fleet"
std::optional<PageId> pageFromKey(const QString& key);  // case-insensitive
QStringList allPageKeys();

}  // namespace watchfloor::ui
