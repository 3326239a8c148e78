#pragma once
// Operator actions on their way from other threads (gRPC handlers, TwinActuator) into the twin's
// tick. Apart from the twin so the lock and the promises stay out of the coordinator: the tick
// only asks for the queued requests to be applied, in request order, and each ticket is fulfilled
// after the tick published their effects, so whoever waits on it reads a view that has them.

#include "TwinActions.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>

namespace watchfloor::server::sim {

class ActionQueue {
public:
    // Thread-safe.
    TwinActionTicket request(TwinAction action);
    // Removes a request not yet applied (its ticket says so); false when it already ran (or never
    // existed). Thread-safe.
    bool withdraw(std::uint64_t ticketId);

    // The tick: every request queued so far through `apply`, in request order, then `applied()`,
    // then their tickets. Nothing at all when none is queued.
    void applyAll(const std::function<TwinActionResult(const TwinAction&)>& apply,
                  const std::function<void()>& applied);

private:
    struct Pending {
        std::uint64_t id = 0;
        TwinAction action;
        std::promise<TwinActionResult> result;
    };

    std::mutex mutex_;
    std::deque<Pending> pending_;
    std::uint64_t nextTicket_ = 1;
};

}  // namespace watchfloor::server::sim
