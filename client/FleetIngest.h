#pragma once
// How a stream's messages reach the store without the GUI thread doing O(fleet) work: a snapshot
// (at 1,800 racks: topology index, name index, every value column, first history capture —
// hundreds of ms) is built into a new EndpointFleet on one worker thread and handed back to be
// swapped in; the endpoint's later messages wait in its inbox meanwhile, and are then handed out in
// slices of at most `applySlice` per event-loop turn. Replaced fleets are destroyed on the worker
// too. The synchronous path (apply(): recorded streams, tests) builds the same way, inline.
//
// This part owns the queues and the worker; what a message does to the fleet is its Sink's
// (FleetStore): adopt a prepared snapshot, apply a delta or heartbeat. Lives on the GUI thread;
// the sink is called only there.

#include "EndpointFleet.h"
#include "QueuedCalls.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace watchfloor::client {

// A snapshot built into a new EndpointFleet, ready to be swapped in.
struct PreparedSnapshot {
    std::unique_ptr<EndpointFleet> fleet;  // null if the snapshot was unusable (see error)
    google::protobuf::RepeatedPtrField<watchfloor::v1::Event> recentEvents;
    QString error;
};

// Everything building a snapshot needs, copied so the worker can use it.
struct SnapshotInputs {
    QString label;
    int historyPoints = 0;
    quint16 endpoint = 0;
    EndpointFleet::Basis basis;  // shared and immutable: safe on the worker
};

// Builds `snapshot` (taken apart) into a fleet. Reads only its arguments: runs on any thread.
PreparedSnapshot buildSnapshot(const SnapshotInputs& inputs, watchfloor::v1::Snapshot&& snapshot);

class FleetIngest : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetIngest)

public:
    struct Sink {
        std::function<SnapshotInputs(int endpoint)> inputs;
        std::function<void(int endpoint, PreparedSnapshot&& prepared)> adopt;
        // A delta or a heartbeat, in stream order.
        std::function<void(int endpoint, const watchfloor::v1::SubscribeResponse& message)> update;
    };

    FleetIngest(Sink sink, std::chrono::milliseconds applySlice);
    // Waits for the worker: a snapshot being built is dropped, a fleet being destroyed is.
    ~FleetIngest() override;

    void addEndpoint();
    // The synchronous path: a snapshot is built on the caller's thread and adopted, anything else
    // applied, before this returns.
    void apply(int endpoint, const watchfloor::v1::SubscribeResponse& message);
    void apply(int endpoint, watchfloor::v1::SubscribeResponse&& message);
    // The queued path (an attached connection): appended to the endpoint's inbox, which is drained
    // now as far as a slice allows; a snapshot goes to the worker and holds the inbox until adopted.
    void enqueue(int endpoint, std::vector<watchfloor::v1::SubscribeResponse>&& messages);
    // Destroys a replaced fleet on the worker (tens of MB of small objects, not on the GUI thread).
    void dispose(std::unique_ptr<EndpointFleet> fleet);

    std::size_t queued(int endpoint) const { return m_endpoints[std::size_t(endpoint)].inbox.size(); }
    bool isPreparing(int endpoint) const { return m_endpoints[std::size_t(endpoint)].preparing; }

private:
    struct Endpoint {
        std::deque<watchfloor::v1::SubscribeResponse> inbox;  // enqueued, not applied yet
        bool preparing = false;  // a snapshot is being built on the worker; the inbox waits
        bool drainScheduled = false;
    };
    void drain(int endpoint);
    void scheduleDrain(int endpoint);
    void prepareOnWorker(int endpoint, watchfloor::v1::SubscribeResponse&& message);
    void runOnWorker(std::function<void()> task);

    Sink m_sink;
    std::chrono::milliseconds m_applySlice;
    std::vector<Endpoint> m_endpoints;
    QueuedCalls m_calls{this};  // built snapshots, from the worker to this object's thread
    // One thread, FIFO: builds snapshots and destroys replaced fleets. Declared last so it is
    // destroyed first; the destructor waits for its tasks before anything they touch goes away.
    QThreadPool m_worker;
};

}  // namespace watchfloor::client
