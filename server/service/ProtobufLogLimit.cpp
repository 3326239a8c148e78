#include "ProtobufLogLimit.h"

#include "TokenBucket.h"

#include <google/protobuf/stubs/logging.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>

namespace watchfloor::server::service {

namespace {

// Replaced, never freed: protobuf may log from any thread at any time, even during exit.
std::atomic<TokenBucket*> g_bucket{nullptr};

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
    g_bucket.store(new TokenBucket(limit.burst, limit.perSecond));
    google::protobuf::SetLogHandler(&rateLimitedHandler);
}

}  // namespace watchfloor::server::service
