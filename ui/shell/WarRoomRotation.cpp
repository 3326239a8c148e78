#include "WarRoomRotation.h"

namespace watchfloor::ui {

WarRoomRotation::WarRoomRotation(QVector<PageId> pages) : m_pages(std::move(pages)) {
    m_pages.removeIf([](PageId page) { return !isWallPage(page); });
    if (m_pages.isEmpty()) m_pages = QVector<PageId>(kWallPages.begin(), kWallPages.end());
}

PageId WarRoomRotation::advance() {
    m_position = (m_position + 1) % m_pages.size();
    return current();
}

void WarRoomRotation::syncTo(PageId page) {
    const qsizetype found = m_pages.indexOf(page);
    if (found >= 0) m_position = found;
}

}  // namespace watchfloor::ui
