#include "RepairCaseFile.h"

#include "AuditLog.h"
#include "TickClock.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

constexpr std::string_view kHeader = "watchfloor-repair-cases 1";

bool parseInt(std::string_view text, std::int64_t* out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && end == text.data() + text.size();
}

// "saved CLOCK WALL NEXT"
bool parseSaved(const std::string& line, std::int64_t* clock, std::int64_t* wall, std::int64_t* next) {
    std::istringstream words(line);
    std::string word, a, b, c, extra;
    if (!(words >> word >> a >> b >> c) || word != "saved" || (words >> extra)) return false;
    return parseInt(a, clock) && parseInt(b, wall) && parseInt(c, next) && *next >= 1;
}

void shift(std::int64_t deltaMs, std::int64_t value, const std::function<void(std::int64_t)>& set) {
    if (value != 0) set(value + deltaMs);
}

}  // namespace

void RepairCaseFile::shiftTimes(v1::RepairCase& c, std::int64_t deltaMs) {
    shift(deltaMs, c.opened_unix_ms(), [&](std::int64_t t) { c.set_opened_unix_ms(t); });
    shift(deltaMs, c.closed_unix_ms(), [&](std::int64_t t) { c.set_closed_unix_ms(t); });
    shift(deltaMs, c.burn_in_until_unix_ms(), [&](std::int64_t t) { c.set_burn_in_until_unix_ms(t); });
    for (auto& step : *c.mutable_steps()) {
        shift(deltaMs, step.started_unix_ms(), [&](std::int64_t t) { step.set_started_unix_ms(t); });
        shift(deltaMs, step.ended_unix_ms(), [&](std::int64_t t) { step.set_ended_unix_ms(t); });
    }
    for (auto& note : *c.mutable_timeline())
        shift(deltaMs, note.time_unix_ms(), [&](std::int64_t t) { note.set_time_unix_ms(t); });
}

std::string RepairCaseFile::save(const std::vector<const v1::RepairCase*>& cases, std::uint64_t nextId,
                                 std::int64_t clockMs, std::int64_t wallMs) const {
    if (path_.empty()) return {};
    std::string text(kHeader);
    text += "\nsaved " + std::to_string(clockMs) + " " + std::to_string(wallMs) + " " + std::to_string(nextId) + "\n";
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = false;
    for (const v1::RepairCase* c : cases) {
        std::string line;
        if (!google::protobuf::util::MessageToJsonString(*c, &line, options).ok()) continue;
        text += line;  // JSON escapes every newline inside strings: one case, one line
        text += '\n';
    }
    return replaceFile(path_, text);
}

RepairCaseLoad RepairCaseFile::load(const std::function<bool(const std::string&)>& isTray, std::int64_t nowClockMs,
                                    std::int64_t nowWallMs) const {
    RepairCaseLoad out;
    if (path_.empty()) return out;
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return out;
    out.found = true;
    const auto size = std::filesystem::file_size(path_, ec);
    if (ec) {
        out.error = "cannot read " + path_ + ": " + ec.message();
        return out;
    }
    if (size > kMaxBytes) {
        out.error = path_ + " is " + std::to_string(size) + " bytes, more than a repair case file can be (" +
                    std::to_string(kMaxBytes) + "); not read";
        return out;
    }
    std::ifstream in(path_);
    std::string header, savedLine;
    if (!in || !std::getline(in, header)) {
        out.error = "cannot read " + path_;
        return out;
    }
    std::int64_t savedClock = 0, savedWall = 0, next = 1;
    if (header != kHeader || !std::getline(in, savedLine) || !parseSaved(savedLine, &savedClock, &savedWall, &next)) {
        out.error = path_ + " is not a repair case file (first lines '" + header.substr(0, 60) + "')";
        return out;
    }
    const std::int64_t deltaMs = carriedClockShiftMs(savedClock, savedWall, nowClockMs, nowWallMs);
    out.nextId = static_cast<std::uint64_t>(next);
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;  // a newer fleetd's fields
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        v1::RepairCase c;
        if (!google::protobuf::util::JsonStringToMessage(line, &c, options).ok() || c.id() == 0 ||
            !isTray(c.node_name())) {
            ++out.skippedLines;
            continue;
        }
        shiftTimes(c, deltaMs);
        out.nextId = std::max(out.nextId, c.id() + 1);
        out.cases.push_back(std::move(c));
    }
    return out;
}

}  // namespace watchfloor::server::control
