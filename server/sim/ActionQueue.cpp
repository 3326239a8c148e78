#include "ActionQueue.h"

#include <algorithm>
#include <vector>

namespace watchfloor::server::sim {

TwinActionTicket ActionQueue::request(TwinAction action) {
    std::lock_guard lock(mutex_);
    Pending& request = pending_.emplace_back();
    request.id = nextTicket_++;
    request.action = std::move(action);
    return {request.id, request.result.get_future()};
}

bool ActionQueue::withdraw(std::uint64_t ticketId) {
    std::lock_guard lock(mutex_);
    const auto it =
        std::find_if(pending_.begin(), pending_.end(), [ticketId](const Pending& p) { return p.id == ticketId; });
    if (it == pending_.end()) return false;
    it->result.set_value({false, "withdrawn before the twin applied it", {}});
    pending_.erase(it);
    return true;
}

void ActionQueue::applyAll(const std::function<TwinActionResult(const TwinAction&)>& apply,
                           const std::function<void()>& applied) {
    std::deque<Pending> batch;
    {
        std::lock_guard lock(mutex_);
        batch.swap(pending_);
    }
    if (batch.empty()) return;
    std::vector<TwinActionResult> results;
    results.reserve(batch.size());
    for (const auto& request : batch) results.push_back(apply(request.action));
    applied();
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i].result.set_value(std::move(results[i]));
}

}  // namespace watchfloor::server::sim
