#include "CableJudgement.h"

namespace watchfloor::server {

CableJudgement judgeCable(const SymbolBerEstimate& host, const SymbolBerEstimate* switchEnd) {
    CableJudgement out;
    const bool hostSeen = host.verdict != BerVerdict::NoData;
    const bool switchSeen = switchEnd && switchEnd->verdict != BerVerdict::NoData;
    out.oneEndSeen = !(hostSeen && switchSeen);
    out.verdict = host.verdict;
    out.worstEnd = LinkEnd::Host;
    if (switchSeen && (!hostSeen || berVerdictRank(switchEnd->verdict) > berVerdictRank(host.verdict))) {
        out.verdict = switchEnd->verdict;
        out.worstEnd = LinkEnd::Switch;
    }
    return out;
}

bool linkDownConfirmed(std::uint32_t hostRises, std::uint32_t switchRises, bool switchSeen) {
    return switchSeen && hostRises > 0 && switchRises > 0;
}

}  // namespace watchfloor::server
