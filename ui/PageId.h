#pragma once
// The console's pages, and their command-line/settings spelling ("fleet", "rack", ...).

#include <QString>
#include <QStringList>

#include <array>
#include <optional>

namespace watchfloor::ui {

enum class PageId { Fleet, Rack, Cooling, Links, Goodput, Jobs, Events };

inline constexpr std::array<PageId, 7> kAllPages{PageId::Fleet,   PageId::Rack, PageId::Cooling,
                                                 PageId::Links,   PageId::Goodput, PageId::Jobs,
                                                 PageId::Events};

QString pageKey(PageId page);     // "fleet"
QString pageTitle(PageId page);   // "Fleet"
std::optional<PageId> pageFromKey(const QString& key);  // case-insensitive
QStringList allPageKeys();

}  // namespace watchfloor::ui
