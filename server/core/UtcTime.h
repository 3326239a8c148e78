#pragma once
// Times as operators read them in messages and audit text: "2026-12-02 14:00:00 UTC".

#include <cstdint>
#include <ctime>
#include <string>

namespace watchfloor::server {

inline std::string utcTime(std::int64_t unixMs) {
    const std::time_t seconds = static_cast<std::time_t>(unixMs / 1000);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return text;
}

}  // namespace watchfloor::server
