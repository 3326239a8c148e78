#include "CoolingMapper.h"

#include "SourceHandoff.h"

#include <cmath>
#include <limits>
#include <set>

namespace watchfloor::server::redfish {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::size_t kMostWarnings = 8;
constexpr double kKpaPerBar = 100.0;

float valueOf(const std::optional<double>& reading) {
    return reading ? static_cast<float>(*reading) : std::numeric_limits<float>::quiet_NaN();
}

void push(FleetChanges& out, std::uint32_t entity, v1::Metric metric, float value, std::int64_t timeMs) {
    out.samples.push_back({entity, metric, value});
    out.sampleTimesMs.push_back(timeMs);
}

bool wet(const std::string& state) { return state == "Critical" || state == "Warning"; }

// What the detector's controller does by itself, in the schema's words.
std::string reactionText(const LeakDetectorDoc& d) {
    const std::string& reaction = d.detectorState == "Warning" ? d.warningReaction : d.criticalReaction;
    const std::string property = d.detectorState == "Warning" ? "WarningReactionType" : "CriticalReactionType";
    if (reaction.empty()) return "no reaction policy published (" + property + " not given)";
    if (reaction == "None") return "the controller takes no action itself (" + property + " None)";
    const std::string delay =
        d.reactionDelaySeconds ? " after " + std::to_string(*d.reactionDelaySeconds) + " s" : std::string();
    return "the controller will " + std::string(reaction == "ForceOff" ? "force off" : "gracefully shut down") +
           " the equipment it watches" + delay + " (" + property + " " + reaction + ")";
}

}  // namespace

struct CoolingMapper::Notes {
    std::uint64_t series = 0, unmapped = 0, malformed = 0;
    std::uint32_t cdusUp = 0, cdusDown = 0;
    std::set<std::uint32_t> racksRead;  // a connector of the rack answered
    std::vector<std::string> warnings;
    std::string firstError;

    // Something that went wrong (the status's last_error names the first), or only a note.
    void fail(std::string text) {
        if (firstError.empty()) firstError = text;
        warn(std::move(text));
    }
    void warn(std::string text) {
        if (warnings.size() < kMostWarnings) warnings.push_back(std::move(text));
    }
};

CoolingMapper::CoolingMapper(const v1::Topology& topology, const CoolingMap& map, std::string sourceName)
    : topology_(topology), map_(map), status_(initialStatus(sourceName)) {}

v1::SourceStatus CoolingMapper::initialStatus(const std::string& sourceName) {
    v1::SourceStatus status;
    status.set_name(sourceName);
    status.set_kind("redfish");
    return status;
}

void CoolingMapper::apply(const CoolingReadout& readout, std::int64_t pollUnixMs, double seconds, FleetChanges& out) {
    Notes notes;
    if (readout.ok && !readout.error.empty()) notes.warn(readout.error);
    for (const auto& cdu : readout.cdus) {
        if (!cdu.ok) {
            ++notes.cdusDown;
            notes.fail("CDU " + cdu.path + ": " + cdu.error);
            continue;
        }
        ++notes.cdusUp;
        if (map_.racksOf(cdu.unit.id).empty()) {
            ++notes.unmapped;
            notes.warn("CDU " + cdu.unit.id + " feeds no rack of the fleet file (cdu=): not drawn");
            continue;
        }
        for (const auto& e : cdu.partErrors) notes.fail("CDU " + cdu.unit.id + ": " + e);
        mapConnectors(cdu, notes, out);
        mapDetectors(cdu, pollUnixMs, notes, out);
        mapPumps(cdu, pollUnixMs, notes, out);
        partAlarms(cdu, pollUnixMs, out);
    }
    if (readout.ok)
        for (const auto& rack : map_.racks())
            if (!notes.racksRead.count(rack.rackIndex))
                notes.warn("rack " + rack.rackName + ": no reading from connector " + rack.connector + " of CDU " +
                           rack.cdu + " (its values are kept and age)");
    updateStatus(readout, notes, pollUnixMs, seconds, out);
}

void CoolingMapper::mapConnectors(const CduReadout& cdu, Notes& notes, FleetChanges& out) {
    for (const auto& [c, readMs] : cdu.secondary) {
        const RackCooling* rack = map_.byConnector(cdu.unit.id, c.id);
        if (!rack) {
            ++notes.unmapped;
            notes.warn("connector " + c.id + " of CDU " + cdu.unit.id +
                       " feeds no rack of the fleet file (connector=)");
            continue;
        }
        if (c.malformedReadings) {
            notes.malformed += c.malformedReadings;
            notes.fail("connector " + c.id + " of CDU " + cdu.unit.id + ": " + std::to_string(c.malformedReadings) +
                       " readings that are not SensorExcerpts (shown blank)");
        }
        notes.racksRead.insert(rack->rackIndex);
        const std::uint32_t loop = rack->loopIndex;
        push(out, loop, v1::RACK_LIQUID_FLOW_LPM, valueOf(c.flowLitersPerMinute), readMs);
        push(out, loop, v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C, valueOf(c.supplyTemperatureCelsius), readMs);
        push(out, loop, v1::RACK_LIQUID_RETURN_TEMPERATURE_C, valueOf(c.returnTemperatureCelsius), readMs);
        push(out, loop, v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR,
             c.deltaPressurekPa ? float(*c.deltaPressurekPa / kKpaPerBar) : std::numeric_limits<float>::quiet_NaN(),
             readMs);
        push(out, loop, v1::RACK_CONTROL_VALVE_POSITION_PCT, valueOf(c.valvePositionPercent), readMs);
        notes.series += 5;
    }
}

void CoolingMapper::mapDetectors(const CduReadout& cdu, std::int64_t pollUnixMs, Notes& notes, FleetChanges& out) {
    struct Counts {
        float wet = 0, faulted = 0;
        std::int64_t readMs = 0;
    };
    std::map<std::uint32_t, Counts> byLoop;
    for (const auto& [d, readMs] : cdu.detectors) {
        const RackCooling* rack = map_.byDetector(cdu.unit.id, d.id);
        auto& before = detectorStates_[{cdu.unit.id, d.id}];
        if (d.detectorState != before && !(before.empty() && d.detectorState == "OK"))
            detectorEvent(cdu.unit.id, d, before, readMs ? readMs : pollUnixMs, out);
        before = d.detectorState;
        if (!rack) continue;  // the CDU's own detectors: events only, on the racks it feeds
        Counts& counts = byLoop[rack->loopIndex];
        counts.wet += wet(d.detectorState) ? 1.0f : 0.0f;
        counts.faulted += d.detectorState == "Unavailable" ? 1.0f : 0.0f;
        counts.readMs = std::max(counts.readMs, readMs);
    }
    for (const auto& [loop, counts] : byLoop) {
        push(out, loop, v1::RACK_LEAK_DETECT, counts.wet, counts.readMs);
        push(out, loop, v1::RACK_LEAK_SENSOR_FAULT, counts.faulted, counts.readMs);
        notes.series += 2;
    }
}

void CoolingMapper::mapPumps(const CduReadout& cdu, std::int64_t pollUnixMs, Notes& notes, FleetChanges& out) {
    if (!cdu.pumpsRead) return;
    float running = 0;
    for (const auto& pump : cdu.pumps)
        running += pump.status.state == "Enabled" && pump.status.health != "Critical" ? 1.0f : 0.0f;
    for (const RackCooling* rack : map_.racksOf(cdu.unit.id)) {
        push(out, rack->loopIndex, v1::CDU_PUMPS_RUNNING, running, pollUnixMs);
        ++notes.series;
    }
}

void CoolingMapper::partAlarms(const CduReadout& cdu, std::int64_t pollUnixMs, FleetChanges& out) {
    auto check = [&](const std::string& part, std::string condition) {
        if (condition.empty()) return;
        auto& before = partHealth_[{cdu.unit.id, part}];
        const bool quiet = condition == "OK";
        if (condition != before && !(before.empty() && quiet)) {
            v1::Event e;
            e.set_time_unix_ms(pollUnixMs);
            e.set_type(v1::EVENT_TYPE_CDU_ALARM);
            e.set_cause("cdu_" + part.substr(0, part.find(' ')));
            e.set_severity(quiet                     ? v1::SEVERITY_INFO
                           : condition == "Critical" ? v1::SEVERITY_CRITICAL
                                                     : v1::SEVERITY_WARNING);
            e.set_message("CDU " + cdu.unit.id + ": " + part + " " + (quiet ? "back to OK" : "is " + condition) +
                          (before.empty() ? std::string() : " (was " + before + ")"));
            e.set_entity_index(topology_.fleet_index());
            for (const RackCooling* fed : map_.racksOf(cdu.unit.id)) e.add_related_entity_indexes(fed->rackIndex);
            out.events.push_back(std::move(e));
        }
        before = std::move(condition);
    };
    for (const auto& pump : cdu.pumps) check("pump " + pump.id, pump.status.health);
    for (const auto& filter : cdu.filters) check("filter " + filter.id, filter.status.health);
    for (const auto& reservoir : cdu.reservoirs) {
        check("reservoir " + reservoir.id, reservoir.status.health);
        check("reservoir " + reservoir.id + " fluid level", reservoir.fluidLevelStatus);
    }
}

void CoolingMapper::detectorEvent(const std::string& cdu, const LeakDetectorDoc& d, const std::string& before,
                                  std::int64_t timeMs, FleetChanges& out) const {
    const RackCooling* rack = map_.byDetector(cdu, d.id);
    v1::Event e;
    e.set_time_unix_ms(timeMs);
    const std::string where = rack ? rack->rackName + ": leak detector " + d.id + " (CDU " + cdu + ")"
                                   : "CDU " + cdu + ": its own leak detector " + d.id;
    const std::string type = d.detectorType.empty() ? std::string() : " [" + d.detectorType + "]";
    const std::string was = before.empty() ? std::string() : " (was " + before + ")";
    if (wet(d.detectorState)) {
        e.set_type(v1::EVENT_TYPE_LEAK);
        e.set_cause("leak");
        e.set_severity(d.detectorState == "Critical" ? v1::SEVERITY_CRITICAL : v1::SEVERITY_WARNING);
        e.set_message(where + type + " reports a " + (d.detectorState == "Critical" ? "critical" : "warning-level") +
                      " leak" + was + "; " + reactionText(d));
    } else if (d.detectorState == "OK") {
        e.set_type(v1::EVENT_TYPE_LEAK);
        e.set_cause("leak_cleared");
        e.set_severity(v1::SEVERITY_INFO);
        e.set_message(where + type + " is dry again" + was);
    } else {
        e.set_type(v1::EVENT_TYPE_CDU_ALARM);
        e.set_cause("leak_sensor_fault");
        e.set_severity(v1::SEVERITY_WARNING);
        e.set_message(where + type + " gives no reading: DetectorState " +
                      (d.detectorState.empty() ? std::string("null") : d.detectorState) + was);
    }
    if (rack) {
        e.set_entity_index(rack->loopIndex);
        e.add_related_entity_indexes(rack->rackIndex);
    } else {
        e.set_entity_index(topology_.fleet_index());
        for (const RackCooling* fed : map_.racksOf(cdu)) e.add_related_entity_indexes(fed->rackIndex);
    }
    out.events.push_back(std::move(e));
}

void CoolingMapper::updateStatus(const CoolingReadout& readout, const Notes& notes, std::int64_t pollUnixMs,
                                 double seconds, FleetChanges& out) {
    const v1::SourceHealth before = status_.health();
    status_.set_last_poll_unix_ms(pollUnixMs);
    status_.set_last_poll_duration_s(seconds);
    status_.set_targets(std::uint32_t(readout.cdus.size()));
    status_.set_targets_up(notes.cdusUp);
    status_.set_targets_down(notes.cdusDown);
    status_.clear_warnings();
    const bool down = !readout.ok || (notes.cdusUp == 0 && !readout.cdus.empty());
    if (down) {
        status_.set_health(v1::SOURCE_HEALTH_DOWN);
        status_.set_last_error(!readout.ok ? readout.error : notes.firstError);
        for (const auto& w : notes.warnings) status_.add_warnings(w);
    } else {
        status_.set_last_good_poll_unix_ms(pollUnixMs);
        status_.set_series(notes.series);
        status_.set_unmapped_series(notes.unmapped);
        for (const auto& w : notes.warnings) status_.add_warnings(w);
        const bool degraded = !notes.warnings.empty() || readout.failedRequests > 0;
        status_.set_health(degraded ? v1::SOURCE_HEALTH_DEGRADED : v1::SOURCE_HEALTH_UP);
        status_.set_last_error(readout.failedRequests ? std::to_string(readout.failedRequests) + " of " +
                                                            std::to_string(readout.requests) +
                                                            " requests failed; first: " + notes.firstError
                                                      : notes.firstError);
    }
    out.sources.push_back(status_);
    noteSourceTransition(
        before, status_, pollUnixMs, topology_.fleet_index(),
        status_.name() + " is not answering (" + status_.last_error() + "): cooling values are kept and shown stale",
        status_.name() + " answers again", out);
}

}  // namespace watchfloor::server::redfish
