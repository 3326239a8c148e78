#include "RedfishTree.h"

#include "CoolingLoop.h"
#include "JsonWriter.h"
#include "TrayBmcs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace watchfloor::server::exporters {

namespace v1 = watchfloor::v1;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kPumpsPerCdu = 2;  // the twin's CDUs run an N+1 pair
constexpr double kKpaPerBar = 100.0;
constexpr double kFilterLoadedAboveSpBar = 0.4;  // the twin's "differential pressure high" alarm

std::vector<std::string_view> segments(std::string_view path) {
    std::vector<std::string_view> parts;
    while (!path.empty()) {
        const auto slash = path.find('/');
        const auto part = path.substr(0, slash);
        if (!part.empty()) parts.push_back(part);
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return parts;
}

// A reading with a fixed number of decimals, so a page shows "31.42", not float noise.
double rounded(double value, int decimals) {
    if (!std::isfinite(value)) return kNaN;
    const double scale = std::pow(10.0, decimals);
    return std::round(value * scale) / scale;
}

void sensor(JsonWriter& w, std::string_view name, double reading) {
    w.key(name).beginObject().key("Reading").number(reading).endObject();
}

void setPoint(JsonWriter& w, std::string_view name, double value) {
    w.key(name).beginObject().key("SetPoint").number(value).key("ControlMode").string("Automatic").endObject();
}

void status(JsonWriter& w, std::string_view health, std::string_view state = "Enabled") {
    w.key("Status").beginObject().key("State").string(state).key("Health").string(health).endObject();
}

void header(JsonWriter& w, std::string_view type, const std::string& path) {
    w.key("@odata.type").string(type).key("@odata.id").string(path);
}

std::string_view worse(std::string_view a, std::string_view b) {
    auto rank = [](std::string_view h) { return h == "Critical" ? 2 : h == "Warning" ? 1 : 0; };
    return rank(b) > rank(a) ? b : a;
}

std::string cduPath(const std::string& cdu) { return std::string(kRedfishRoot) + "/ThermalEquipment/CDUs/" + cdu; }
std::string chassisPath(const std::string& cdu) { return std::string(kRedfishRoot) + "/Chassis/" + cdu; }

}  // namespace

struct RedfishTree::Loop {
    double supplyC = kNaN, returnC = kNaN, flowLpm = kNaN, dpBar = kNaN, dpSetpointBar = kNaN, valvePct = kNaN;
    double designFlowLpm = 0, supplySetpointC = kNaN;
    std::uint32_t leakWet = 0, leakFaulted = 0;
    bool liquidIsolated = false;
    std::string name;

    double heatRemovedKw() const {
        if (!std::isfinite(flowLpm) || !std::isfinite(supplyC) || !std::isfinite(returnC)) return kNaN;
        return sim::CoolingLoop::heatCarriedKw(flowLpm, supplyC, returnC);
    }
    std::string_view health() const {
        if (leakWet > 0) return "Critical";
        if (!liquidIsolated && std::isfinite(flowLpm) && flowLpm < 0.5 * designFlowLpm) return "Critical";
        if (std::isfinite(dpBar) && std::isfinite(dpSetpointBar) && dpBar > dpSetpointBar + kFilterLoadedAboveSpBar)
            return "Warning";
        return leakFaulted > 0 ? "Warning" : "OK";
    }
};

RedfishTree::RedfishTree(const service::FleetStateStore& store, redfish::CoolingMap map)
    : store_(store), map_(std::move(map)) {}

RedfishTree::Loop RedfishTree::loop(const redfish::RackCooling& rack) const {
    auto read = [&](v1::Metric metric) {
        const auto latest = store_.latest(rack.loopIndex, metric);
        return latest ? double(latest->value) : kNaN;
    };
    Loop l;
    l.supplyC = read(v1::RACK_LIQUID_SUPPLY_TEMPERATURE_C);
    l.returnC = read(v1::RACK_LIQUID_RETURN_TEMPERATURE_C);
    l.flowLpm = read(v1::RACK_LIQUID_FLOW_LPM);
    l.dpBar = read(v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_BAR);
    l.dpSetpointBar = read(v1::RACK_LIQUID_DIFFERENTIAL_PRESSURE_SP_BAR);
    l.valvePct = read(v1::RACK_CONTROL_VALVE_POSITION_PCT);
    const double wet = read(v1::RACK_LEAK_DETECT), faulted = read(v1::RACK_LEAK_SENSOR_FAULT);
    l.leakWet = std::isfinite(wet) ? std::uint32_t(std::max(0.0, wet)) : 0;
    l.leakFaulted = std::isfinite(faulted) ? std::uint32_t(std::max(0.0, faulted)) : 0;
    l.liquidIsolated = read(v1::RACK_LIQUID_ISOLATION_STATUS) == 1.0;
    for (const auto& loop : store_.index().topology().cooling_loops())
        if (loop.index() == rack.loopIndex) {
            l.designFlowLpm = loop.design_flow_lpm();
            l.supplySetpointC = loop.supply_setpoint_c();
            l.name = loop.name();
        }
    return l;
}

std::uint32_t RedfishTree::pumpsRunning(const std::string& cdu) const {
    for (const redfish::RackCooling* rack : map_.racksOf(cdu))
        if (const auto latest = store_.latest(rack->loopIndex, v1::CDU_PUMPS_RUNNING);
            latest && std::isfinite(latest->value))
            return std::uint32_t(std::clamp(double(latest->value), 0.0, double(kPumpsPerCdu)));
    return kPumpsPerCdu;  // not reported yet: nothing failed
}

bool RedfishTree::filterLoaded(const std::string& cdu) const {
    for (const redfish::RackCooling* rack : map_.racksOf(cdu)) {
        const Loop l = loop(*rack);
        if (std::isfinite(l.dpBar) && std::isfinite(l.dpSetpointBar) &&
            l.dpBar > l.dpSetpointBar + kFilterLoadedAboveSpBar)
            return true;
    }
    return false;
}

RedfishAnswer RedfishTree::get(std::string_view path, std::string_view authorization) const {
    const auto notFound = [&] {
        return RedfishAnswer{
            404, redfishError("Base.1.19.ResourceNotFound", "There is no resource at " + std::string(path) + ".")};
    };
    if (path == "/redfish" || path == "/redfish/") return {200, R"({"v1":"/redfish/v1/"})"};
    if (path.substr(0, kRedfishRoot.size()) != kRedfishRoot) return notFound();
    const auto rest = path.substr(kRedfishRoot.size());
    if (!rest.empty() && rest.front() != '/') return notFound();
    const auto s = segments(rest);
    if (s.empty()) return {200, serviceRoot()};
    if (bmcs_ && !(s[0] == "Chassis" && s.size() == 1)) {
        if (auto answer = bmcs_->get(s, path)) {
            if (!bmcs_->authorised(authorization))
                return {401, redfishError("Base.1.19.NoValidSession",
                                          "There is no valid session established with the implementation.")};
            return *answer;
        }
    }
    if (s[0] == "SessionService" && s.size() == 2 && s[1] == "Sessions")
        return {200, collection(std::string(kRedfishRoot) + "/SessionService/Sessions", "SessionCollection",
                                "Sessions (the twin's service needs none)", {})};
    if (s[0] == "Chassis") return chassisPart(s, path);
    if (s[0] != "ThermalEquipment") return notFound();
    if (s.size() == 1) return {200, thermalEquipment()};
    if (s[1] != "CDUs") return notFound();
    const auto cdus = map_.cdus();
    if (s.size() == 2)
        return {200, collection(std::string(kRedfishRoot) + "/ThermalEquipment/CDUs", "CoolingUnitCollection",
                                "Coolant distribution units", cdus)};
    const std::string cdu(s[2]);
    if (std::find(cdus.begin(), cdus.end(), cdu) == cdus.end()) return notFound();
    if (s.size() == 3) return {200, coolingUnit(cdu)};
    const std::string base = cduPath(cdu);
    const std::string_view part = s[3];
    const auto racks = map_.racksOf(cdu);
    if (part == "SecondaryCoolantConnectors") {
        if (s.size() == 4) {
            std::vector<std::string> ids;
            for (const redfish::RackCooling* r : racks) ids.push_back(r->connector);
            return {200, collection(base + "/SecondaryCoolantConnectors", "CoolantConnectorCollection",
                                    "Secondary coolant connectors (rack loops)", ids)};
        }
        const redfish::RackCooling* rack = s.size() == 5 ? map_.byConnector(cdu, std::string(s[4])) : nullptr;
        return rack ? RedfishAnswer{200, secondaryConnector(cdu, *rack)} : notFound();
    }
    if (part == "PrimaryCoolantConnectors") {
        if (s.size() == 4)
            return {200, collection(base + "/PrimaryCoolantConnectors", "CoolantConnectorCollection",
                                    "Primary coolant connectors (facility water)", {"1"})};
        return s.size() == 5 && s[4] == "1" ? RedfishAnswer{200, primaryConnector(cdu)} : notFound();
    }
    if (part == "Pumps") {
        if (s.size() == 4) return {200, collection(base + "/Pumps", "PumpCollection", "CDU pumps", {"1", "2"})};
        if (s.size() == 5 && (s[4] == "1" || s[4] == "2")) return {200, pump(cdu, s[4] == "1" ? 1 : 2)};
        return notFound();
    }
    if (part == "Filters") {
        if (s.size() == 4) return {200, collection(base + "/Filters", "FilterCollection", "CDU filters", {"1"})};
        return s.size() == 5 && s[4] == "1" ? RedfishAnswer{200, filter(cdu)} : notFound();
    }
    if (part == "Reservoirs") {
        if (s.size() == 4)
            return {200, collection(base + "/Reservoirs", "ReservoirCollection", "CDU reservoirs", {"1"})};
        return s.size() == 5 && s[4] == "1" ? RedfishAnswer{200, reservoir(cdu)} : notFound();
    }
    if (part == "LeakDetection" && s.size() == 4) return {200, leakDetection(cdu)};
    return notFound();
}

// The CDU's chassis, which holds its leak detectors (Redfish 2025 deprecates the LeakDetectors
// collection under LeakDetection in favour of the chassis's).
RedfishAnswer RedfishTree::chassisPart(const std::vector<std::string_view>& s, std::string_view path) const {
    const auto notFound = [&] {
        return RedfishAnswer{
            404, redfishError("Base.1.19.ResourceNotFound", "There is no resource at " + std::string(path) + ".")};
    };
    const auto cdus = map_.cdus();
    if (s.size() == 1) {
        std::vector<std::string> ids = cdus;
        if (bmcs_) ids.insert(ids.end(), bmcs_->trays().begin(), bmcs_->trays().end());
        return {200, collection(std::string(kRedfishRoot) + "/Chassis", "ChassisCollection",
                                bmcs_ ? "CDU and compute tray chassis" : "CDU chassis", ids)};
    }
    const std::string cdu(s[1]);
    if (std::find(cdus.begin(), cdus.end(), cdu) == cdus.end()) return notFound();
    if (s.size() == 2) return {200, chassis(cdu)};
    if (s[2] != "LeakDetectors") return notFound();
    if (s.size() == 3) {
        std::vector<std::string> ids;
        for (const redfish::RackCooling* r : map_.racksOf(cdu))
            ids.insert(ids.end(), r->leakDetectors.begin(), r->leakDetectors.end());
        return {200, collection(chassisPath(cdu) + "/LeakDetectors", "LeakDetectorCollection", "Leak detectors", ids)};
    }
    if (s.size() != 4) return notFound();
    const std::string id(s[3]);
    const redfish::RackCooling* rack = map_.byDetector(cdu, id);
    if (!rack) return notFound();
    const auto at = std::find(rack->leakDetectors.begin(), rack->leakDetectors.end(), id);
    return {200, leakDetector(cdu, *rack, std::size_t(at - rack->leakDetectors.begin()))};
}

std::string RedfishTree::chassis(const std::string& cdu) const {
    JsonWriter w;
    w.beginObject();
    header(w, "#Chassis.v1_28_0.Chassis", chassisPath(cdu));
    w.key("Id").string(cdu).key("Name").string("Chassis of " + cdu);
    w.key("ChassisType").string("StandAlone");
    status(w, "OK");
    w.link("LeakDetectors", chassisPath(cdu) + "/LeakDetectors");
    w.key("Links")
        .beginObject()
        .key("CoolingUnits")
        .beginArray()
        .beginObject()
        .key("@odata.id")
        .string(cduPath(cdu))
        .endObject()
        .endArray()
        .endObject();
    w.endObject();
    return w.take();
}

std::string RedfishTree::serviceRoot() const {
    JsonWriter w;
    w.beginObject();
    header(w, "#ServiceRoot.v1_17_0.ServiceRoot", std::string(kRedfishRoot));
    w.key("Id").string("RootService").key("Name").string("Watchfloor twin facility cooling service");
    w.key("RedfishVersion").string("1.21.0");
    w.key("UUID").string("7a1f0b52-5c1e-4c57-9a4e-77617463686f");
    w.link("ThermalEquipment", std::string(kRedfishRoot) + "/ThermalEquipment");
    w.link("Chassis", std::string(kRedfishRoot) + "/Chassis");
    if (bmcs_) {
        w.link("Systems", std::string(kRedfishRoot) + "/Systems");
        w.link("Tasks", std::string(kRedfishRoot) + "/TaskService");
    }
    w.key("Links")
        .beginObject()
        .key("Sessions")
        .beginObject()
        .key("@odata.id")
        .string(std::string(kRedfishRoot) + "/SessionService/Sessions")
        .endObject()
        .endObject();
    w.endObject();
    return w.take();
}

std::string RedfishTree::thermalEquipment() const {
    JsonWriter w;
    w.beginObject();
    header(w, "#ThermalEquipment.v1_2_0.ThermalEquipment", std::string(kRedfishRoot) + "/ThermalEquipment");
    w.key("Id").string("ThermalEquipment").key("Name").string("Cooling equipment");
    status(w, "OK");
    w.link("CDUs", std::string(kRedfishRoot) + "/ThermalEquipment/CDUs");
    w.endObject();
    return w.take();
}

std::string RedfishTree::collection(std::string_view path, std::string_view type, std::string_view name,
                                    const std::vector<std::string>& ids) const {
    JsonWriter w;
    w.beginObject();
    header(w, "#" + std::string(type) + "." + std::string(type), std::string(path));
    w.key("Name").string(name);
    w.key("Members@odata.count").integer(static_cast<long long>(ids.size()));
    w.key("Members").beginArray();
    for (const auto& id : ids) w.beginObject().key("@odata.id").string(std::string(path) + "/" + id).endObject();
    w.endArray();
    w.endObject();
    return w.take();
}

std::string RedfishTree::coolingUnit(const std::string& cdu) const {
    const std::string base = cduPath(cdu);
    const std::uint32_t running = pumpsRunning(cdu);
    std::string_view health = running == 0 ? "Critical" : running < kPumpsPerCdu ? "Warning" : "OK";
    std::string_view rollup = health;
    if (filterLoaded(cdu)) rollup = worse(rollup, "Warning");
    for (const redfish::RackCooling* rack : map_.racksOf(cdu)) rollup = worse(rollup, loop(*rack).health());
    JsonWriter w;
    w.beginObject();
    header(w, "#CoolingUnit.v1_5_0.CoolingUnit", base);
    w.key("Id").string(cdu).key("Name").string("Row coolant distribution unit " + cdu);
    w.key("EquipmentType").string("CDU");
    w.key("Status")
        .beginObject()
        .key("State")
        .string("Enabled")
        .key("Health")
        .string(health)
        .key("HealthRollup")
        .string(rollup)
        .endObject();
    // PG25: 25 % propylene glycol in water (density and heat capacity as the twin's loop model).
    w.key("Coolant")
        .beginObject()
        .key("CoolantType")
        .string("Water")
        .key("AdditiveName")
        .string("Propylene glycol")
        .key("AdditivePercent")
        .number(25)
        .key("DensityKgPerCubicMeter")
        .number(sim::kCoolantDensityKgPerL * 1000)
        .key("SpecificHeatkJoulesPerKgK")
        .number(sim::kCoolantCpKjPerKgK)
        .endObject();
    w.link("PrimaryCoolantConnectors", base + "/PrimaryCoolantConnectors");
    w.link("SecondaryCoolantConnectors", base + "/SecondaryCoolantConnectors");
    w.link("Pumps", base + "/Pumps");
    w.link("Filters", base + "/Filters");
    w.link("Reservoirs", base + "/Reservoirs");
    w.link("LeakDetection", base + "/LeakDetection");
    w.key("Links")
        .beginObject()
        .key("Chassis")
        .beginArray()
        .beginObject()
        .key("@odata.id")
        .string(chassisPath(cdu))
        .endObject()
        .endArray()
        .endObject();
    w.endObject();
    return w.take();
}

std::string RedfishTree::secondaryConnector(const std::string& cdu, const redfish::RackCooling& rack) const {
    const Loop l = loop(rack);
    JsonWriter w;
    w.beginObject();
    header(w, "#CoolantConnector.v1_3_0.CoolantConnector",
           cduPath(cdu) + "/SecondaryCoolantConnectors/" + rack.connector);
    w.key("Id").string(rack.connector).key("Name").string("Rack " + rack.rackName + " secondary loop");
    status(w, l.health());
    w.key("CoolantConnectorType").string("Pair");
    w.key("CoolingLoopName").string(l.name);
    w.key("RatedFlowLitersPerMinute").number(rounded(l.designFlowLpm, 1));
    sensor(w, "FlowLitersPerMinute", rounded(l.flowLpm, 1));
    sensor(w, "SupplyTemperatureCelsius", rounded(l.supplyC, 2));
    setPoint(w, "SupplyTemperatureControlCelsius", l.supplySetpointC);
    sensor(w, "ReturnTemperatureCelsius", rounded(l.returnC, 2));
    sensor(w, "DeltaTemperatureCelsius", rounded(l.returnC - l.supplyC, 2));
    sensor(w, "DeltaPressurekPa", rounded(l.dpBar * kKpaPerBar, 1));
    setPoint(w, "DeltaPressureControlkPa", rounded(l.dpSetpointBar * kKpaPerBar, 1));
    sensor(w, "ValvePositionPercent", rounded(l.valvePct, 1));
    sensor(w, "HeatRemovedkW", rounded(l.heatRemovedKw(), 2));
    w.endObject();
    return w.take();
}

// The twin does not model facility water; the CDU passes the racks' heat on to it (losses to the
// room neglected), so only that is published.
std::string RedfishTree::primaryConnector(const std::string& cdu) const {
    double heat = 0;
    bool known = true;
    for (const redfish::RackCooling* rack : map_.racksOf(cdu)) {
        const double kw = loop(*rack).heatRemovedKw();
        known = known && std::isfinite(kw);
        heat += std::isfinite(kw) ? kw : 0;
    }
    JsonWriter w;
    w.beginObject();
    header(w, "#CoolantConnector.v1_3_0.CoolantConnector", cduPath(cdu) + "/PrimaryCoolantConnectors/1");
    w.key("Id").string("1").key("Name").string("Facility water supply");
    status(w, "OK");
    w.key("CoolantConnectorType").string("Pair");
    sensor(w, "HeatRemovedkW", known ? rounded(heat, 2) : kNaN);
    w.endObject();
    return w.take();
}

std::string RedfishTree::pump(const std::string& cdu, int pump) const {
    const bool running = std::uint32_t(pump) <= pumpsRunning(cdu);
    JsonWriter w;
    w.beginObject();
    header(w, "#Pump.v1_2_0.Pump", cduPath(cdu) + "/Pumps/" + std::to_string(pump));
    w.key("Id").string(std::to_string(pump)).key("Name").string("CDU pump " + std::to_string(pump));
    w.key("PumpType").string("Liquid");
    status(w, running ? "OK" : "Critical");
    w.endObject();
    return w.take();
}

std::string RedfishTree::filter(const std::string& cdu) const {
    JsonWriter w;
    w.beginObject();
    header(w, "#Filter.v1_1_0.Filter", cduPath(cdu) + "/Filters/1");
    w.key("Id").string("1").key("Name").string("Secondary loop filter (50 um)");
    status(w, filterLoaded(cdu) ? "Warning" : "OK");
    w.key("Replaceable").boolean(true);
    w.endObject();
    return w.take();
}

std::string RedfishTree::reservoir(const std::string& cdu) const {
    JsonWriter w;
    w.beginObject();
    header(w, "#Reservoir.v1_0_2.Reservoir", cduPath(cdu) + "/Reservoirs/1");
    w.key("Id").string("1").key("Name").string("CDU expansion tank");
    w.key("ReservoirType").string("Inline");
    status(w, "OK");
    w.key("FluidLevelStatus").string("OK");  // the twin models no coolant loss
    w.endObject();
    return w.take();
}

namespace {

// Detector k of a rack: the first `wet` ones are wet, the last one is faulted when the rack
// reports a sensor fault.
std::string_view detectorState(std::size_t k, std::size_t count, std::uint32_t wet, std::uint32_t faulted) {
    if (k < wet) return "Critical";
    if (faulted > 0 && k + 1 == count) return "Unavailable";
    return "OK";
}

}  // namespace

std::string RedfishTree::leakDetection(const std::string& cdu) const {
    const std::string base = cduPath(cdu) + "/LeakDetection";
    const std::string detectors = chassisPath(cdu) + "/LeakDetectors/";
    std::string_view health = "OK";
    JsonWriter groups;
    groups.beginArray();
    for (const redfish::RackCooling* rack : map_.racksOf(cdu)) {
        const Loop l = loop(*rack);
        groups.beginObject().key("GroupName").string("Rack " + rack->rackName);
        groups.key("Detectors").beginArray();
        std::string_view groupHealth = "OK";
        for (std::size_t k = 0; k < rack->leakDetectors.size(); ++k) {
            const auto state = detectorState(k, rack->leakDetectors.size(), l.leakWet, l.leakFaulted);
            groupHealth = worse(groupHealth, state == "Unavailable" ? "Warning" : state);
            groups.beginObject()
                .key("DataSourceUri")
                .string(detectors + rack->leakDetectors[k])
                .key("DeviceName")
                .string(rack->leakDetectors[k])
                .key("DetectorState")
                .string(state)
                .endObject();
        }
        groups.endArray();
        groups.key("Status").beginObject().key("Health").string(groupHealth).endObject();
        groups.endObject();
        health = worse(health, groupHealth);
    }
    groups.endArray();
    JsonWriter w;
    w.beginObject();
    header(w, "#LeakDetection.v1_2_0.LeakDetection", base);
    w.key("Id").string("LeakDetection").key("Name").string("Leak detection of " + cdu + " and its racks");
    status(w, health);
    w.key("LeakDetectorGroups").raw(groups.take());
    w.endObject();
    return w.take();
}

std::string RedfishTree::leakDetector(const std::string& cdu, const redfish::RackCooling& rack,
                                      std::size_t detector) const {
    const Loop l = loop(rack);
    const auto state = detectorState(detector, rack.leakDetectors.size(), l.leakWet, l.leakFaulted);
    const std::string& id = rack.leakDetectors[detector];
    JsonWriter w;
    w.beginObject();
    header(w, "#LeakDetector.v1_6_0.LeakDetector", chassisPath(cdu) + "/LeakDetectors/" + id);
    w.key("Id").string(id).key("Name").string("Rack " + rack.rackName + " leak detector " + id);
    w.key("LeakDetectorType").string("Moisture");
    w.key("DetectorState").string(state);
    status(w, state == "Unavailable" ? "Warning" : state);
    // What the twin's building management does on a wet sensor: it closes the rack's valve and
    // opens its breaker at once.
    w.key("CriticalReactionType").string("ForceOff");
    w.key("WarningReactionType").string("None");
    w.key("ReactionDelaySeconds").integer(0);
    w.key("UserLabel").string("rack " + rack.rackName);
    w.endObject();
    return w.take();
}

std::string redfishError(std::string_view messageId, std::string_view message) {
    JsonWriter w;
    w.beginObject().key("error").beginObject();
    w.key("code").string(messageId).key("message").string(message);
    w.key("@Message.ExtendedInfo").beginArray().beginObject();
    w.key("@odata.type")
        .string("#Message.v1_1_1.Message")
        .key("MessageId")
        .string(messageId)
        .key("Message")
        .string(message)
        .key("Severity")
        .string("Critical")
        .key("Resolution")
        .string("None.");
    w.endObject().endArray();
    w.endObject().endObject();
    return w.take();
}

}  // namespace watchfloor::server::exporters
