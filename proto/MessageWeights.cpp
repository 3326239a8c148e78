#include "MessageWeights.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

namespace watchfloor::proto {

namespace {

template <typename Each>
void forEachDouble(const google::protobuf::Descriptor* descriptor, Each each) {
    for (int i = 0; i < descriptor->field_count(); ++i) {
        const auto* field = descriptor->field(i);
        if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE && !field->is_repeated())
            each(field);
    }
}

}  // namespace

void addWeightedDoubles(google::protobuf::Message& into, const google::protobuf::Message& from, double weight) {
    if (from.GetDescriptor() != into.GetDescriptor()) return;
    const auto* reflection = into.GetReflection();
    forEachDouble(into.GetDescriptor(), [&](const google::protobuf::FieldDescriptor* field) {
        reflection->SetDouble(&into, field,
                              reflection->GetDouble(into, field) + weight * reflection->GetDouble(from, field));
    });
}

void scaleDoubles(google::protobuf::Message& message, double factor) {
    const auto* reflection = message.GetReflection();
    forEachDouble(message.GetDescriptor(), [&](const google::protobuf::FieldDescriptor* field) {
        reflection->SetDouble(&message, field, factor * reflection->GetDouble(message, field));
    });
}

}  // namespace watchfloor::proto
