#pragma once
// Byte-level pieces of the Prometheus text format (version 0.0.4) as the two exporters the twin
// imitates write them: dcgm-exporter renders values with Go's fmt verbs (%d for DCGM int64
// fields, %f for doubles), node_exporter through client_golang (strconv's shortest 'g').

#include "ExporterFields.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace watchfloor::server::exporters {

// Backslash, double quote and newline escaped, as the text format requires. dcgm-exporter's
// template writes label values raw; for every value a real host has (UUIDs, host names, model
// names) the bytes are the same, and a hostile inventory name cannot break the page.
void appendLabelValue(std::string& out, std::string_view value);
// HELP text: backslash and newline escaped (client_golang's rule).
void appendHelpText(std::string& out, std::string_view help);
// "# HELP name text\n# TYPE name gauge|counter\n"
void appendFamilyHeader(std::string& out, std::string_view name, std::string_view help, telemetry::PromType type);

// Go's fmt "%d" and "%f" (six decimals).
void appendGoInt(std::string& out, std::int64_t value);
void appendGoFixed(std::string& out, double value);
// client_golang's float rendering: strconv.FormatFloat(v, 'g', -1, 64), i.e. the shortest
// round-trip digits, in exponent form when the exponent is below -4 or at least 6
// ("1.8527668e+07", "5e+10", "52.375"); NaN, +Inf, -Inf spelled as Prometheus reads them.
void appendGoShortest(std::string& out, double value);

}  // namespace watchfloor::server::exporters
