#pragma once
// The audit log as the console's Audit page reads it: pages of entries, newest first, by seq.
// Keeps an index of (seq, byte offset) that grows with the file, so a call reads only the lines
// appended since the previous call plus the lines of its own page, never the whole file again.
// Reads the file AuditLog appends to (whole lines, fsync'ed); a line still being written is
// indexed by a later call. Lines it did not write (garbage, torn, over 1 MiB, seq out of order)
// are skipped and counted in the response's unreadable_lines, never a reason to fail the call.

#include "AuditLog.h"
#include "watchfloor/v1/control.pb.h"

#include <grpcpp/support/status.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace watchfloor::server::control {

class AuditTrail {
public:
    static constexpr std::uint32_t kDefaultPageSize = 100;
    static constexpr std::uint32_t kMaxPageSize = 1000;

    // With the log that writes the file, a line whose seq is newer than its last record is known
    // not to be one of its records.
    explicit AuditTrail(std::string path, const AuditLog* writer = nullptr) : path_(std::move(path)), writer_(writer) {}

    struct Page {
        grpc::Status status;
        watchfloor::v1::ListAuditEntriesResponse response;
    };
    // Entries with seq < beforeSeq (0 = from the newest), newest first; pageSize 0 = default,
    // capped at kMaxPageSize. next_before_seq is 0 when nothing older remains.
    Page newestFirst(std::uint64_t beforeSeq, std::uint32_t pageSize);

    std::size_t indexedEntries() const;

private:
    struct Line {
        std::uint64_t seq;
        std::uint64_t offset;
        std::uint32_t length;
    };
    std::string refreshLocked(int fd);

    const std::string path_;
    const AuditLog* const writer_;
    mutable std::mutex mutex_;
    std::vector<Line> lines_;         // in file order; seq strictly increasing
    std::uint64_t indexedBytes_ = 0;  // up to the end of the last complete line
    std::size_t unreadable_ = 0;      // lines that are not AuditLog's records, skipped
};

}  // namespace watchfloor::server::control
