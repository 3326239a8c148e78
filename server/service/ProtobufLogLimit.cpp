#include "ProtobufLogLimit.h"

#include "TokenBucket.h"

#include <google/protobuf/stubs/logging.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace watchfloor::server::service {

namespace {

// Replaced, never freed: protobuf may log from any thread at any time, even during exit. The
// replaced ones stay reachable (retired), and the same limits keep the bucket they have, so a
// process that starts many servers (the tests) holds one bucket per distinct limit, not one per start.
std::atomic<TokenBucket*> g_bucket{nullptr};
std::mutex g_mutex;
ProtobufLogLimit g_limit;
std::vector<std::unique_ptr<TokenBucket>>* g_retired = new std::vector<std::unique_ptr<TokenBucket>>;

const char* levelName(google::protobuf::LogLevel level) {
    switch (level) {
    case google::protobuf::LOGLEVEL_INFO: return "INFO";
    case google::protobuf::LOGLEVEL_WARNING: return "WARNING";
    case google::protobuf::LOGLEVEL_ERROR: return "ERROR";
    default: return "FATAL";
    }
}

void rateLimitedHandler(google::protobuf::LogLevel level, const char* filename, int line, const std::string& message) {
    TokenBucket* bucket = g_bucket.load();
    if (level != google::protobuf::LOGLEVEL_FATAL && bucket && !bucket->admit()) return;
    const std::uint64_t held = bucket ? bucket->takeDropped() : 0;
    // Same shape as protobuf's own handler, so log searches keep working.
    std::fprintf(stderr, "[libprotobuf %s %s:%d] %s%s\n", levelName(level), filename, line, message.c_str(),
                 held ? (" (" + std::to_string(held) + " similar lines suppressed before this one)").c_str() : "");
    std::fflush(stderr);
}

}  // namespace

void limitProtobufLog(ProtobufLogLimit limit) {
    const std::lock_guard lock(g_mutex);
    if (g_bucket.load() && limit.burst == g_limit.burst && limit.perSecond == g_limit.perSecond) return;
    g_retired->push_back(std::make_unique<TokenBucket>(limit.burst, limit.perSecond));
    g_limit = limit;
    g_bucket.store(g_retired->back().get());
    google::protobuf::SetLogHandler(&rateLimitedHandler);
}

}  // namespace watchfloor::server::service
