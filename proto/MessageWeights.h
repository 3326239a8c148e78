#pragma once
// Weighted sums over the double fields of a message, without naming each field: fleet averages
// of per-job messages (GoodputBreakdown, EttrBudget) in fleetd and in the console's merge of
// several endpoints. A field added to the proto is summed too.

namespace google::protobuf {
class Message;
}

namespace watchfloor::proto {

// Adds `weight` × every singular double field of `from` into `into`; nothing when the two are
// messages of different types.
void addWeightedDoubles(google::protobuf::Message& into, const google::protobuf::Message& from, double weight);
// Multiplies every singular double field of `message` by `factor`.
void scaleDoubles(google::protobuf::Message& message, double factor);

}  // namespace watchfloor::proto
