// Test helper for tst_control_audit: appends records to an audit log and reports each one on
// stdout only after append() returned, so the parent knows exactly what was acknowledged before
// it SIGKILLs this process.
#include "AuditLog.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s AUDIT_LOG PREFIX\n", argv[0]);
        return 2;
    }
    using watchfloor::server::control::AuditLog;
    auto opened = AuditLog::open(argv[1]);
    if (!opened.log) {
        std::fprintf(stderr, "%s\n", opened.error.c_str());
        return 1;
    }
    for (int i = 0;; ++i) {
        watchfloor::server::control::AuditRecord record;
        record.time = std::chrono::system_clock::now();
        record.principal = "alice";
        record.role = "operator";
        record.action = "DRAIN_NODE";
        record.target = "r01-n03";
        record.reason = "alice: \"quoted\" reason; with a newline\n and unicode \u00e9";
        record.requestId = std::string(argv[2]) + "-" + std::to_string(i);
        record.decision = "allow";
        if (auto error = opened.log->append(record); !error.empty()) {
            std::fprintf(stderr, "%s\n", error.c_str());
            return 1;
        }
        std::printf("ack %s\n", record.requestId.c_str());
        std::fflush(stdout);
    }
}
