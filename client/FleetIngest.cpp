#include "FleetIngest.h"

#include "HappensBefore.h"

#include <QElapsedTimer>
#include <QMetaObject>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {
// What the GUI thread hands to the worker goes through QThreadPool's queue, whose lock is inside
// Debian's uninstrumented libQt6Core; the order is stated for ThreadSanitizer with one token for
// every hand-off to a worker, because a task cannot read its own captures before it receives.
char workerHandOff;
}  // namespace

PreparedSnapshot buildSnapshot(const SnapshotInputs& inputs, v1::Snapshot&& snapshot) {
    PreparedSnapshot out;
    out.recentEvents.Swap(snapshot.mutable_recent_events());
    out.fleet = EndpointFleet::fromSnapshot(inputs.label, inputs.historyPoints, inputs.endpoint, std::move(snapshot),
                                            inputs.basis, &out.error);
    return out;
}

FleetIngest::FleetIngest(Sink sink, std::chrono::milliseconds applySlice)
    : m_sink(std::move(sink)), m_applySlice(applySlice) {
    m_worker.setMaxThreadCount(1);
    m_worker.setExpiryTimeout(-1);
    m_worker.setObjectName(QStringLiteral("FleetStore snapshot worker"));
}

FleetIngest::~FleetIngest() {
    // Tasks capture `this` to post their results; results still queued die with the object.
    m_worker.clear();
    m_worker.waitForDone();
}

void FleetIngest::addEndpoint() { m_endpoints.emplace_back(); }

void FleetIngest::apply(int endpoint, const v1::SubscribeResponse& message) {
    if (message.payload_case() == v1::SubscribeResponse::kSnapshot) {
        v1::Snapshot copy = message.snapshot();  // the build takes the snapshot apart
        m_sink.adopt(endpoint, buildSnapshot(m_sink.inputs(endpoint), std::move(copy)));
        return;
    }
    m_sink.update(endpoint, message);
}

void FleetIngest::apply(int endpoint, v1::SubscribeResponse&& message) {
    if (message.payload_case() == v1::SubscribeResponse::kSnapshot) {
        m_sink.adopt(endpoint, buildSnapshot(m_sink.inputs(endpoint), std::move(*message.mutable_snapshot())));
        return;
    }
    m_sink.update(endpoint, message);
}

void FleetIngest::dispose(std::unique_ptr<EndpointFleet> fleet) {
    // Moved into the task, so the worker holds the only reference and is the one to free it.
    std::shared_ptr<EndpointFleet> doomed(std::move(fleet));
    runOnWorker([doomed = std::move(doomed)]() mutable { doomed.reset(); });
}

void FleetIngest::runOnWorker(std::function<void()> task) {
    std::function<void()> run = [task = std::move(task)] {
        happensbefore::receive(&workerHandOff);
        task();
    };
    happensbefore::publish(&workerHandOff);  // once the task is built: it is part of the hand-off
    m_worker.start(std::move(run));
}

void FleetIngest::enqueue(int endpoint, std::vector<v1::SubscribeResponse>&& messages) {
    Endpoint& e = m_endpoints[std::size_t(endpoint)];
    for (v1::SubscribeResponse& message : messages) {
        e.inbox.push_back(std::move(message));
    }
    drain(endpoint);
}

void FleetIngest::scheduleDrain(int endpoint) {
    Endpoint& e = m_endpoints[std::size_t(endpoint)];
    if (e.drainScheduled) return;
    e.drainScheduled = true;
    QMetaObject::invokeMethod(
        this,
        [this, endpoint] {
            m_endpoints[std::size_t(endpoint)].drainScheduled = false;
            drain(endpoint);
        },
        Qt::QueuedConnection);
}

void FleetIngest::drain(int endpoint) {
    QElapsedTimer slice;
    slice.start();
    // Not a reference held across the sink's calls: the sink may add endpoints.
    while (!m_endpoints[std::size_t(endpoint)].inbox.empty() && !m_endpoints[std::size_t(endpoint)].preparing) {
        std::deque<v1::SubscribeResponse>& inbox = m_endpoints[std::size_t(endpoint)].inbox;
        v1::SubscribeResponse message = std::move(inbox.front());
        inbox.pop_front();
        if (message.payload_case() == v1::SubscribeResponse::kSnapshot) {
            prepareOnWorker(endpoint, std::move(message));
            return;
        }
        m_sink.update(endpoint, message);
        if (!m_endpoints[std::size_t(endpoint)].inbox.empty() &&
            std::chrono::milliseconds(slice.elapsed()) >= m_applySlice) {
            scheduleDrain(endpoint);  // let input and painting run, then go on
            return;
        }
    }
}

void FleetIngest::prepareOnWorker(int endpoint, v1::SubscribeResponse&& message) {
    m_endpoints[std::size_t(endpoint)].preparing = true;
    struct Job {
        v1::Snapshot snapshot;
        SnapshotInputs inputs;
        PreparedSnapshot prepared;
    };
    auto job = std::make_shared<Job>();
    job->snapshot.Swap(message.mutable_snapshot());
    job->inputs = m_sink.inputs(endpoint);
    // The job changes hands twice, each time whole: to the worker, then back in a posted call
    // (QueuedCalls) that takes the worker's reference with it, so the GUI thread is its last owner
    // and the worker never touches it after the post.
    runOnWorker([this, endpoint, job = std::move(job)]() mutable {
        job->prepared = buildSnapshot(job->inputs, std::move(job->snapshot));
        // Whatever is left of the message, and our hold on the old topology, is released here:
        // the GUI thread must not be the one to free tens of MB.
        job->snapshot = v1::Snapshot();
        job->inputs.basis = {};
        m_calls.post([this, endpoint, job = std::move(job)] {
            m_endpoints[std::size_t(endpoint)].preparing = false;
            m_sink.adopt(endpoint, std::move(job->prepared));
            drain(endpoint);
        });
    });
}

}  // namespace watchfloor::client
