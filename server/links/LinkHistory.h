#pragma once
// What one link keeps between polls for its BER window, its trend and its own baseline, in about
// 600 bytes (129,600 rail links at 1,800 racks): 30-minute buckets for the last 8 hours (the BER
// window is the newest buckets that carry 3e15 bits; the trend is fitted over them) and 7 daily
// totals for the 7-day baseline UFM Cyber-AI compares against. Counts saturate rather than wrap:
// a bucket at 65,535 symbol errors is far past every line anyway.

#include "CableJudgement.h"

#include <cstdint>

namespace watchfloor::server {

struct LinkBucket {
    float bits[2] = {0, 0};  // per LinkEnd: bits carried while active, with symbol errors known
    float packets = 0;       // both ends, with packet errors known
    std::uint16_t errors[2] = {0, 0};
    std::uint16_t packetErrors = 0;
    std::uint8_t downs = 0;       // confirmed at both ends
    std::uint8_t recoveries = 0;  // link_error_recovery rises, both ends
};

struct LinkDay {
    float bits[2] = {0, 0};
    std::uint32_t errors[2] = {0, 0};
    float packets = 0;
    std::uint32_t packetErrors = 0;
    std::uint16_t downs = 0;
    std::uint16_t recoveries = 0;
    float temperatureSum = 0;
    std::uint32_t temperatureCount = 0;
};

class LinkHistory {
public:
    static constexpr int kBuckets = 16;
    static constexpr std::int64_t kBucketMs = 30 * 60'000;
    static constexpr int kDays = 7;
    static constexpr std::int64_t kDayMs = 86'400'000;

    // Rolls the buckets (and days) forward to the one holding `nowMs`.
    void advanceTo(std::int64_t nowMs);
    void addSymbol(LinkEnd end, double bits, std::uint32_t errors);
    void addPackets(double packets, std::uint32_t errors);
    void addDown();
    void addRecoveries(std::uint32_t count);
    void addTemperature(std::int64_t nowMs, float celsius);
    // After a treatment: the link is a new link for its BER window and trend (the baseline stays).
    void restart();

    // The partial bucket and then the completed ones, newest first: f(bucket, startMs, endMs).
    template <typename F>
    void forEachNewestFirst(std::int64_t nowMs, F&& f) const {
        if (bucketNumber_ < 0) return;
        const std::int64_t start = bucketNumber_ * kBucketMs;
        f(current_, start, nowMs > start ? nowMs : start + 1);
        for (int age = 1; age <= filled_; ++age) {
            const LinkBucket& b = ring_[(head_ + kBuckets - age) % kBuckets];
            const std::int64_t s = (bucketNumber_ - age) * kBucketMs;
            f(b, s, s + kBucketMs);
        }
    }

    // The completed days summed (up to kDays), and how many there were.
    LinkDay baseline() const;
    int baselineDays() const { return daysFilled_; }
    // Module temperature now (an average over about the last hour), NaN when never reported.
    float recentTemperature() const;

private:
    void completeBucket();

    LinkBucket ring_[kBuckets];
    LinkBucket current_;
    LinkDay days_[kDays];
    LinkDay today_;
    std::int64_t bucketNumber_ = -1;
    std::int32_t dayNumber_ = -1;
    std::int64_t temperatureMs_ = 0;
    float temperature_ = 0;
    std::uint8_t head_ = 0;
    std::uint8_t filled_ = 0;
    std::uint8_t dayHead_ = 0;
    std::uint8_t daysFilled_ = 0;
    bool temperatureSeen_ = false;
};

}  // namespace watchfloor::server
