#include "PageId.h"

#include <algorithm>

namespace watchfloor::ui {

QString pageKey(PageId page) {
    switch (page) {
    case PageId::Fleet: return QStringLiteral("fleet");
    case PageId::Rack: return QStringLiteral("rack");
    case PageId::Cooling: return QStringLiteral("cooling");
    case PageId::Links: return QStringLiteral("links");
    case PageId::Goodput: return QStringLiteral("goodput");
    case PageId::Jobs: return QStringLiteral("jobs");
    case PageId::Events: return QStringLiteral("events");
    case PageId::Sources: return QStringLiteral("sources");
    case PageId::Audit: return QStringLiteral("audit");
    case PageId::Repairs: return QStringLiteral("repairs");
    case PageId::Incident: return QStringLiteral("incident");
    }
    return {};
}

QString pageTitle(PageId page) {
    QString key = pageKey(page);
    key[0] = key[0].toUpper();
    return key;
}

std::optional<PageId> pageFromKey(const QString& key) {
    const QString wanted = key.trimmed().toLower();
    for (PageId page : kAllPages) {
        if (pageKey(page) == wanted) return page;
    }
    return std::nullopt;
}

bool isWallPage(PageId page) { return std::find(kWallPages.begin(), kWallPages.end(), page) != kWallPages.end(); }

QStringList allPageKeys() {
    QStringList keys;
    for (PageId page : kAllPages) keys << pageKey(page);
    return keys;
}

}  // namespace watchfloor::ui
