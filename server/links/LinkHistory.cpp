#include "LinkHistory.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace watchfloor::server {

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

template <typename T>
void addSaturating(T& slot, std::uint64_t value) {
    const std::uint64_t sum = std::uint64_t(slot) + value;
    slot = static_cast<T>(std::min<std::uint64_t>(sum, std::numeric_limits<T>::max()));
}

}  // namespace

void LinkHistory::advanceTo(std::int64_t nowMs) {
    const std::int64_t number = floorDiv(nowMs, kBucketMs);
    if (bucketNumber_ < 0) {
        bucketNumber_ = number;
        dayNumber_ = static_cast<std::int32_t>(floorDiv(nowMs, kDayMs));
        return;
    }
    // A long silence needs no more than a ring's worth of empty buckets.
    if (number - bucketNumber_ > kBuckets + 1) {
        completeBucket();
        bucketNumber_ = number - kBuckets - 1;
    }
    while (bucketNumber_ < number) completeBucket();
}

void LinkHistory::completeBucket() {
    const std::int32_t day = static_cast<std::int32_t>(floorDiv(bucketNumber_ * kBucketMs, kDayMs));
    if (day > dayNumber_) {
        days_[dayHead_] = today_;
        dayHead_ = static_cast<std::uint8_t>((dayHead_ + 1) % kDays);
        daysFilled_ = static_cast<std::uint8_t>(std::min(kDays, daysFilled_ + 1));
        today_ = {};
        dayNumber_ = day;
    }
    for (int end = 0; end < 2; ++end) {
        today_.bits[end] += current_.bits[end];
        addSaturating(today_.errors[end], current_.errors[end]);
    }
    today_.packets += current_.packets;
    addSaturating(today_.packetErrors, current_.packetErrors);
    addSaturating(today_.downs, current_.downs);
    addSaturating(today_.recoveries, current_.recoveries);
    ring_[head_] = current_;
    head_ = static_cast<std::uint8_t>((head_ + 1) % kBuckets);
    filled_ = static_cast<std::uint8_t>(std::min(kBuckets, filled_ + 1));
    current_ = {};
    ++bucketNumber_;
}

void LinkHistory::addSymbol(LinkEnd end, double bits, std::uint32_t errors) {
    const int i = static_cast<int>(end);
    current_.bits[i] += static_cast<float>(bits);
    addSaturating(current_.errors[i], errors);
}

void LinkHistory::addPackets(double packets, std::uint32_t errors) {
    current_.packets += static_cast<float>(packets);
    addSaturating(current_.packetErrors, errors);
}

void LinkHistory::addDown() { addSaturating(current_.downs, 1); }

void LinkHistory::addRecoveries(std::uint32_t count) { addSaturating(current_.recoveries, count); }

void LinkHistory::addTemperature(std::int64_t nowMs, float celsius) {
    if (!std::isfinite(celsius)) return;
    today_.temperatureSum += celsius;
    ++today_.temperatureCount;
    if (!temperatureSeen_) {
        temperature_ = celsius;
        temperatureSeen_ = true;
    } else {
        // An hour's exponential average, whatever the poll interval.
        const double dt = double(std::max<std::int64_t>(0, nowMs - temperatureMs_)) / 3'600'000.0;
        const double keep = std::exp(-dt);
        temperature_ = static_cast<float>(keep * temperature_ + (1 - keep) * celsius);
    }
    temperatureMs_ = nowMs;
}

void LinkHistory::restart() {
    for (auto& b : ring_) b = {};
    current_ = {};
    filled_ = 0;
}

LinkDay LinkHistory::baseline() const {
    LinkDay sum;
    for (int i = 0; i < daysFilled_; ++i) {
        const LinkDay& d = days_[i];
        for (int end = 0; end < 2; ++end) {
            sum.bits[end] += d.bits[end];
            sum.errors[end] += d.errors[end];
        }
        sum.packets += d.packets;
        sum.packetErrors += d.packetErrors;
        sum.downs = static_cast<std::uint16_t>(sum.downs + d.downs);
        sum.recoveries = static_cast<std::uint16_t>(sum.recoveries + d.recoveries);
        sum.temperatureSum += d.temperatureSum;
        sum.temperatureCount += d.temperatureCount;
    }
    return sum;
}

float LinkHistory::recentTemperature() const {
    return temperatureSeen_ ? temperature_ : std::numeric_limits<float>::quiet_NaN();
}

}  // namespace watchfloor::server
