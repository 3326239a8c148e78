#pragma once
// Both ends of one cable judged together (docs/domain/link-health.md section 6, item 4): each end
// counts the errors of the direction it receives, so the cable is as bad as its worse end; with
// only the host end seen the verdict says so. A link-down counts only when both ends' link_downed
// rose (UFM PDR's check_link_down_issue); one end rising alone, or one end's counters dropping
// to 0, is a counter event at that end and never a reason to isolate.

#include "SymbolBerEstimate.h"

#include <cstdint>

namespace watchfloor::server {

enum class LinkEnd : std::uint8_t { Host = 0, Switch = 1 };

struct CableJudgement {
    BerVerdict verdict = BerVerdict::NoData;
    LinkEnd worstEnd = LinkEnd::Host;
    bool oneEndSeen = true;  // the other end has no data (not exported, down, or no store has it)
};

// `switchEnd` may be null when no source has the far end.
CableJudgement judgeCable(const SymbolBerEstimate& host, const SymbolBerEstimate* switchEnd);

// Link-downed rises seen at each end within one coincidence window: a link-down of the cable
// only when both rose; with the far end unseen a rise is unconfirmed [A].
bool linkDownConfirmed(std::uint32_t hostRises, std::uint32_t switchRises, bool switchSeen);

}  // namespace watchfloor::server
