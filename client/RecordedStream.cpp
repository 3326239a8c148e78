#include "RecordedStream.h"

#include "FleetStore.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <fstream>

namespace watchfloor::client {

bool RecordedStream::save(const QString& path, QString* error) const {
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    if (!out) {
        if (error) *error = QStringLiteral("Cannot write recording %1").arg(path);
        return false;
    }
    for (const auto& message : m_messages) {
        if (!google::protobuf::util::SerializeDelimitedToOstream(message, &out)) {
            if (error) *error = QStringLiteral("Writing recording %1 failed").arg(path);
            return false;
        }
    }
    out.flush();
    if (!out) {
        if (error) *error = QStringLiteral("Writing recording %1 failed (disk full?)").arg(path);
        return false;
    }
    return true;
}

std::optional<RecordedStream> RecordedStream::load(const QString& path, QString* error) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    if (!in) {
        if (error) *error = QStringLiteral("Cannot open recording %1").arg(path);
        return std::nullopt;
    }
    google::protobuf::io::IstreamInputStream stream(&in);
    RecordedStream recording;
    for (;;) {
        watchfloor::v1::SubscribeResponse message;
        bool cleanEof = false;
        if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&message, &stream, &cleanEof)) {
            if (cleanEof) break;
            if (error) {
                *error = QStringLiteral("Recording %1 is corrupt after message %2").arg(path).arg(recording.size());
            }
            return std::nullopt;
        }
        recording.append(std::move(message));
    }
    return recording;
}

void RecordedStream::replayInto(FleetStore& store, int endpoint, std::size_t first, long count) const {
    if (first >= m_messages.size()) return;
    const std::size_t end = count < 0 ? m_messages.size() : std::min(m_messages.size(), first + std::size_t(count));
    store.applyBatch(endpoint,
                     std::span<const watchfloor::v1::SubscribeResponse>(m_messages.data() + first, end - first));
}

}  // namespace watchfloor::client
