#pragma once
// Rewind: the fleet as it was at a past moment, in a FleetStore of its own, so every page and
// model that reads a FleetStore can show the past while the live store keeps ingesting the stream
// untouched underneath (going back to live is switching stores, not refetching).
//
// moveTo(T) asks every endpoint's fleetd for GetStateAsOf(T) (asynchronous, with the connection's
// unary deadline; answers land on the GUI thread) and turns each answer into a Snapshot for the
// past store: the live topology, the states, readings, incidents, events and fleet numbers as of
// T, server time T (so freshness is judged at T). Building it into the store's EndpointFleet runs
// on the store's worker thread, as for a live snapshot. An answer overtaken by a newer moveTo()
// is dropped.

#include "FleetStore.h"
#include "RpcOutcome.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QVector>

namespace watchfloor::client {

class EndpointConnection;

class PastFleet : public QObject {
    Q_OBJECT
public:
    // `connections` indexed like the live store's endpoints; null = that endpoint has no past.
    PastFleet(const FleetStore& live, QVector<QPointer<EndpointConnection>> connections, QObject* parent = nullptr);

    FleetStore& store() { return m_past; }
    const FleetStore& store() const { return m_past; }

    // Fetches the fleet as of `asOfUnixMs` (fleet time). A moment before an endpoint's retained
    // window is answered for its earliest moment (the slider's left end).
    void moveTo(std::int64_t asOfUnixMs);
    // The moment asked for last, and the one the newest answer is for (0 before any).
    std::int64_t requestedMs() const { return m_requestedMs; }
    std::int64_t shownMs() const { return m_shownMs; }
    // The earliest moment every answering endpoint can rewind to (the latest of their earliests);
    // 0 before any answer.
    std::int64_t earliestMs() const { return m_earliestMs; }
    bool isFetching() const { return m_pending > 0; }

    // An answer as the past store's snapshot (exposed for tests).
    static watchfloor::v1::SubscribeResponse snapshotOf(watchfloor::v1::AsOfState&& state,
                                                        const watchfloor::v1::Topology& topology);

signals:
    // Every endpoint answered (or failed) for the moment asked last; `problems` lists the failures.
    void moved(std::int64_t shownMs, const QStringList& problems);

private:
    void ensureEndpoints();
    void onAnswer(quint64 generation, int endpoint, RpcOutcome<watchfloor::v1::AsOfState>&& outcome);

    const FleetStore& m_live;
    QVector<QPointer<EndpointConnection>> m_connections;
    FleetStore m_past;
    quint64 m_generation = 0;
    quint64 m_eventsClearedFor = 0;
    int m_pending = 0;
    std::int64_t m_requestedMs = 0;
    std::int64_t m_shownMs = 0;
    std::int64_t m_earliestMs = 0;
    QStringList m_problems;
};

}  // namespace watchfloor::client
