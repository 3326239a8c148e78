#include "SubscribeStreamReader.h"

#include "HappensBefore.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

// The reactor owns a reference to its reader, so the ClientContext outlives the RPC even when
// the owner dropped its handle; it deletes itself after OnDone (the callback API's lifetime rule).
class SubscribeStreamReader::Reactor final : public grpc::ClientReadReactor<v1::SubscribeResponse> {
public:
    explicit Reactor(std::shared_ptr<SubscribeStreamReader> reader) : m_reader(std::move(reader)) {}

    void begin(v1::TelemetryService::Stub& stub) {
        stub.async()->Subscribe(&m_reader->m_context, &m_reader->m_request, this);
        happensbefore::publish(this);
        StartRead(&m_response);
        StartCall();
    }

    void OnReadDone(bool ok) override {
        happensbefore::receive(this);
        if (!ok) {
            return;  // the stream ended; OnDone follows with the status
        }
        bool wasEmpty = false;
        {
            std::lock_guard lock(m_reader->m_pendingMutex);
            wasEmpty = m_reader->m_pending.empty();
            m_reader->m_pending.push_back(std::move(m_response));
        }
        m_response.Clear();
        if (wasEmpty) {
            m_reader->m_dataReady();
        }
        happensbefore::publish(this);
        StartRead(&m_response);
    }

    void OnDone(const grpc::Status& status) override {
        happensbefore::receive(this);
        m_reader->m_finished(status);
        {
            std::lock_guard lock(m_reader->m_doneMutex);
            m_reader->m_done = true;
        }
        m_reader->m_doneCv.notify_all();
        delete this;
    }

private:
    std::shared_ptr<SubscribeStreamReader> m_reader;
    v1::SubscribeResponse m_response;
};

SubscribeStreamReader::SubscribeStreamReader(DataReady dataReady, Finished finished)
    : m_dataReady(std::move(dataReady)), m_finished(std::move(finished)) {}

SubscribeStreamReader::~SubscribeStreamReader() = default;

std::shared_ptr<SubscribeStreamReader> SubscribeStreamReader::start(v1::TelemetryService::Stub& stub,
                                                                    const v1::SubscribeRequest& request,
                                                                    DataReady dataReady, Finished finished) {
    std::shared_ptr<SubscribeStreamReader> reader(new SubscribeStreamReader(std::move(dataReady), std::move(finished)));
    reader->m_request = request;
    auto* reactor = new Reactor(reader);
    reactor->begin(stub);
    return reader;
}

void SubscribeStreamReader::cancel() { m_context.TryCancel(); }

std::vector<v1::SubscribeResponse> SubscribeStreamReader::takePending() {
    std::vector<v1::SubscribeResponse> out;
    std::lock_guard lock(m_pendingMutex);
    out.swap(m_pending);
    return out;
}

void SubscribeStreamReader::waitUntilDone() {
    std::unique_lock lock(m_doneMutex);
    m_doneCv.wait(lock, [this] { return m_done; });
}

bool SubscribeStreamReader::isDone() const {
    std::lock_guard lock(m_doneMutex);
    return m_done;
}

}  // namespace watchfloor::client
