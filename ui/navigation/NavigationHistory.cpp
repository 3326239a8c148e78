#include "NavigationHistory.h"

#include <algorithm>

namespace watchfloor::ui {

NavigationHistory::NavigationHistory(int capacity) : m_capacity(std::max(2, capacity)) {}

void NavigationHistory::visit(const Location& location) {
    if (!m_trail.isEmpty() && m_trail[m_current] == location) return;
    m_trail.resize(m_current + 1);
    m_trail.append(location);
    if (m_trail.size() > m_capacity) m_trail.removeFirst();
    m_current = m_trail.size() - 1;
}

Location NavigationHistory::back() {
    if (canGoBack()) --m_current;
    return current();
}

Location NavigationHistory::forward() {
    if (canGoForward()) ++m_current;
    return current();
}

Location NavigationHistory::current() const { return m_trail.isEmpty() ? Location{} : m_trail[m_current]; }

}  // namespace watchfloor::ui
