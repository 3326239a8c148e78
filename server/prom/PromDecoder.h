#pragma once
// The JSON half of the client: walks a Prometheus API answer with simdjson's on-demand parser and
// hands series to a callback as it meets them. One Decoder keeps its parser (and its buffers)
// between answers; PromClient owns one. simdjson stays inside PromDecoder.cpp, the one file
// compiled for SIMD (see CMakeLists.txt).

#include "PromClient.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace watchfloor::server::prom::detail {

class Decoder {
public:
    Decoder();
    ~Decoder();
    Decoder(const Decoder&) = delete;
    Decoder& operator=(const Decoder&) = delete;

    // `json` must be followed by kJsonPadding readable bytes.
    QueryResult instant(std::string_view json, const InstantCallback& onSample);
    QueryResult range(std::string_view json, const RangeCallback& onSeries);
    // "bad_data: <error>" when `json` is the store's error envelope; empty for anything else.
    [[nodiscard]] std::optional<std::string> storeError(std::string_view json);
    // Whether the last failure was the store's own "status":"error" (not a bad answer).
    bool lastErrorFromStore() const;

private:
    class Walk;
    std::unique_ptr<Walk> walk_;
};

}  // namespace watchfloor::server::prom::detail
