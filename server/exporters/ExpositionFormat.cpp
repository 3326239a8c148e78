#include "ExpositionFormat.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace watchfloor::server::exporters {

void appendLabelValue(std::string& out, std::string_view value) {
    for (const char c : value) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        case '\n': out += "\\n"; break;
        default: out += c;
        }
    }
}

void appendHelpText(std::string& out, std::string_view help) {
    for (const char c : help) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        default: out += c;
        }
    }
}

void appendFamilyHeader(std::string& out, std::string_view name, std::string_view help, telemetry::PromType type) {
    out += "# HELP ";
    out += name;
    out += ' ';
    appendHelpText(out, help);
    out += "\n# TYPE ";
    out += name;
    out += type == telemetry::PromType::Counter ? " counter\n" : " gauge\n";
}

void appendGoInt(std::string& out, std::int64_t value) {
    char buf[24];
    const auto result = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, result.ptr);
}

void appendGoFixed(std::string& out, double value) {
    // glibc's printf rounds the exact binary value like Go's strconv does.
    char buf[400];
    const int n = std::snprintf(buf, sizeof buf, "%f", value);
    out.append(buf, static_cast<std::size_t>(n));
}

void appendGoShortest(std::string& out, double value) {
    if (std::isnan(value)) {
        out += "NaN";
        return;
    }
    if (std::isinf(value)) {
        out += value > 0 ? "+Inf" : "-Inf";
        return;
    }
    char buf[64];
    // Shortest round-trip digits in exponent form first: its exponent decides the layout.
    const auto sci = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    const std::string_view scientific(buf, static_cast<std::size_t>(sci.ptr - buf));
    const auto e = scientific.find('e');
    const int exponent = std::atoi(std::string(scientific.substr(e + 1)).c_str());
    if (exponent < -4 || exponent >= 6) {
        out += scientific;
        return;
    }
    const auto fixed = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
    out.append(buf, fixed.ptr);
}

}  // namespace watchfloor::server::exporters
