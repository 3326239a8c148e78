#include "AuditTrail.h"

#include "AuditLog.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

// AuditLog writes every line as {"seq":N,...}; anything else is not one of its records.
bool seqOfLine(std::string_view line, std::uint64_t* seq) {
    constexpr std::string_view prefix = "{\"seq\":";
    if (!line.starts_with(prefix)) return false;
    const char* begin = line.data() + prefix.size();
    const auto [end, error] = std::from_chars(begin, line.data() + line.size(), *seq);
    return error == std::errc() && end != begin;
}

v1::AuditEntry toEntry(const google::protobuf::Struct& record) {
    const auto text = [&](const char* key) {
        const auto found = record.fields().find(key);
        return found != record.fields().end() && found->second.has_string_value() ? found->second.string_value()
                                                                                   : std::string();
    };
    const auto number = [&](const char* key) {
        const auto found = record.fields().find(key);
        return found != record.fields().end() && found->second.has_number_value() ? found->second.number_value() : 0.0;
    };
    v1::AuditEntry entry;
    entry.set_seq(static_cast<std::uint64_t>(number("seq")));
    entry.set_time_unix_ms(static_cast<std::int64_t>(number("time_unix_ms")));
    entry.set_principal(text("principal"));
    entry.set_role(text("role"));
    entry.set_action(text("action"));
    entry.set_target(text("target"));
    entry.set_reason(text("reason"));
    entry.set_request_id(text("request_id"));
    entry.set_preview_summary(text("preview"));
    entry.set_decision(text("decision"));
    entry.set_result(text("result"));
    entry.set_operation_id(text("operation_id"));
    entry.set_peer(text("peer"));
    return entry;
}

}  // namespace

std::string AuditTrail::refreshLocked(int fd) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) return "cannot stat audit log " + path_ + ": " + std::strerror(errno);
    const auto size = static_cast<std::uint64_t>(info.st_size);
    if (size < indexedBytes_) {  // replaced or truncated behind fleetd's back: start over
        lines_.clear();
        indexedBytes_ = 0;
    }
    constexpr std::size_t kChunk = 1 << 20;
    std::string chunk;
    while (indexedBytes_ < size) {
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, size - indexedBytes_));
        if (!readFileAt(fd, indexedBytes_, want, chunk)) return "cannot read audit log " + path_ + ": " + std::strerror(errno);
        std::size_t start = 0;
        for (std::size_t newline; (newline = chunk.find('\n', start)) != std::string::npos; start = newline + 1) {
            const std::string_view line(chunk.data() + start, newline - start);
            std::uint64_t seq = 0;
            if (seqOfLine(line, &seq) && (lines_.empty() || seq > lines_.back().seq))
                lines_.push_back({seq, indexedBytes_ + start, static_cast<std::uint32_t>(line.size())});
        }
        if (start == 0) {
            if (want == size - indexedBytes_) break;  // the last line is still being written
            return "audit log " + path_ + " has a line longer than " + std::to_string(kChunk) + " bytes at byte " +
                   std::to_string(indexedBytes_);
        }
        indexedBytes_ += start;
    }
    return {};
}

AuditTrail::Page AuditTrail::newestFirst(std::uint64_t beforeSeq, std::uint32_t pageSize) {
    pageSize = pageSize == 0 ? kDefaultPageSize : std::min(pageSize, kMaxPageSize);
    Page page;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        page.status = {grpc::StatusCode::UNAVAILABLE, "cannot open audit log " + path_ + ": " + std::strerror(errno)};
        return page;
    }
    std::lock_guard lock(mutex_);
    if (auto error = refreshLocked(fd); !error.empty()) {
        ::close(fd);
        page.status = {grpc::StatusCode::UNAVAILABLE, error};
        return page;
    }
    auto end = beforeSeq == 0 ? lines_.end()
                              : std::lower_bound(lines_.begin(), lines_.end(), beforeSeq,
                                                 [](const Line& line, std::uint64_t seq) { return line.seq < seq; });
    std::string text;
    for (auto it = end; it != lines_.begin();) {
        --it;
        if (static_cast<std::uint32_t>(page.response.entries_size()) == pageSize) {
            page.response.set_next_before_seq(page.response.entries().rbegin()->seq());
            break;
        }
        google::protobuf::Struct record;
        if (!readFileAt(fd, it->offset, it->length, text) ||
            !google::protobuf::util::JsonStringToMessage(text, &record).ok()) {
            // Indexed lines were whole JSON records when read; a changed file is re-indexed next call.
            lines_.clear();
            indexedBytes_ = 0;
            ::close(fd);
            page.status = {grpc::StatusCode::UNAVAILABLE, "audit log " + path_ + " changed while reading; try again"};
            return page;
        }
        *page.response.add_entries() = toEntry(record);
    }
    ::close(fd);
    return page;
}

std::size_t AuditTrail::indexedEntries() const {
    std::lock_guard lock(mutex_);
    return lines_.size();
}

}  // namespace watchfloor::server::control
