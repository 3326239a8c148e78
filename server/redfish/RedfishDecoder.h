#pragma once
// Reading the Redfish resources fleetd needs from a facility's cooling service (DMTF Redfish
// 2025.4: CoolingUnit, CoolantConnector, Pump, Filter, Reservoir, LeakDetection, LeakDetector and
// their collections). Each decoder takes one answer body and returns the fields fleetd uses, or
// nothing with a one-line reason: not JSON, not an object, a Redfish error object, not the
// resource type asked for, or a required property missing. Optional readings that are absent,
// null or of the wrong type are left empty, never guessed.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::redfish {

struct ResourceStatus {
    std::string state;   // Status.State ("Enabled", "Absent", ...); empty when not given
    std::string health;  // Status.Health ("OK", "Warning", "Critical"); empty when not given
};

struct CollectionDoc {
    std::vector<std::string> members;  // each member's @odata.id
};

struct CoolingUnitDoc {
    std::string id, name, equipmentType;
    ResourceStatus status;
    // Links to the unit's parts (@odata.id), empty when the unit does not have them.
    std::string primaryConnectors, secondaryConnectors, pumps, filters, reservoirs, leakDetection;
};

struct ConnectorDoc {
    std::string id, name, coolingLoopName;
    ResourceStatus status;
    // SensorExcerpt readings (the property's "Reading"), in the schema's units.
    std::optional<double> flowLitersPerMinute, supplyTemperatureCelsius, returnTemperatureCelsius, deltaPressurekPa,
        valvePositionPercent, heatRemovedkW;
    std::size_t malformedReadings = 0;  // a reading property that was not a SensorExcerpt
};

struct LeakDetectionDoc {
    // The detectors its groups list (each excerpt's DataSourceUri: the LeakDetector resource, in
    // Redfish 2025 under the equipment's chassis), and the LeakDetectors collection that older
    // services link instead (deprecated in LeakDetection v1.2); either may be empty, not both.
    std::vector<std::string> detectorUris;
    std::string leakDetectors;
};

struct LeakDetectorDoc {
    std::string id, name, detectorType;
    std::string detectorState;                      // OK, Warning, Critical, Unavailable, Absent; empty: null
    std::string criticalReaction, warningReaction;  // None, ForceOff, GracefulShutdown; empty: not given
    std::optional<long long> reactionDelaySeconds;
    ResourceStatus status;
};

// Pumps, filters and reservoirs: fleetd reads their health (and a reservoir's fluid level).
struct PartDoc {
    std::string id, name;
    ResourceStatus status;
    std::string fluidLevelStatus;  // Reservoir only
};

[[nodiscard]] std::optional<CollectionDoc> decodeCollection(std::string_view body, std::string* error);
[[nodiscard]] std::optional<CoolingUnitDoc> decodeCoolingUnit(std::string_view body, std::string* error);
[[nodiscard]] std::optional<ConnectorDoc> decodeConnector(std::string_view body, std::string* error);
[[nodiscard]] std::optional<LeakDetectionDoc> decodeLeakDetection(std::string_view body, std::string* error);
[[nodiscard]] std::optional<LeakDetectorDoc> decodeLeakDetector(std::string_view body, std::string* error);
// `type`: "Pump", "Filter" or "Reservoir".
[[nodiscard]] std::optional<PartDoc> decodePart(std::string_view body, std::string_view type, std::string* error);

// The last segment of an @odata.id ("/redfish/v1/.../CDUs/CDU-A" → "CDU-A"), %-escapes undone.
std::string lastSegment(std::string_view odataId);

}  // namespace watchfloor::server::redfish
