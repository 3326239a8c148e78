#include "RedfishDecoder.h"

#include "OneLine.h"

#include <simdjson.h>

namespace watchfloor::server::redfish {

namespace dom = simdjson::dom;

namespace {

std::string text(dom::object object, std::string_view key) {
    std::string_view value;
    return object[key].get_string().get(value) == simdjson::SUCCESS ? std::string(value) : std::string();
}

std::string linkOf(dom::object object, std::string_view key) {
    dom::object link;
    return object[key].get_object().get(link) == simdjson::SUCCESS ? text(link, "@odata.id") : std::string();
}

ResourceStatus statusOf(dom::object object) {
    dom::object status;
    if (object["Status"].get_object().get(status) != simdjson::SUCCESS) return {};
    return {text(status, "State"), text(status, "Health")};
}

// A SensorExcerpt: {"Reading": number|null, ...}. Absent or null: empty; anything else counts as
// malformed.
std::optional<double> reading(dom::object object, std::string_view key, std::size_t& malformed) {
    dom::element property;
    if (object[key].get(property) != simdjson::SUCCESS || property.is_null()) return std::nullopt;
    dom::object excerpt;
    dom::element value;
    if (property.get_object().get(excerpt) != simdjson::SUCCESS) return ++malformed, std::nullopt;
    if (excerpt["Reading"].get(value) != simdjson::SUCCESS || value.is_null()) return std::nullopt;
    double number = 0;
    if (!value.is_number() || value.get_double().get(number) != simdjson::SUCCESS) return ++malformed, std::nullopt;
    return number;
}

// The parsed body as a JSON object that is not a Redfish error, or the reason it is not. The
// (per-thread) parser owns what the object points into until its next parse.
std::optional<dom::object> parsedObject(std::string_view body, std::string* error) {
    thread_local dom::parser parser;
    dom::element root;
    if (const auto code = parser.parse(body.data(), body.size()).get(root); code != simdjson::SUCCESS)
        return *error = std::string("not JSON (") + simdjson::error_message(code) + "): " + prom::oneLine(body, 80),
               std::nullopt;
    dom::object object;
    if (root.get_object().get(object) != simdjson::SUCCESS)
        return *error = "not a JSON object: " + prom::oneLine(body, 80), std::nullopt;
    dom::object failure;
    if (object["error"].get_object().get(failure) == simdjson::SUCCESS)
        return *error = "Redfish error " + prom::oneLine(text(failure, "code"), 80) + ": " +
                        prom::oneLine(text(failure, "message"), 200),
               std::nullopt;
    return object;
}

// A resource of `type` (the namespace in "#CoolingUnit.v1_5_0.CoolingUnit").
std::optional<dom::object> resource(std::string_view body, std::string_view type, std::string* error) {
    const auto object = parsedObject(body, error);
    if (!object) return std::nullopt;
    const std::string odataType = text(*object, "@odata.type");
    const std::string expected = "#" + std::string(type) + ".";
    if (odataType.rfind(expected, 0) != 0)
        return *error = "expected a " + std::string(type) + " resource, got @odata.type \"" +
                        prom::oneLine(odataType, 80) + "\"",
               std::nullopt;
    if (text(*object, "@odata.id").empty()) return *error = std::string(type) + " without @odata.id", std::nullopt;
    return object;
}

bool needsId(dom::object object, std::string_view type, std::string& id, std::string* error) {
    id = text(object, "Id");
    if (id.empty()) *error = std::string(type) + " without Id";
    return !id.empty();
}

}  // namespace

std::optional<CollectionDoc> decodeCollection(std::string_view body, std::string* error) {
    const auto object = parsedObject(body, error);
    if (!object) return std::nullopt;
    const std::string odataType = text(*object, "@odata.type");
    if (odataType.find("Collection.") == std::string::npos)
        return *error = "expected a resource collection, got @odata.type \"" + prom::oneLine(odataType, 80) + "\"",
               std::nullopt;
    dom::array members;
    if ((*object)["Members"].get_array().get(members) != simdjson::SUCCESS)
        return *error = "collection without a Members array", std::nullopt;
    CollectionDoc doc;
    for (dom::element member : members) {
        dom::object link;
        std::string id;
        if (member.get_object().get(link) != simdjson::SUCCESS || (id = text(link, "@odata.id")).empty())
            return *error = "a collection member without @odata.id", std::nullopt;
        doc.members.push_back(std::move(id));
    }
    return doc;
}

std::optional<CoolingUnitDoc> decodeCoolingUnit(std::string_view body, std::string* error) {
    const auto object = resource(body, "CoolingUnit", error);
    if (!object) return std::nullopt;
    CoolingUnitDoc doc;
    if (!needsId(*object, "CoolingUnit", doc.id, error)) return std::nullopt;
    doc.name = text(*object, "Name");
    doc.equipmentType = text(*object, "EquipmentType");
    doc.status = statusOf(*object);
    doc.primaryConnectors = linkOf(*object, "PrimaryCoolantConnectors");
    doc.secondaryConnectors = linkOf(*object, "SecondaryCoolantConnectors");
    doc.pumps = linkOf(*object, "Pumps");
    doc.filters = linkOf(*object, "Filters");
    doc.reservoirs = linkOf(*object, "Reservoirs");
    doc.leakDetection = linkOf(*object, "LeakDetection");
    return doc;
}

std::optional<ConnectorDoc> decodeConnector(std::string_view body, std::string* error) {
    const auto object = resource(body, "CoolantConnector", error);
    if (!object) return std::nullopt;
    ConnectorDoc doc;
    if (!needsId(*object, "CoolantConnector", doc.id, error)) return std::nullopt;
    doc.name = text(*object, "Name");
    doc.coolingLoopName = text(*object, "CoolingLoopName");
    doc.status = statusOf(*object);
    doc.flowLitersPerMinute = reading(*object, "FlowLitersPerMinute", doc.malformedReadings);
    doc.supplyTemperatureCelsius = reading(*object, "SupplyTemperatureCelsius", doc.malformedReadings);
    doc.returnTemperatureCelsius = reading(*object, "ReturnTemperatureCelsius", doc.malformedReadings);
    doc.deltaPressurekPa = reading(*object, "DeltaPressurekPa", doc.malformedReadings);
    doc.valvePositionPercent = reading(*object, "ValvePositionPercent", doc.malformedReadings);
    doc.heatRemovedkW = reading(*object, "HeatRemovedkW", doc.malformedReadings);
    return doc;
}

std::optional<LeakDetectionDoc> decodeLeakDetection(std::string_view body, std::string* error) {
    const auto object = resource(body, "LeakDetection", error);
    if (!object) return std::nullopt;
    LeakDetectionDoc doc;
    doc.leakDetectors = linkOf(*object, "LeakDetectors");
    dom::array groups;
    if ((*object)["LeakDetectorGroups"].get_array().get(groups) == simdjson::SUCCESS)
        for (dom::element group : groups) {
            dom::array detectors;
            if (group["Detectors"].get_array().get(detectors) != simdjson::SUCCESS) continue;
            for (dom::element detector : detectors) {
                dom::object excerpt;
                if (detector.get_object().get(excerpt) != simdjson::SUCCESS) continue;
                if (std::string uri = text(excerpt, "DataSourceUri"); !uri.empty())
                    doc.detectorUris.push_back(std::move(uri));
            }
        }
    if (doc.leakDetectors.empty() && doc.detectorUris.empty())
        return *error =
                   "LeakDetection names no leak detector (no LeakDetectorGroups with DataSourceUri, no "
                   "LeakDetectors link)",
               std::nullopt;
    return doc;
}

std::optional<LeakDetectorDoc> decodeLeakDetector(std::string_view body, std::string* error) {
    const auto object = resource(body, "LeakDetector", error);
    if (!object) return std::nullopt;
    LeakDetectorDoc doc;
    if (!needsId(*object, "LeakDetector", doc.id, error)) return std::nullopt;
    doc.name = text(*object, "Name");
    doc.detectorType = text(*object, "LeakDetectorType");
    doc.detectorState = text(*object, "DetectorState");
    doc.criticalReaction = text(*object, "CriticalReactionType");
    doc.warningReaction = text(*object, "WarningReactionType");
    std::int64_t delay = 0;
    if ((*object)["ReactionDelaySeconds"].get_int64().get(delay) == simdjson::SUCCESS) doc.reactionDelaySeconds = delay;
    doc.status = statusOf(*object);
    return doc;
}

std::optional<PartDoc> decodePart(std::string_view body, std::string_view type, std::string* error) {
    const auto object = resource(body, type, error);
    if (!object) return std::nullopt;
    PartDoc doc;
    if (!needsId(*object, type, doc.id, error)) return std::nullopt;
    doc.name = text(*object, "Name");
    doc.status = statusOf(*object);
    doc.fluidLevelStatus = text(*object, "FluidLevelStatus");
    return doc;
}

std::string lastSegment(std::string_view odataId) {
    while (!odataId.empty() && odataId.back() == '/') odataId.remove_suffix(1);
    const auto slash = odataId.rfind('/');
    const std::string_view raw = slash == std::string_view::npos ? odataId : odataId.substr(slash + 1);
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        auto hex = [](char c) {
            return c >= '0' && c <= '9'   ? c - '0'
                   : c >= 'a' && c <= 'f' ? c - 'a' + 10
                   : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                          : -1;
        };
        if (raw[i] == '%' && i + 2 < raw.size() && hex(raw[i + 1]) >= 0 && hex(raw[i + 2]) >= 0) {
            out += char(hex(raw[i + 1]) * 16 + hex(raw[i + 2]));
            i += 2;
        } else {
            out += raw[i];
        }
    }
    return out;
}

}  // namespace watchfloor::server::redfish
