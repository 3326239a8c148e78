#pragma once
// How fleetd's link keepers put a verdict on the stream: the proto's LinkVerdict of a BerVerdict,
// and numbers at the three significant digits the console shows (a record is sent again when a
// shown number moves, not on every float wobble). Shared by LinkHealthKeeper (rail links) and
// NvlinkHealthKeeper (NVLink5).

#include "SymbolBerEstimate.h"

#include "watchfloor/v1/fleet.pb.h"

namespace watchfloor::server {

watchfloor::v1::LinkVerdict linkVerdictOf(BerVerdict verdict);
// x at three significant digits; 0, NaN and infinities unchanged.
double shownDigits(double x);

}  // namespace watchfloor::server
