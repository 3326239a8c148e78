#pragma once
// The operator-action audit trail: one JSON line per decision, appended and fsync'ed before
// append() returns, so a caller that acts only after append() succeeds never acts unrecorded.

#include <google/protobuf/struct.pb.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace watchfloor::server::control {

struct AuditRecord {
    std::chrono::system_clock::time_point time;
    std::string principal;  // "" when the caller could not be authenticated
    std::string role;       // "viewer", "operator", "admin", "" when unknown
    std::string action;     // e.g. "DRAIN_NODE", "APPROVE", "RESET_CIRCUIT_BREAKER"
    std::string target;     // e.g. "r01-n03", "rack r01", "op-1f2e..."
    std::string reason;     // as stored: "<principal>: <text>"
    std::string requestId;
    std::string previewSummary;  // one line: jobs hit, GPUs lost, NVLink domain after
    std::string decision;        // "allow", "deny" or "result"
    std::string result;          // status code name + message, or the operation's final state
    std::string operationId;
    std::string peer;           // transport peer (e.g. "ipv4:127.0.0.1:50312"), untrusted
    std::string operationJson;  // the accepted Operation as protobuf JSON, so a restarted fleetd
                                // knows which request ids it has already acted on
    // A break/fix step's back-end handles, tray -> handle, as a JSON object ("started" records):
    // what a restarted fleetd follows instead of starting the step again.
    std::string repairHandlesJson;
};

// What open() found and repaired at the end of the file: a last line that had no newline or was
// not valid JSON (a write cut short by a crash or power loss).
struct TornTail {
    std::string file;
    std::uint64_t byteOffset = 0;  // where the torn line started; the file now ends here
    std::uint64_t length = 0;      // bytes removed
    std::string savedTo;           // the removed bytes were appended to this file first
};

std::string describe(const TornTail& torn);

// Writes all of `data` (retrying short writes and EINTR); false on error, errno says why.
bool writeAll(int fd, const char* data, std::size_t size);
// fsync of the folder holding `path`, so a file created or renamed there survives a crash.
bool fsyncDirectoryOf(const std::string& path);
// Replaces the file at `path` with `text` (a temporary file beside it, fsync, rename, the folder
// synced), so a kill -9 leaves the old file or the new one, never half of one. Mode 0600. Empty on
// success, else why (the old file is still there).
std::string replaceFile(const std::string& path, const std::string& text);

// Reads exactly `size` bytes at `offset` (retrying short reads and EINTR); false at EOF or error.
bool readFileAt(int fd, std::uint64_t offset, std::size_t size, std::string& out);

// Each text field of a record is cut to this many bytes before it is written, so that no caller,
// authenticated or not, can make a record large.
inline constexpr std::size_t kMaxFieldBytes = 4096;
// No record of AuditLog's is this long; a longer line was not written by it and is skipped.
inline constexpr std::size_t kMaxAuditLineBytes = 1 << 20;

// Visits every complete line in [from, to) of the file, without its newline, reading in chunks;
// a line longer than kMaxAuditLineBytes is skipped without being held in memory and counted in
// *overlong. Returns the offset after the last complete line (where the next call starts), and
// sets *error when the file cannot be read.
std::uint64_t forEachAuditLine(int fd, std::uint64_t from, std::uint64_t to,
                               const std::function<void(std::uint64_t offset, std::string_view line)>& visit,
                               std::size_t* overlong, std::string* error);

class AuditLog {
public:
    struct OpenResult {
        std::unique_ptr<AuditLog> log;  // null on error
        std::string error;              // operator-readable, set when log is null
        std::optional<TornTail> repaired;
    };
    // Opens (creating if missing, mode 0600) and repairs a torn last line.
    static OpenResult open(const std::string& path);

    ~AuditLog();
    AuditLog(const AuditLog&) = delete;
    AuditLog& operator=(const AuditLog&) = delete;

    // Writes one line and fsyncs it. Returns "" on success, else why the record is not durable.
    // Thread-safe; records get strictly increasing "seq" numbers across restarts.
    [[nodiscard]] std::string append(const AuditRecord& record);

    const std::string& path() const { return path_; }
    std::uint64_t lastSeq() const;

    // Visits every record of the file in order (each line parsed as a JSON object). Returns "" or
    // why the file could not be read; lines that are not JSON objects or longer than
    // kMaxAuditLineBytes are counted in *skipped.
    [[nodiscard]] static std::string readRecords(const std::string& path,
                                                 const std::function<void(const google::protobuf::Struct&)>& visit,
                                                 std::size_t* skipped = nullptr);

    // The JSON line append() writes for record number seq (no trailing newline).
    static std::string toJsonLine(const AuditRecord& record, std::uint64_t seq);

private:
    AuditLog(std::string path, int fd, std::uint64_t lastSeq);

    const std::string path_;
    const int fd_;
    mutable std::mutex mutex_;
    std::uint64_t lastSeq_;
};

}  // namespace watchfloor::server::control
