#include "RateIntegrator.h"

namespace watchfloor::server::exporters {

double RateIntegrator::advance(std::uint64_t key, std::int64_t nowMs, double ratePerMs) {
    std::lock_guard lock(mu_);
    auto [it, inserted] = running_.try_emplace(key);
    Running& r = it->second;
    if (inserted) {
        r.lastMs = nowMs;
    } else if (nowMs > r.lastMs) {
        r.total += r.ratePerMs * static_cast<double>(nowMs - r.lastMs);
        r.lastMs = nowMs;
    }
    r.ratePerMs = ratePerMs;
    return r.total;
}

}  // namespace watchfloor::server::exporters
