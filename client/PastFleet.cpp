#include "PastFleet.h"

#include "EndpointConnection.h"

#include <algorithm>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

PastFleet::PastFleet(const FleetStore& live, QVector<QPointer<EndpointConnection>> connections, QObject* parent)
    : QObject(parent), m_live(live), m_connections(std::move(connections)) {}

void PastFleet::ensureEndpoints() {
    while (m_past.endpointCount() < m_live.endpointCount()) {
        const int e = m_past.endpointCount();
        m_past.addEndpoint(m_live.endpointLabel(e), EndpointIdentity{m_live.endpointLabel(e), m_live.endpointTarget(e),
                                                                     m_live.endpointFleetName(e)});
    }
}

v1::SubscribeResponse PastFleet::snapshotOf(v1::AsOfState&& state, const v1::Topology& topology) {
    v1::SubscribeResponse message;
    v1::Snapshot* snap = message.mutable_snapshot();
    snap->set_api_version(v1::API_VERSION_1);
    // A run id of its own per moment: event ids of an earlier moment must not hide this one's
    // events as "already seen", as they would within one live run.
    snap->set_run_id("past:" + std::to_string(state.as_of_unix_ms()) + ":" + state.run_id());
    snap->set_server_time_unix_ms(state.as_of_unix_ms());
    snap->set_reason("as of");
    snap->set_sim_speed(1);
    *snap->mutable_topology() = topology;
    snap->mutable_samples()->Swap(state.mutable_samples());
    snap->mutable_states()->Swap(state.mutable_states());
    snap->mutable_incidents()->Swap(state.mutable_incidents());
    snap->mutable_recent_events()->Swap(state.mutable_recent_events());
    snap->mutable_fleet()->Swap(state.mutable_fleet());
    return message;
}

void PastFleet::moveTo(std::int64_t asOfUnixMs) {
    ensureEndpoints();
    const quint64 generation = ++m_generation;
    m_requestedMs = asOfUnixMs;
    m_pending = 0;
    m_problems.clear();
    for (int e = 0; e < m_live.endpointCount(); ++e) {
        EndpointConnection* connection = e < m_connections.size() ? m_connections[e].data() : nullptr;
        if (!connection || !m_live.endpointFleet(e).hasSnapshot()) {
            m_problems
                << QStringLiteral("%1: no past (no connection or no data yet)").arg(m_live.endpointDisplayName(e));
            continue;
        }
        v1::AsOfRequest request;
        request.set_as_of_unix_ms(asOfUnixMs);
        request.set_earliest_if_before(true);
        ++m_pending;
        connection->getStateAsOf(request, this, [this, generation, e](RpcOutcome<v1::AsOfState> outcome) {
            onAnswer(generation, e, std::move(outcome));
        });
    }
    if (m_pending == 0) emit moved(m_shownMs, m_problems);
}

void PastFleet::onAnswer(quint64 generation, int endpoint, RpcOutcome<v1::AsOfState>&& outcome) {
    if (generation != m_generation) return;  // overtaken by a newer moment
    if (outcome.ok()) {
        v1::AsOfState& state = outcome.value();
        m_shownMs = state.as_of_unix_ms();
        m_earliestMs = std::max(m_earliestMs == 0 ? state.earliest_unix_ms() : m_earliestMs, state.earliest_unix_ms());
        const auto& topology = m_live.endpointFleet(endpoint).topology().sharedTopology();
        if (m_eventsClearedFor != generation) {  // the first answer for this moment: forget the last moment's events
            m_past.clearEvents();
            m_eventsClearedFor = generation;
        }
        std::vector<v1::SubscribeResponse> messages;
        messages.push_back(snapshotOf(std::move(state), *topology));
        m_past.enqueue(endpoint, std::move(messages));
        m_past.setEndpointState(endpoint, ConnectionState::Live, QStringLiteral("as of"));
    } else {
        m_problems << QStringLiteral("%1: %2").arg(m_live.endpointDisplayName(endpoint), outcome.error());
        m_past.setEndpointState(endpoint, ConnectionState::Stale, outcome.error());
    }
    if (--m_pending == 0) emit moved(m_shownMs, m_problems);
}

}  // namespace watchfloor::client
