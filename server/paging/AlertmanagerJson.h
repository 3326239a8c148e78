#pragma once
// Alertmanager API v2 documents: the body of POST /api/v2/alerts (a list of postable alerts),
// of POST /api/v2/silences (one postable silence), and the silenceID in its answer.

#include "PagedAlert.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace watchfloor::server::paging {

// RFC 3339 in UTC with milliseconds: "2026-12-02T13:04:05.123Z".
std::string rfc3339(std::int64_t unixMs);

std::string postableAlerts(std::span<const PagedAlert> alerts);
// Equality matchers (isRegex false, isEqual true) on `matchers`, all of which must hold.
std::string postableSilence(const LabelSet& matchers, std::int64_t startsAtMs, std::int64_t endsAtMs,
                            std::string_view createdBy, std::string_view comment);
// The silenceID of a POST /api/v2/silences answer; empty with `error` set when there is none.
[[nodiscard]] std::optional<std::string> silenceIdOf(std::string_view answer, std::string& error);

}  // namespace watchfloor::server::paging
