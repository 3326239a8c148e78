#pragma once
// Turns rates the twin reports (GPU board power, NIC throughput) into the running totals real
// exporters publish (energy in mJ, data octets). Each rate is held until the next read sees a
// newer one, so a total only grows and reads never change what the twin computed. Thread-safe:
// scrapes of different hosts run concurrently.

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace watchfloor::server::exporters {

class RateIntegrator {
public:
    // Adds the rate remembered for `key` times the time from its previous read to `nowMs`, then
    // remembers `ratePerMs` for the next interval. The first read of a key starts its total at 0.
    // Returns the total. A `nowMs` earlier than the previous read adds nothing.
    double advance(std::uint64_t key, std::int64_t nowMs, double ratePerMs);

private:
    struct Running {
        double total = 0;
        std::int64_t lastMs = 0;
        double ratePerMs = 0;
    };
    std::mutex mu_;
    std::unordered_map<std::uint64_t, Running> running_;
};

}  // namespace watchfloor::server::exporters
