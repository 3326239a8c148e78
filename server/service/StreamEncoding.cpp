#include "StreamEncoding.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace watchfloor::server::service {

namespace {
namespace pbio = google::protobuf::io;

constexpr std::uint32_t lengthDelimitedTag(int field) { return (std::uint32_t(field) << 3) | 2; }

// Writes tag + length + the concatenation of `parts` (already serialized).
void appendField(std::string* out, int field, std::size_t length) {
    pbio::StringOutputStream stream(out);
    pbio::CodedOutputStream coded(&stream);
    coded.WriteVarint32(lengthDelimitedTag(field));
    coded.WriteVarint64(length);
}

EncodedMessage wrap(int field, const google::protobuf::MessageLite& payload) {
    auto out = std::make_shared<std::string>();
    const std::size_t size = payload.ByteSizeLong();
    out->reserve(size + 16);
    appendField(out.get(), field, size);
    payload.AppendToString(out.get());
    return out;
}
}  // namespace

EncodedMessage encodeDeltaResponse(const watchfloor::v1::Delta& delta) {
    return wrap(watchfloor::v1::SubscribeResponse::kDeltaFieldNumber, delta);
}

EncodedMessage encodeHeartbeatResponse(const watchfloor::v1::Heartbeat& heartbeat) {
    return wrap(watchfloor::v1::SubscribeResponse::kHeartbeatFieldNumber, heartbeat);
}

EncodedMessage encodeSnapshotResponse(const std::string& encodedBody, const std::string& reason,
                                      const std::string& encodedTopology) {
    std::string fields;
    appendField(&fields, watchfloor::v1::Snapshot::kReasonFieldNumber, reason.size());
    fields += reason;
    appendField(&fields, watchfloor::v1::Snapshot::kTopologyFieldNumber, encodedTopology.size());
    const std::size_t snapshotSize = encodedBody.size() + fields.size() + encodedTopology.size();
    auto out = std::make_shared<std::string>();
    out->reserve(snapshotSize + 16);
    appendField(out.get(), watchfloor::v1::SubscribeResponse::kSnapshotFieldNumber, snapshotSize);
    out->append(encodedBody);
    out->append(fields);
    out->append(encodedTopology);
    return out;
}

}  // namespace watchfloor::server::service
