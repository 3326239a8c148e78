#include "RewindView.h"

#include "FleetPage.h"
#include "PageContext.h"
#include "RackPage.h"

#include <QStackedWidget>
#include <QVBoxLayout>

namespace watchfloor::ui {

RewindView::RewindView(client::FleetStore& past, QWidget* parent) : QWidget(parent), m_stack(new QStackedWidget(this)) {
    setObjectName(QStringLiteral("rewindView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    PageContext context;
    context.store = &past;
    m_fleet = new FleetPage(context, m_stack);
    m_rack = new RackPage(context, m_stack);
    for (Page* page : {static_cast<Page*>(m_fleet), static_cast<Page*>(m_rack)}) {
        m_stack->addWidget(page);
        connect(page, &Page::navigationRequested, this, &RewindView::onNavigation);
    }
}

Page* RewindView::current() const { return qobject_cast<Page*>(m_stack->currentWidget()); }

void RewindView::show(const Location& location) {
    Page* target = location.page == PageId::Rack ? static_cast<Page*>(m_rack) : static_cast<Page*>(m_fleet);
    if (current() != target) {
        current()->setActive(false);
        m_stack->setCurrentWidget(target);
    }
    target->setActive(isVisible());
    target->showEntity(location.page == target->id() ? location.entity : QString());
}

Location RewindView::location() const { return {current()->id(), current()->entity()}; }

void RewindView::setActive(bool active) { current()->setActive(active); }

void RewindView::applyTheme(const widgets::Theme& theme) {
    m_fleet->applyTheme(theme);
    m_rack->applyTheme(theme);
}

void RewindView::onNavigation(const Location& location) {
    if (location.page == PageId::Fleet || location.page == PageId::Rack)
        show(location);
    else
        emit leaveRequested(location);
}

}  // namespace watchfloor::ui
