#pragma once
// Browser-style back/forward over the places an operator visited (page + selected entity).

#include "PageId.h"

#include <QMetaType>
#include <QString>
#include <QVector>

namespace watchfloor::ui {

struct Location {
    PageId page = PageId::Fleet;
    QString entity;  // entity name; empty = the page's most telling entity

    friend bool operator==(const Location&, const Location&) = default;
};

class NavigationHistory {
public:
    explicit NavigationHistory(int capacity = 100);

    // Records a new place. Drops the forward trail, as a browser does; a repeat of the current
    // place is not recorded twice.
    void visit(const Location& location);
    bool canGoBack() const { return m_current > 0; }
    bool canGoForward() const { return m_current + 1 < m_trail.size(); }
    // Both return the place moved to; calling them when not possible leaves the history as is.
    Location back();
    Location forward();
    bool isEmpty() const { return m_trail.isEmpty(); }
    Location current() const;
    int size() const { return int(m_trail.size()); }

private:
    QVector<Location> m_trail;
    qsizetype m_current = -1;
    int m_capacity;
};

}  // namespace watchfloor::ui

Q_DECLARE_METATYPE(watchfloor::ui::Location)
