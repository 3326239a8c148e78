#pragma once
// Which page the war-room wall shows next. Pure logic: MainWindow drives it from a QTimer.

#include "PageId.h"

#include <QVector>

namespace watchfloor::ui {

class WarRoomRotation {
public:
    // Pages the wall may not show (the audit trail) are left out; none left = every wall page.
    explicit WarRoomRotation(QVector<PageId> pages);

    const QVector<PageId>& pages() const { return m_pages; }
    PageId current() const { return m_pages[m_position]; }
    PageId advance();
    // Makes `page` current if it is in the rotation (an incident jump), so the rotation goes on
    // from there rather than snapping back.
    void syncTo(PageId page);

private:
    QVector<PageId> m_pages;
    qsizetype m_position = 0;
};

}  // namespace watchfloor::ui
