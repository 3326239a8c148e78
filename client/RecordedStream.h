#pragma once
// A recorded Subscribe stream: SubscribeResponse messages in order, saved as a file of
// length-delimited messages (varint size + bytes, protobuf's delimited format). Tests and
// benchmarks replay recordings into a FleetStore without a server.

#include "watchfloor/v1/fleet.pb.h"

#include <QString>

#include <optional>
#include <vector>

namespace watchfloor::client {

class FleetStore;

class RecordedStream {
public:
    void append(const watchfloor::v1::SubscribeResponse& message) { m_messages.push_back(message); }
    void append(watchfloor::v1::SubscribeResponse&& message) { m_messages.push_back(std::move(message)); }
    const std::vector<watchfloor::v1::SubscribeResponse>& messages() const { return m_messages; }
    std::size_t size() const { return m_messages.size(); }

    bool save(const QString& path, QString* error) const;
    static std::optional<RecordedStream> load(const QString& path, QString* error);

    // Applies messages [first, first + count) to the store as one batch (count < 0: to the end).
    void replayInto(FleetStore& store, int endpoint, std::size_t first = 0, long count = -1) const;

private:
    std::vector<watchfloor::v1::SubscribeResponse> m_messages;
};

}  // namespace watchfloor::client
