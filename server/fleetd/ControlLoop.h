#pragma once
// The control plane's own thread in fleetd: ticks the operations engine about once a second
// (approval expiry, DRAINING -> DRAINED), feeds Xid sightings to automatic draining and runs the
// tasks the tick's tray automation posts (fail-slow evictions, lifecycle changes).
//
// Never the telemetry tick thread: an automated drain waits for the digital twin to apply it,
// and only the tick thread applies twin actions, so draining from there would deadlock.

#include "ControlPlane.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace watchfloor::server::fleetd {

struct XidSighting {
    std::string node;       // "r01-n03"
    std::uint32_t gpu = 0;  // local id within the tray, 0..3
    std::uint32_t xid = 0;
    std::uint64_t eventId = 0;
};

class ControlLoop {
public:
    using Log = std::function<void(const std::string&)>;

    ControlLoop(control::ControlPlane& plane, std::chrono::milliseconds tickPeriod, Log log);
    ~ControlLoop();
    ControlLoop(const ControlLoop&) = delete;
    ControlLoop& operator=(const ControlLoop&) = delete;

    // Any thread; only queues. Ignored when automatic draining is off.
    void post(XidSighting sighting);
    // Any thread; only queues. Tasks run in order on the loop's thread.
    void post(std::function<void()> task);
    // Any thread; the loop settles the operations an earlier run left interrupted, then logs how.
    void reconcileInterrupted();
    void stop();

private:
    void run();
    void autoDrain(const XidSighting& sighting);
    void reconcile();

    control::ControlPlane& plane_;
    const std::chrono::milliseconds tickPeriod_;
    const Log log_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<XidSighting> sightings_;
    std::deque<std::function<void()>> tasks_;
    bool stopping_ = false;
    bool reconcileRequested_ = false;
    std::thread thread_;
};

}  // namespace watchfloor::server::fleetd
