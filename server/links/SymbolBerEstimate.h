#pragma once
// One port's symbol BER over a window, judged against NVIDIA's lines the honest way
// (docs/domain/link-health.md sections 2 and 6): a quiet port is an upper bound, never 0; Normal
// only once the window carries 3e15 bits; Warning or Error as soon as the interval's lower bound
// alone is above the line; a saturated counter has no rate.

#include "LinkThresholds.h"

#include <cstdint>
#include <string>

namespace watchfloor::server {

enum class BerVerdict : std::uint8_t {
    NoData,     // no bits carried (never seen, down, no rate)
    Judging,    // not enough bits yet for Normal, nothing above a line yet
    Normal,     // a full window, point estimate at or under the Normal line
    Elevated,   // a full window, point above Normal, not provably above Warning
    Saturated,  // the counter sits at 65,535: rate unknown until it is cleared
    Warning,    // 95 % lower bound above the Warning line
    Error,      // 95 % lower bound above the Error line
};

const char* berVerdictName(BerVerdict verdict);
// How bad, for combining ends and ranking: NoData < Normal < Judging < Elevated < Saturated < Warning < Error.
int berVerdictRank(BerVerdict verdict);

struct SymbolBerEstimate {
    BerVerdict verdict = BerVerdict::NoData;
    double point = 0;  // errors / bits
    double lower = 0;  // one-sided 95 % each
    double upper = 0;
    bool upperOnly = false;  // zero errors: "≤ upper, 95 %"
    double errors = 0;
    double bits = 0;
    double windowSeconds = 0;  // port time active at both samples inside the window
    double neededSeconds = 0;  // the seconds that carry kJudgingWindowBits at the port's rate

    // "≤ 1.0e-15 (95 %)", "1.0e-15 (2.7e-16 … 2.6e-15)", "judging, 37 of 125 min", "no BER", "saturated".
    std::string text() const;
};

// `bitsPerSecond` is the port's current line rate (to say how long the window still needs);
// `saturated` when the counter is stuck at its maximum.
SymbolBerEstimate judgeSymbolBer(double errors, double bits, double bitsPerSecond, bool saturated,
                                 const SymbolBerLines& lines = {});

// Packet errors over packets received against PDR's MAX_PDR (1e-12).
struct PacketErrorEstimate {
    double ratio = 0;
    double lower = 0;
    double upper = 0;
    double packets = 0;
    bool known = false;     // packets > 0: a link with no traffic has no ratio, not 0
    bool overLine = false;  // 95 % lower bound above kPacketErrorLine
};
PacketErrorEstimate judgePacketErrors(double errors, double packets);

}  // namespace watchfloor::server
