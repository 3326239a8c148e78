#include "AuditLog.h"

#include "ExactInteger.h"
#include "TextBounds.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace watchfloor::server::control {
namespace {

std::string errnoText(const std::string& what, const std::string& path) {
    return what + " " + path + ": " + std::strerror(errno);
}

// Writes `text` as a JSON string. Bytes that are not UTF-8 become U+FFFD: a JSON reader refuses
// the whole line otherwise, and the record (a refusal, say) would be lost to every reader.
void appendJsonString(std::string& out, std::string_view text) {
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t start = i;
        if (nextCodePoint(text, i) == kInvalidUtf8) {
            out += "\\ufffd";
            continue;
        }
        if (i - start > 1) {
            out.append(text.data() + start, i - start);
            continue;
        }
        const unsigned char c = static_cast<unsigned char>(text[start]);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    out += '"';
}

std::string iso8601Utc(std::chrono::system_clock::time_point time) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
    const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[64];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(ms % 1000));
    return text;
}

// Offset of the first byte of the line whose content ends at `end` (exclusive).
std::uint64_t lineStart(int fd, std::uint64_t end) {
    constexpr std::uint64_t kChunk = 64 * 1024;
    std::string chunk;
    while (end > 0) {
        const std::uint64_t from = end > kChunk ? end - kChunk : 0;
        if (!readFileAt(fd, from, end - from, chunk)) return 0;
        const auto newline = chunk.rfind('\n');
        if (newline != std::string::npos) return from + newline + 1;
        end = from;
    }
    return 0;
}

// The record's seq when the line is one of ours (a JSON object with a numeric "seq").
std::optional<std::uint64_t> seqOfLine(const std::string& line) {
    google::protobuf::Struct object;
    if (!google::protobuf::util::JsonStringToMessage(line, &object).ok()) return std::nullopt;
    const auto seq = object.fields().find("seq");
    if (seq == object.fields().end() || !seq->second.has_number_value()) return std::nullopt;
    return exactInteger<std::uint64_t>(seq->second.number_value());
}

// Keeps the torn bytes for forensics before the log itself is truncated.
std::string saveTornBytes(const std::string& tornPath, const std::string& bytes) {
    const int fd = ::open(tornPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return errnoText("cannot open", tornPath);
    std::string record = bytes;
    if (record.empty() || record.back() != '\n') record += '\n';
    const bool ok = writeAll(fd, record.data(), record.size()) && ::fsync(fd) == 0;
    const std::string error = ok ? "" : errnoText("cannot write", tornPath);
    ::close(fd);
    return error;
}

}  // namespace

bool writeAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t written = ::write(fd, data, size);
        if (written < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += written;
        size -= static_cast<std::size_t>(written);
    }
    return true;
}

bool fsyncDirectoryOf(const std::string& path) {
    auto dir = std::filesystem::path(path).parent_path();
    if (dir.empty()) dir = ".";
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

std::string replaceFile(const std::string& path, const std::string& text) {
    const std::string temporary = path + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return errnoText("cannot open", temporary);
    const bool written = writeAll(fd, text.data(), text.size()) && ::fsync(fd) == 0;
    const std::string writeError = written ? "" : errnoText("cannot write", temporary);
    ::close(fd);
    if (!written) return writeError;
    if (::rename(temporary.c_str(), path.c_str()) != 0)
        return "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno);
    if (!fsyncDirectoryOf(path)) return errnoText("cannot sync the folder of", path);
    return {};
}

bool readFileAt(int fd, std::uint64_t offset, std::size_t size, std::string& out) {
    out.resize(size);
    std::size_t done = 0;
    while (done < size) {
        const ssize_t got = ::pread(fd, out.data() + done, size - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        done += static_cast<std::size_t>(got);
    }
    return true;
}

std::string describe(const TornTail& torn) {
    return "audit log " + torn.file + ": torn last record at byte " + std::to_string(torn.byteOffset) + " (" +
           std::to_string(torn.length) + " bytes) removed; the bytes were saved to " + torn.savedTo;
}

AuditLog::OpenResult AuditLog::open(const std::string& path) {
    OpenResult result;
    const bool existed = std::filesystem::exists(path);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        result.error = errnoText("cannot open audit log", path);
        return result;
    }
    auto fail = [&](std::string error) {
        ::close(fd);
        result.error = std::move(error);
        result.repaired.reset();
        return std::move(result);
    };
    if (!existed && !fsyncDirectoryOf(path)) return fail(errnoText("cannot sync the folder of", path));

    struct stat info {};
    if (::fstat(fd, &info) != 0) return fail(errnoText("cannot stat audit log", path));
    std::uint64_t size = static_cast<std::uint64_t>(info.st_size);

    std::string lastLine;
    std::optional<std::uint64_t> lastSeq;
    if (size > 0) {
        std::string lastByte;
        if (!readFileAt(fd, size - 1, 1, lastByte)) return fail(errnoText("cannot read audit log", path));
        const bool terminated = lastByte[0] == '\n';
        const std::uint64_t contentEnd = terminated ? size - 1 : size;
        const std::uint64_t start = lineStart(fd, contentEnd);
        if (!readFileAt(fd, start, contentEnd - start, lastLine)) return fail(errnoText("cannot read audit log", path));
        lastSeq = terminated ? seqOfLine(lastLine) : std::nullopt;
        if (!lastSeq) {
            TornTail torn{path, start, size - start, path + ".torn"};
            std::string tornBytes;
            if (!readFileAt(fd, start, size - start, tornBytes)) return fail(errnoText("cannot read audit log", path));
            if (auto error = saveTornBytes(torn.savedTo, tornBytes); !error.empty()) return fail(error);
            if (::ftruncate(fd, static_cast<off_t>(start)) != 0 || ::fsync(fd) != 0)
                return fail(errnoText("cannot truncate the torn record of audit log", path));
            result.repaired = torn;
            size = start;
        }
    }
    if (size > 0 && !lastSeq) {
        const std::uint64_t start = lineStart(fd, size - 1);
        if (!readFileAt(fd, start, size - 1 - start, lastLine) || !(lastSeq = seqOfLine(lastLine)))
            return fail("audit log " + path + ": the record at byte " + std::to_string(start) +
                        " is damaged too (only a torn last line is repaired automatically); move the file aside "
                        "and inspect it");
    }
    result.log.reset(new AuditLog(path, fd, lastSeq.value_or(0)));
    return result;
}

AuditLog::AuditLog(std::string path, int fd, std::uint64_t lastSeq)
    : path_(std::move(path)), fd_(fd), lastSeq_(lastSeq) {}

AuditLog::~AuditLog() { ::close(fd_); }

std::uint64_t AuditLog::lastSeq() const {
    std::lock_guard lock(mutex_);
    return lastSeq_;
}

std::string AuditLog::toJsonLine(const AuditRecord& record, std::uint64_t seq) {
    const auto timeMs = std::chrono::duration_cast<std::chrono::milliseconds>(record.time.time_since_epoch()).count();
    std::string line = "{\"seq\":" + std::to_string(seq) + ",\"time\":";
    appendJsonString(line, iso8601Utc(record.time));
    line += ",\"time_unix_ms\":" + std::to_string(timeMs);
    const std::pair<const char*, const std::string*> fields[] = {
        {"principal", &record.principal},
        {"role", &record.role},
        {"action", &record.action},
        {"target", &record.target},
        {"reason", &record.reason},
        {"request_id", &record.requestId},
        {"preview", &record.previewSummary},
        {"decision", &record.decision},
        {"result", &record.result},
        {"operation_id", &record.operationId},
        {"peer", &record.peer},
    };
    for (const auto& [name, value] : fields) {
        line += ",\"";
        line += name;
        line += "\":";
        // Bounded before it is written: one record, even of an anonymous caller's request, stays a
        // few KB, and the marker keeps the original length for whoever investigates.
        appendJsonString(line, truncatedWithMarker(*value, kMaxFieldBytes));
    }
    if (!record.operationJson.empty()) line += ",\"operation\":" + record.operationJson;
    if (!record.repairHandlesJson.empty()) line += ",\"repair_handles\":" + record.repairHandlesJson;
    line += '}';
    return line;
}

std::uint64_t forEachAuditLine(int fd, std::uint64_t from, std::uint64_t to,
                               const std::function<void(std::uint64_t offset, std::string_view line)>& visit,
                               std::size_t* overlong, std::string* error) {
    constexpr std::size_t kChunk = kMaxAuditLineBytes;
    std::string chunk;
    std::uint64_t done = from;
    bool skipping = false;  // inside a line longer than kMaxAuditLineBytes, looking for its end
    while (done < to) {
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, to - done));
        if (!readFileAt(fd, done, want, chunk)) {
            if (error) *error = std::strerror(errno);
            return done;
        }
        std::size_t start = 0;
        for (std::size_t newline; (newline = chunk.find('\n', start)) != std::string::npos; start = newline + 1) {
            if (skipping)
                skipping = false;
            else
                visit(done + start, std::string_view(chunk.data() + start, newline - start));
        }
        if (start == 0) {
            if (want < kChunk) break;  // the rest is a line still being written
            // No line end in a whole chunk: no record is that long, so this line is not one of ours.
            if (!skipping && overlong) ++*overlong;
            skipping = true;
            done += want;
            continue;
        }
        done += start;
    }
    return done;
}

std::string AuditLog::readRecords(const std::string& path,
                                  const std::function<void(const google::protobuf::Struct&)>& visit,
                                  std::size_t* skipped) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "cannot read audit log " + path + ": " + std::strerror(errno);
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        ::close(fd);
        return "cannot read audit log " + path + ": " + std::strerror(errno);
    }
    std::size_t bad = 0;
    std::string error;
    forEachAuditLine(
        fd, 0, static_cast<std::uint64_t>(info.st_size),
        [&](std::uint64_t, std::string_view line) {
            google::protobuf::Struct record;
            if (line.empty()) return;
            if (!google::protobuf::util::JsonStringToMessage(google::protobuf::StringPiece(line.data(), line.size()),
                                                             &record)
                     .ok()) {
                ++bad;
                return;
            }
            visit(record);
        },
        &bad, &error);
    ::close(fd);
    if (skipped) *skipped = bad;
    if (!error.empty()) return "cannot read audit log " + path + ": " + error;
    return {};
}

std::string AuditLog::append(const AuditRecord& record) {
    std::lock_guard lock(mutex_);
    const std::uint64_t seq = lastSeq_ + 1;
    const std::string line = toJsonLine(record, seq) + '\n';
    const off_t before = ::lseek(fd_, 0, SEEK_END);
    if (!writeAll(fd_, line.data(), line.size())) {
        const std::string error = errnoText("cannot write audit log", path_);
        // A half-written line would corrupt the next record; cut it off again.
        if (before >= 0 && ::ftruncate(fd_, before) != 0) return error + " (and cannot remove the partial line)";
        return error;
    }
    if (::fsync(fd_) != 0) return errnoText("cannot fsync audit log", path_);
    lastSeq_ = seq;
    return {};
}

}  // namespace watchfloor::server::control
