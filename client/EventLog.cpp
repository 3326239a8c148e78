#include "EventLog.h"

namespace watchfloor::client {

int EventLog::trim() {
    int trimmed = 0;
    while (int(m_events.size()) > m_capacity) {
        m_events.pop_front();
        ++trimmed;
    }
    return trimmed;
}

int EventLog::clear() {
    const int dropped = int(m_events.size());
    m_events.clear();
    return dropped;
}

const StoredEvent* EventLog::bySerial(quint64 serial) const {
    if (m_events.empty() || serial < m_events.front().serial || serial > m_events.back().serial) return nullptr;
    return &m_events[std::size_t(serial - m_events.front().serial)];
}

std::size_t EventLog::bytes() const {
    std::size_t total = 0;
    for (const StoredEvent& e : m_events) total += sizeof(StoredEvent) + std::size_t(e.event.SpaceUsedLong());
    return total;
}

}  // namespace watchfloor::client
