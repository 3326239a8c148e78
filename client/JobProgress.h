#pragma once
// Where a job is in its life, as the fleet numbers need it: which jobs the goodput averages are
// over, and which have no figures yet.

#include "watchfloor/v1/fleet.pb.h"

namespace watchfloor::client {

// Running, checkpointing or recovering: holding GPUs and counted in the fleet's goodput.
inline bool jobIsActive(const watchfloor::v1::Job& job) {
    return job.state() == watchfloor::v1::JOB_STATE_RUNNING || job.state() == watchfloor::v1::JOB_STATE_CHECKPOINTING ||
           job.state() == watchfloor::v1::JOB_STATE_RECOVERING;
}

// Not finished and no productive step since it first started (initialising, loading, compiling its
// first step). fleetd reports its goodput, ETTR and MFU as 0, which reads as a broken job rather
// than one that is starting: the console shows "starting" until there is a value. A job without
// step telemetry is never "starting" (it has no such figures at all), nor is one whose source
// reports a goodput without a breakdown (a real site's job publishing only its ratios).
inline bool jobIsStarting(const watchfloor::v1::Job& job) {
    return job.state() != watchfloor::v1::JOB_STATE_FINISHED && !job.no_step_telemetry() &&
           job.breakdown().productive_s() <= 0 && job.goodput_ratio() <= 0;
}

}  // namespace watchfloor::client
