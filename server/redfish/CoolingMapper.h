#pragma once
// A Redfish cooling readout onto the fleet: each mapped secondary connector's readings as its
// rack loop's metrics (the same ones the twin publishes), each rack's leak detectors as the
// loop's wet and faulted sensor counts, a CDU's running pumps on every loop it feeds, one event
// per leak-detector transition (a Critical detector is a leak on its rack, with the reaction
// policy the detector's own controller applies), one CDU alarm per change of a pump's, filter's or
// reservoir's health, and the source's status. Keeps what it needs to
// see transitions between polls; used from the poll thread only.

#include "CoolingMap.h"
#include "CoolingReader.h"
#include "FleetChanges.h"

#include <map>
#include <string>

namespace watchfloor::server::redfish {

class CoolingMapper {
public:
    CoolingMapper(const watchfloor::v1::Topology& topology, const CoolingMap& map, std::string sourceName);

    // Samples, events and the status (always) of one poll at `pollUnixMs` into `out`.
    void apply(const CoolingReadout& readout, std::int64_t pollUnixMs, double seconds,
               watchfloor::server::FleetChanges& out);

    const watchfloor::v1::SourceStatus& status() const { return status_; }
    static watchfloor::v1::SourceStatus initialStatus(const std::string& sourceName);

private:
    struct Notes;
    void mapConnectors(const CduReadout& cdu, Notes& notes, FleetChanges& out);
    void mapDetectors(const CduReadout& cdu, std::int64_t pollUnixMs, Notes& notes, FleetChanges& out);
    void mapPumps(const CduReadout& cdu, std::int64_t pollUnixMs, Notes& notes, FleetChanges& out);
    // Pumps, filters and reservoirs: one CDU alarm per change of health (or fluid level).
    void partAlarms(const CduReadout& cdu, std::int64_t pollUnixMs, FleetChanges& out);
    void detectorEvent(const std::string& cdu, const LeakDetectorDoc& detector, const std::string& before,
                       std::int64_t timeMs, FleetChanges& out) const;
    void updateStatus(const CoolingReadout& readout, const Notes& notes, std::int64_t pollUnixMs, double seconds,
                      FleetChanges& out);

    const watchfloor::v1::Topology& topology_;
    const CoolingMap& map_;
    std::map<std::pair<std::string, std::string>, std::string> detectorStates_;  // (cdu, detector) -> state
    std::map<std::pair<std::string, std::string>, std::string> partHealth_;      // (cdu, "Pump 2") -> health
    watchfloor::v1::SourceStatus status_;
};

}  // namespace watchfloor::server::redfish
