// Answers of a facility's Redfish cooling service (server/redfish): the same bytes decoded as each
// resource fleetd reads (collection, CoolingUnit, CoolantConnector, LeakDetection, LeakDetector,
// Pump/Filter/Reservoir), as CoolingReader meets them on its walk.
#include "FuzzSupport.h"

#include "RedfishDecoder.h"

#include <cmath>
#include <string>

namespace redfish = watchfloor::server::redfish;

namespace {

// A refusal goes into fleetd's log and the source's status line: one bounded line that says why.
template <typename Doc>
bool accepted(const std::optional<Doc>& doc, const std::string& error, const char* what) {
    if (doc) return true;
    FUZZ_CHECK(!error.empty(), std::string(what) + " refused without a reason");
    FUZZ_CHECK(error.find_first_of("\r\n") == std::string::npos,
               std::string(what) + ": reason spans lines: " + error.substr(0, 200));
    FUZZ_CHECK(error.size() <= 600, std::string(what) + ": reason of " + std::to_string(error.size()) + " bytes");
    watchfloor::fuzz::explain(std::string(what) + ": " + error);
    return false;
}

// Readings are what the schema calls numbers: never NaN or infinite (JSON has neither).
void checkReading(const std::optional<double>& value, const char* name) {
    if (value) FUZZ_CHECK(std::isfinite(*value), std::string(name) + " reads " + std::to_string(*value));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    std::string error;

    if (const auto doc = redfish::decodeCollection(body, &error); accepted(doc, error, "collection"))
        for (const auto& member : doc->members) {
            FUZZ_CHECK(!member.empty(), "an empty member link");
            // Member ids name racks' connectors and detectors: the last segment, unescaped.
            FUZZ_CHECK(redfish::lastSegment(member).size() <= member.size(), "a segment longer than its link");
        }
    error.clear();
    if (const auto doc = redfish::decodeCoolingUnit(body, &error); accepted(doc, error, "CoolingUnit"))
        FUZZ_CHECK(!doc->id.empty(), "a CoolingUnit without Id");
    error.clear();
    if (const auto doc = redfish::decodeConnector(body, &error); accepted(doc, error, "CoolantConnector")) {
        FUZZ_CHECK(!doc->id.empty(), "a CoolantConnector without Id");
        checkReading(doc->flowLitersPerMinute, "FlowLitersPerMinute");
        checkReading(doc->supplyTemperatureCelsius, "SupplyTemperatureCelsius");
        checkReading(doc->returnTemperatureCelsius, "ReturnTemperatureCelsius");
        checkReading(doc->deltaPressurekPa, "DeltaPressurekPa");
        checkReading(doc->valvePositionPercent, "ValvePositionPercent");
        checkReading(doc->heatRemovedkW, "HeatRemovedkW");
        FUZZ_CHECK(doc->malformedReadings <= 6, std::to_string(doc->malformedReadings) + " malformed of 6 readings");
    }
    error.clear();
    if (const auto doc = redfish::decodeLeakDetection(body, &error); accepted(doc, error, "LeakDetection"))
        FUZZ_CHECK(!doc->leakDetectors.empty() || !doc->detectorUris.empty(), "LeakDetection without a detector");
    error.clear();
    if (const auto doc = redfish::decodeLeakDetector(body, &error); accepted(doc, error, "LeakDetector"))
        FUZZ_CHECK(!doc->id.empty(), "a LeakDetector without Id");
    for (const char* type : {"Pump", "Filter", "Reservoir"}) {
        error.clear();
        if (const auto doc = redfish::decodePart(body, type, &error); accepted(doc, error, type))
            FUZZ_CHECK(!doc->id.empty(), std::string(type) + " without Id");
    }
    return 0;
}
