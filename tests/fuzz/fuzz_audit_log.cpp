// The audit log as fleetd reads it back (server/control): at start-up ControlPlane::create opens
// it (repairing a torn last line), replays the operations and request ids of the previous run and
// looks for a breaker trip left standing; ListAuditEntries pages it newest first (AuditTrail).
// The input is the whole file, as a crash, a full disk or another program may have left it.
#include "FuzzSupport.h"

#include "ControlPlane.h"
#include "ControlTestFleet.h"

#include <sys/stat.h>

#include <filesystem>

namespace control = watchfloor::server::control;
using watchfloor::fuzz::ScratchDir;

namespace {

struct World {
    ScratchDir scratch;
    std::string tokens = scratch.write("tokens", control_test::kTestTokens);
    std::string audit = scratch.file("audit.jsonl");
    control_test::TestFleet fleet{2};
    control_test::RecordingActuator actuator{audit};
    control::ControlOptions options;

    World() {
        ::chmod(tokens.c_str(), 0600);  // TokenTable refuses a file others can read
        options.tokensFile = tokens;
        options.auditLogFile = audit;
        options.autoDrain = control::CircuitBreakerConfig{5, std::chrono::hours(1)};
        fleet.placeJob("llm-70b-1", {"r01-n01", "r01-n02"}, 600);
    }
};

void pageNewestFirst(const std::string& path, std::uint32_t pageSize) {
    control::AuditTrail trail(path);
    std::uint64_t before = 0;
    std::uint64_t lastSeq = UINT64_MAX;
    for (int page = 0;; ++page) {
        FUZZ_CHECK(page <= 100000, "paging does not end");
        auto answer = trail.newestFirst(before, pageSize);
        FUZZ_CHECK(answer.status.ok(), "ListAuditEntries failed: " + answer.status.error_message());
        const auto& response = answer.response;
        const std::uint32_t most = pageSize == 0 ? control::AuditTrail::kDefaultPageSize
                                                 : std::min(pageSize, control::AuditTrail::kMaxPageSize);
        FUZZ_CHECK(std::uint32_t(response.entries_size()) <= most,
                   "page of " + std::to_string(response.entries_size()));
        for (const auto& entry : response.entries()) {
            FUZZ_CHECK(entry.seq() < lastSeq,
                       "seq " + std::to_string(entry.seq()) + " after " + std::to_string(lastSeq));
            lastSeq = entry.seq();
        }
        if (response.next_before_seq() == 0) return;
        FUZZ_CHECK(before == 0 || response.next_before_seq() < before, "next page does not move back");
        before = response.next_before_seq();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static World world;
    world.scratch.write("audit.jsonl", data, size);
    std::filesystem::remove(world.audit + ".torn");

    auto created = control::ControlPlane::create(world.options, {world.fleet, &world.actuator, nullptr, {}});
    if (!created.plane) {
        watchfloor::fuzz::explain("start-up refused: " + created.error);
        FUZZ_CHECK(!created.error.empty(), "start-up refused without saying why");
        return 0;
    }
    for (const auto& note : created.plane->startupNotes()) watchfloor::fuzz::explain(note);
    // Open repaired the tail: whatever fleetd appends next starts on a line of its own.
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(world.audit, ec);
    if (bytes > 0) {
        FILE* file = std::fopen(world.audit.c_str(), "rb");
        FUZZ_CHECK(file != nullptr, "audit log vanished");
        std::fseek(file, -1, SEEK_END);
        const int c = std::fgetc(file);
        std::fclose(file);
        FUZZ_CHECK(c == '\n', "the log does not end with a whole line after open");
    }
    pageNewestFirst(world.audit, size % 7 == 0 ? 0 : std::uint32_t(size % 5 + 1));
    return 0;
}
