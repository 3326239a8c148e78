#pragma once
// The audit log as the console's Audit page reads it: pages of entries, newest first, by seq.
// Keeps an index of (seq, byte offset) that grows with the file, so a call reads only the lines
// appended since the previous call plus the lines of its own page, never the whole file again.
// Reads the file AuditLog appends to (whole lines, fsync'ed); a line still being written is
// indexed by a later call.

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

    explicit AuditTrail(std::string path) : path_(std::move(path)) {}

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
    mutable std::mutex mutex_;
    std::vector<Line> lines_;        // in file order; seq strictly increasing
    std::uint64_t indexedBytes_ = 0; // up to the end of the last complete line
};

}  // namespace watchfloor::server::control
