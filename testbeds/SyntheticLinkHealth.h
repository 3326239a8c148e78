#pragma once
// fleetd's link health records (fleet.proto LinkHealth) as a test writes them: one end's BER (a
// point, an upper bound, still judging), a rail link with its verdict and forecast, the recent
// 30-min buckets of a link drifting toward the Error line (the first ones quiet: upper bounds
// only), and a summary. For the console's tests, which feed them through a Snapshot or Delta.

#include "watchfloor/v1/fleet.pb.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace watchfloor::testing {

inline watchfloor::v1::LinkBer linkBerPoint(double point, watchfloor::v1::LinkVerdict verdict) {
    watchfloor::v1::LinkBer b;
    b.set_verdict(verdict);
    b.set_point(point);
    b.set_lower(point * 0.7);
    b.set_upper(point * 1.4);
    b.set_errors(120);
    b.set_bits(120 / point);
    return b;
}

inline watchfloor::v1::LinkBer linkBerUpper(double upper) {
    watchfloor::v1::LinkBer b;
    b.set_verdict(watchfloor::v1::LINK_VERDICT_NORMAL);
    b.set_upper(upper);
    b.set_upper_only(true);
    b.set_bits(3.0 / upper);
    return b;
}

inline watchfloor::v1::LinkBer linkBerNoData() {
    watchfloor::v1::LinkBer b;
    b.set_verdict(watchfloor::v1::LINK_VERDICT_NO_DATA);
    return b;
}

inline watchfloor::v1::LinkHealth linkHealth(std::uint32_t port, const std::string& name,
                                             watchfloor::v1::LinkVerdict verdict, bool atRisk, double p1h, double p6h,
                                             double p24h, std::int64_t nowMs) {
    watchfloor::v1::LinkHealth h;
    h.set_nic_port_index(port);
    h.set_name(name);
    h.set_verdict(verdict);
    h.set_at_risk(atRisk);
    h.set_stage(watchfloor::v1::LINK_STAGE_WATCH);
    h.set_stage_since_unix_ms(nowMs);
    h.set_packet_error_ratio(-1);
    watchfloor::v1::LinkForecast& f = *h.mutable_forecast();
    f.set_p_error_or_down_1h(p1h);
    f.set_p_error_or_down_6h(p6h);
    f.set_p_error_or_down_24h(p24h);
    f.set_hours_to_warning(-1);
    f.set_hours_to_error(-1);
    f.set_hours_to_error_low(-1);
    f.set_hours_to_error_high(-1);
    return h;
}

// `count` buckets 30 min apart ending at `nowMs`, oldest first: the BER grows from `firstBer` by
// `decadesPerDay`; the first `quiet` buckets saw no error (upper bound only, point 0 as fleetd sends,
// the bound of 30 min at 400 Gb/s).
inline void addDriftingHistory(watchfloor::v1::LinkForecast& f, std::int64_t nowMs, int count, double firstBer,
                               double decadesPerDay, int quiet) {
    constexpr std::int64_t kBucketMs = 30 * 60'000;
    for (int i = 0; i < count; ++i) {
        watchfloor::v1::LinkBerPoint* p = f.add_history();
        p->set_time_unix_ms(nowMs - std::int64_t(count - 1 - i) * kBucketMs);
        const double ber = firstBer * std::pow(10.0, decadesPerDay * (double(i) * 0.5 / 24.0));
        if (i < quiet) {
            // No error in 30 min at 400 Gb/s (7.2e14 bits): under 3 / 7.2e14 with 95 %.
            p->set_upper_only(true);
            p->set_ber(0);
            p->set_upper(4.2e-15);
        } else {
            p->set_ber(ber);
            p->set_upper(ber * 1.6);
        }
    }
    f.set_decades_per_day(decadesPerDay);
}

inline watchfloor::v1::LinkHealthSummary linkSummary(std::uint32_t links, std::uint32_t judged, std::uint32_t atRisk) {
    watchfloor::v1::LinkHealthSummary s;
    s.set_links(links);
    s.set_judged(judged);
    s.set_at_risk(atRisk);
    s.set_isolation_budget(10);
    return s;
}

}  // namespace watchfloor::testing
