#include "AuditTrail.h"

#include "AuditLog.h"
#include "ExactInteger.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

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
    // 0 when absent, not a number, or not one the field can hold.
    const auto integer = [&]<typename T>(const char* key, T) {
        const auto found = record.fields().find(key);
        if (found == record.fields().end() || !found->second.has_number_value()) return T{0};
        return exactInteger<T>(found->second.number_value()).value_or(T{0});
    };
    v1::AuditEntry entry;
    entry.set_seq(integer("seq", std::uint64_t{}));
    entry.set_time_unix_ms(integer("time_unix_ms", std::int64_t{}));
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
        unreadable_ = 0;
    }
    // Anything but a whole record of AuditLog's, in seq order and no newer than the writer's last
    // record, is skipped and counted: one foreign line must not hide the records after it.
    const std::uint64_t newestWritten = writer_ ? writer_->lastSeq() : UINT64_MAX;
    std::string error;
    indexedBytes_ = forEachAuditLine(
        fd, indexedBytes_, size,
        [&](std::uint64_t offset, std::string_view line) {
            std::uint64_t seq = 0;
            if (seqOfLine(line, &seq) && line.ends_with('}') && (lines_.empty() || seq > lines_.back().seq) &&
                seq <= newestWritten)
                lines_.push_back({seq, offset, static_cast<std::uint32_t>(line.size())});
            else if (!line.empty())
                ++unreadable_;
        },
        &unreadable_, &error);
    if (!error.empty()) return "cannot read audit log " + path_ + ": " + error;
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
        if (!readFileAt(fd, it->offset, it->length, text)) {
            // Shorter than when it was indexed: replaced behind fleetd's back; re-indexed next call.
            lines_.clear();
            indexedBytes_ = 0;
            unreadable_ = 0;
            ::close(fd);
            page.status = {grpc::StatusCode::UNAVAILABLE, "audit log " + path_ + " changed while reading; try again"};
            return page;
        }
        if (!google::protobuf::util::JsonStringToMessage(text, &record).ok()) {
            // Looked like a record ({"seq":N ... }) but is not JSON: skip it, now and later.
            ++unreadable_;
            it = lines_.erase(it);
            continue;
        }
        *page.response.add_entries() = toEntry(record);
    }
    page.response.set_unreadable_lines(unreadable_);
    ::close(fd);
    return page;
}

std::size_t AuditTrail::indexedEntries() const {
    std::lock_guard lock(mutex_);
    return lines_.size();
}

}  // namespace watchfloor::server::control
