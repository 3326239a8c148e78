#include "LinkStreamValues.h"

#include <cmath>

namespace watchfloor::server {
namespace v1 = watchfloor::v1;

v1::LinkVerdict linkVerdictOf(BerVerdict verdict) {
    switch (verdict) {
    case BerVerdict::NoData: return v1::LINK_VERDICT_NO_DATA;
    case BerVerdict::Judging: return v1::LINK_VERDICT_JUDGING;
    case BerVerdict::Normal: return v1::LINK_VERDICT_NORMAL;
    case BerVerdict::Elevated: return v1::LINK_VERDICT_ELEVATED;
    case BerVerdict::Saturated: return v1::LINK_VERDICT_SATURATED;
    case BerVerdict::Warning: return v1::LINK_VERDICT_WARNING;
    case BerVerdict::Error: return v1::LINK_VERDICT_ERROR;
    }
    return v1::LINK_VERDICT_UNSPECIFIED;
}

double shownDigits(double x) {
    if (!std::isfinite(x) || x == 0) return x;
    const double scale = std::pow(10.0, 2 - std::floor(std::log10(std::fabs(x))));
    return std::round(x * scale) / scale;
}

}  // namespace watchfloor::server
