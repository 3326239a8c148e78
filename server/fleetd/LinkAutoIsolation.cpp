#include "LinkAutoIsolation.h"

#include <cmath>

namespace watchfloor::server::fleetd {
namespace v1 = watchfloor::v1;

LinkAutoIsolation::LinkAutoIsolation(Mode mode, control::ControlPlane& plane, LinkLadderBook& book, Post post, Log log)
    : mode_(mode), plane_(plane), book_(book), post_(std::move(post)), log_(std::move(log)) {
    book_.setAutomation(mode_ == Mode::Act, mode_ == Mode::DryRun);
}

std::string LinkAutoIsolation::riskText(const LinkLadderBook::AtStake& stake) {
    if (stake.confirmedError) return "errors prove the BER over the Error line";
    const int percent = int(std::lround(stake.errorOrDown6h * 100));
    // A link the watch still holds at risk from errors over the line in its last polls.
    if (percent < 1) return "errors over the Error line in its last polls";
    return "P(Error or down within 6 h) " + std::to_string(percent) + " %";
}

void LinkAutoIsolation::consider(std::int64_t nowUnixMs) {
    std::map<std::string, std::string> refused;
    {
        std::lock_guard lock(refusedMutex_);
        refused.swap(refused_);
    }
    for (const auto& [link, why] : refused) {
        posted_.erase(link);
        retryAtMs_[link] = nowUnixMs + kRetryAfterMs;
        book_.propose(link, "automation could not isolate it: " + why + "; a person decides", nowUnixMs);
    }
    for (const auto& [link, stake] : book_.listed()) {
        if (!stake.atRisk) continue;
        const auto entry = book_.get(link);
        const v1::LinkStage stage = entry ? entry->stage : v1::LINK_STAGE_UNSPECIFIED;
        if (stage != v1::LINK_STAGE_UNSPECIFIED && stage != v1::LINK_STAGE_WATCH && stage != v1::LINK_STAGE_PROPOSED) {
            posted_.erase(link);  // on the ladder: its steps are the operation's, then people's
            continue;
        }
        if (const auto retry = retryAtMs_.find(link); retry != retryAtMs_.end()) {
            if (nowUnixMs < retry->second) continue;
            retryAtMs_.erase(retry);
        }
        if (mode_ == Mode::DryRun) {
            book_.propose(link, "dry run: automation would isolate it (" + riskText(stake) + ")", nowUnixMs);
            continue;
        }
        if (posted_.count(link)) continue;
        if (book_.isolatedNow() >= book_.budget()) {
            book_.propose(link,
                          "over the isolation budget (" + std::to_string(book_.budget()) +
                              " links): " + riskText(stake) + "; a person decides",
                          nowUnixMs);
            continue;
        }
        isolate(link, stake, nowUnixMs);
    }
}

void LinkAutoIsolation::isolate(const std::string& link, const LinkLadderBook::AtStake& stake, std::int64_t nowUnixMs) {
    v1::ActionRequest request;
    request.set_request_id("auto-isolate-" + link + "-" +
                           std::to_string(book_.isolationsWithin30Days(link, nowUnixMs) + 1));
    request.set_type(v1::ACTION_TYPE_ISOLATE_LINK);
    request.set_link_name(link);
    // A planned drain costs a restart; once the errors prove it over the line, waiting is a gamble.
    request.set_at_next_checkpoint(!stake.confirmedError);
    request.set_reason(link + ": " + riskText(stake) +
                       (stake.confirmedError ? ": isolated now" : ": isolated at the next checkpoint"));
    posted_.insert(link);
    post_([this, request, link] {
        const control::OperationResult result = plane_.engine().execute(control::Caller::automation(), request);
        if (result.status.ok()) {
            log_("automation isolates " + link + " (" + result.operation.id() + "): " + request.reason());
            return;
        }
        std::lock_guard lock(refusedMutex_);
        refused_[link] = result.status.error_message();
    });
}

}  // namespace watchfloor::server::fleetd
