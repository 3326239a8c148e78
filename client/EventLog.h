#pragma once
// The console's events, merged over every endpoint, oldest first and bounded: each stored event
// gets the next fleet-wide serial, so a model can address it (and notice it was trimmed) without
// holding a pointer. What is new for an endpoint (a resync snapshot repeats recent events) is the
// caller's to decide (EndpointFleet::acceptEvent); this part only numbers, keeps and trims.

#include "watchfloor/v1/fleet.pb.h"

#include <QtGlobal>

#include <cstddef>
#include <deque>

namespace watchfloor::client {

// One event with where it came from. `serial` increases by one per stored event, fleet-wide.
struct StoredEvent {
    quint64 serial = 0;
    int endpoint = 0;
    watchfloor::v1::Event event;
};

class EventLog {
public:
    explicit EventLog(int capacity) : m_capacity(capacity) {}

    // How many events one call added, and how many of the oldest it dropped to keep the bound.
    struct Appended {
        int added = 0;
        int trimmed = 0;
    };
    // Stores the events of `endpoint` that `accept(event)` lets through, in order.
    template <typename Accept>
    Appended append(int endpoint, const google::protobuf::RepeatedPtrField<watchfloor::v1::Event>& events,
                    Accept&& accept) {
        Appended out;
        for (const watchfloor::v1::Event& event : events) {
            if (!accept(event)) continue;
            m_events.push_back(StoredEvent{m_nextSerial++, endpoint, event});
            ++out.added;
        }
        out.trimmed = trim();
        return out;
    }
    // Forgets every event; returns how many there were. Serials go on (a model must not mistake
    // the next event for one it already showed).
    int clear();

    int size() const { return int(m_events.size()); }
    quint64 firstSerial() const { return m_events.empty() ? m_nextSerial : m_events.front().serial; }
    quint64 nextSerial() const { return m_nextSerial; }
    // nullptr when `serial` was trimmed or is not stored yet.
    const StoredEvent* bySerial(quint64 serial) const;
    // Oldest first.
    const std::deque<StoredEvent>& events() const { return m_events; }
    std::size_t bytes() const;

private:
    int trim();

    int m_capacity;
    std::deque<StoredEvent> m_events;
    quint64 m_nextSerial = 1;
};

}  // namespace watchfloor::client
