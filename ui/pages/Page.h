#pragma once
// One page of the console (Fleet, Rack, Cooling, ...). A page shows one entity at a time (a rack,
// a job, a link) or the whole fleet, and asks the main window to navigate elsewhere.

#include "NavigationHistory.h"
#include "PageId.h"

#include <QWidget>

namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class Page : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    virtual PageId id() const = 0;
    // Shows `name` (a rack, node, GPU, link, job, ... as fits the page). Empty: the page's most
    // telling entity (the worst rack, the worst link, the biggest job). Returns false when the
    // page cannot show that entity; the page then keeps what it showed.
    virtual bool showEntity(const QString& name) = 0;
    // The entity shown now (empty for fleet-wide pages).
    virtual QString entity() const { return {}; }
    // War room: read-only and large type; a page hides its filters, editors and export buttons.
    virtual void setWallDisplay(bool wall) { m_wallDisplay = wall; }
    bool isWallDisplay() const { return m_wallDisplay; }
    virtual void applyTheme(const widgets::Theme& theme) = 0;
    // Whether the page has live data for what it shows (the screenshot mode waits for this).
    virtual bool hasContent() const = 0;
    // Only the visible page refreshes expensive parts (charts); hidden pages catch up on show.
    virtual void setActive(bool active) { m_active = active; }
    bool isActive() const { return m_active; }

signals:
    void navigationRequested(const watchfloor::ui::Location& location);
    // The shown entity changed from inside the page (a click, a default pick).
    void entityShown(const QString& name);

private:
    bool m_wallDisplay = false;
    bool m_active = false;
};

}  // namespace watchfloor::ui
