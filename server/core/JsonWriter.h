#pragma once
// A small streaming JSON writer for the twin's Redfish documents: objects, arrays, escaped
// strings, and numbers in their shortest form (NaN, which JSON has no spelling for, as null).

#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server {

class JsonWriter {
public:
    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view name);
    JsonWriter& string(std::string_view value);
    JsonWriter& number(double value);
    JsonWriter& integer(long long value);
    JsonWriter& boolean(bool value);
    JsonWriter& null();
    // A value written by another writer, as it is.
    JsonWriter& raw(std::string_view json);
    // "name": {"@odata.id": path}: Redfish's link to another resource.
    JsonWriter& link(std::string_view name, std::string_view path);

    const std::string& text() const { return out_; }
    std::string take() { return std::move(out_); }

private:
    void beforeValue();
    void quoted(std::string_view value);

    std::string out_;
    std::vector<bool> empty_;  // per open container: nothing written into it yet
    bool afterKey_ = false;
};

}  // namespace watchfloor::server
