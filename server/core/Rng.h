#pragma once
// Deterministic random streams for the twin: xoshiro256** seeded through splitmix64. Each
// concern (topology, failures, cooling, jobs, sample noise) owns its own stream so that turning
// telemetry off or adding a sample does not shift when failures happen.

#include <cmath>
#include <cstdint>

namespace watchfloor::server {

inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class Rng {
public:
    // `stream` separates independent streams drawn from the same seed.
    explicit Rng(std::uint64_t seed = 1, std::uint64_t stream = 0) {
        std::uint64_t s = seed ^ (stream * 0xD1B54A32D192ED03ull);
        for (auto& word : state_) word = splitmix64(s);
    }

    std::uint64_t next() {
        const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
        const std::uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotl(state_[3], 45);
        return result;
    }

    // [0, 1)
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    double uniform(double low, double high) { return low + (high - low) * uniform(); }
    // [0, n)
    std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32); }
    bool chance(double probability) { return uniform() < probability; }
    double exponential(double mean) { return -mean * std::log1p(-uniform()); }
    double normal() {
        // Box-Muller; the second value is dropped to keep the stream position simple.
        const double u1 = 1.0 - uniform();
        const double u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    // Log-normal given its median and the sigma of the underlying normal.
    double logNormal(double median, double sigma) { return median * std::exp(sigma * normal()); }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t state_[4];
};

// Four cheap uniform noise values in [-1, 1) from one draw: per-sample jitter at 1.3 M samples/s.
struct NoiseQuad {
    explicit NoiseQuad(std::uint64_t bits) : bits_(bits) {}
    float operator[](int i) const {
        return static_cast<float>((bits_ >> (16 * i)) & 0xFFFF) * (2.0f / 65536.0f) - 1.0f;
    }

private:
    std::uint64_t bits_;
};

}  // namespace watchfloor::server
