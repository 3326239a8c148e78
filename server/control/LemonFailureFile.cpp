#include "LemonFailureFile.h"

#include "AuditLog.h"
#include "TickClock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

namespace watchfloor::server::control {

namespace {

constexpr std::string_view kHeader = "watchfloor-lemon-failures 1";

bool parseInt(std::string_view text, std::int64_t* out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && end == text.data() + text.size();
}

// "WORD INT" or "WORD INT INT": the words split on single spaces.
bool splitRecord(const std::string& line, std::string* first, std::int64_t* a, std::int64_t* b) {
    const auto one = line.find(' ');
    if (one == std::string::npos || one == 0) return false;
    *first = line.substr(0, one);
    const std::string_view rest = std::string_view(line).substr(one + 1);
    const auto two = rest.find(' ');
    if (!b) return two == std::string_view::npos && parseInt(rest, a);
    return two != std::string_view::npos && parseInt(rest.substr(0, two), a) && parseInt(rest.substr(two + 1), b);
}

}  // namespace

std::string LemonFailureFile::save(const LemonFailureSnapshot& snapshot) const {
    if (path_.empty()) return {};
    std::string text(kHeader);
    text += "\nsaved " + std::to_string(snapshot.savedClockMs) + " " + std::to_string(snapshot.savedWallMs) + "\n";
    for (const auto& [tray, times] : snapshot.failures) {
        const std::size_t skip = times.size() > perTray_ ? times.size() - perTray_ : 0;
        for (auto it = times.begin() + static_cast<std::ptrdiff_t>(skip); it != times.end(); ++it)
            text += tray + " " + std::to_string(*it) + "\n";
    }
    return replaceFile(path_, text);
}

LemonFailureLoad LemonFailureFile::load(const std::function<bool(const std::string&)>& isTray) const {
    LemonFailureLoad loaded;
    if (path_.empty()) return loaded;
    struct stat info {};
    if (::stat(path_.c_str(), &info) != 0) {
        if (errno != ENOENT) loaded.error = "cannot read " + path_ + ": " + std::strerror(errno);
        return loaded;
    }
    loaded.found = true;
    if (static_cast<std::size_t>(info.st_size) > kMaxBytes)
        return loaded.error = path_ + " is " + std::to_string(info.st_size) + " bytes, more than fleetd ever writes (" +
                              std::to_string(kMaxBytes) + "); not read",
               loaded;
    std::ifstream in(path_, std::ios::binary);
    if (!in) return loaded.error = "cannot read " + path_ + ": " + std::strerror(errno), loaded;
    std::string line;
    if (!std::getline(in, line) || line != kHeader)
        return loaded.error = path_ + " does not start with '" + std::string(kHeader) + "'; not read", loaded;
    std::string word;
    if (!std::getline(in, line) ||
        !splitRecord(line, &word, &loaded.snapshot.savedClockMs, &loaded.snapshot.savedWallMs) || word != "saved")
        return loaded.error = path_ + ": the second line is not 'saved CLOCK_MS WALL_MS'; not read", loaded;
    while (std::getline(in, line)) {
        std::int64_t time = 0;
        if (line.size() > kMaxLine || !splitRecord(line, &word, &time, nullptr) || !isTray(word) ||
            time > loaded.snapshot.savedClockMs) {
            ++loaded.skippedLines;
            continue;
        }
        std::deque<std::int64_t>& times = loaded.snapshot.failures[word];
        if (times.size() >= perTray_) {
            ++loaded.skippedLines;
            continue;
        }
        times.insert(std::upper_bound(times.begin(), times.end(), time), time);
    }
    return loaded;
}

std::int64_t LemonFailureFile::carriedOver(std::int64_t failureClockMs, const LemonFailureSnapshot& saved,
                                           std::int64_t nowClockMs, std::int64_t nowWallMs) {
    // A failure is never younger than the save (its age is at least 0).
    return std::min(failureClockMs, saved.savedClockMs) +
           carriedClockShiftMs(saved.savedClockMs, saved.savedWallMs, nowClockMs, nowWallMs);
}

}  // namespace watchfloor::server::control
