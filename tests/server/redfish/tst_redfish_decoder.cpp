// The Redfish decoders on answers shaped like DMTF's public cooling-unit mockup (Redfish 2025.4,
// mockups/public-cooling-unit): every field fleetd uses, readings as SensorExcerpts ({"Reading":
// N}), null and absent readings, and each way an answer can be wrong (not JSON, truncated, not an
// object, a Redfish error object, another resource type, no @odata.id or Id, a reading that is a
// bare number, a collection without Members). Also the fleet file's cooling mapping and the JSON
// writer the twin's tree is written with.

#include "CoolingMap.h"
#include "FleetModel.h"
#include "FleetSpec.h"
#include "JsonWriter.h"
#include "RedfishDecoder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace watchfloor::server;
using namespace watchfloor::server::redfish;

namespace {

constexpr const char* kConnector = R"({
    "@odata.type": "#CoolantConnector.v1_3_0.CoolantConnector",
    "Id": "3",
    "Name": "Cooling connection to rack equipment",
    "Status": {"State": "Enabled", "Health": "OK"},
    "CoolantConnectorType": "Pair",
    "CoolingLoopName": "row2-rack3",
    "RatedFlowLitersPerMinute": 200,
    "FlowLitersPerMinute": {"Reading": 187.5, "DataSourceUri": "/redfish/v1/Chassis/CDU/Sensors/SecondaryFlow3"},
    "FlowControlLitersPerMinute": {"SetPoint": 190, "AllowableMax": 220, "AllowableMin": 20, "ControlMode": "Override"},
    "SupplyTemperatureCelsius": {"Reading": 25.4},
    "ReturnTemperatureCelsius": {"Reading": 34},
    "DeltaTemperatureCelsius": {"Reading": 8.6},
    "DeltaPressurekPa": {"Reading": 152.3},
    "ValvePositionPercent": {"Reading": null},
    "HeatRemovedkW": {"Reading": 107.25},
    "@odata.id": "/redfish/v1/ThermalEquipment/CDUs/1/SecondaryCoolantConnectors/3"
})";

constexpr const char* kUnit = R"({
    "@odata.type": "#CoolingUnit.v1_5_0.CoolingUnit",
    "Id": "CDU-A",
    "EquipmentType": "CDU",
    "Name": "Row 2 Cooling Distribution Unit",
    "Status": {"State": "Enabled", "Health": "Warning", "HealthRollup": "Critical"},
    "Coolant": {"CoolantType": "Water", "AdditiveName": "Glycol", "AdditivePercent": 25},
    "PrimaryCoolantConnectors": {"@odata.id": "/redfish/v1/ThermalEquipment/CDUs/CDU-A/PrimaryCoolantConnectors"},
    "SecondaryCoolantConnectors": {"@odata.id": "/redfish/v1/ThermalEquipment/CDUs/CDU-A/SecondaryCoolantConnectors"},
    "Pumps": {"@odata.id": "/redfish/v1/ThermalEquipment/CDUs/CDU-A/Pumps"},
    "Filters": {"@odata.id": "/redfish/v1/ThermalEquipment/CDUs/CDU-A/Filters"},
    "LeakDetection": {"@odata.id": "/redfish/v1/ThermalEquipment/CDUs/CDU-A/LeakDetection"},
    "Links": {"Chassis": [{"@odata.id": "/redfish/v1/Chassis/CDU"}]},
    "@odata.id": "/redfish/v1/ThermalEquipment/CDUs/CDU-A"
})";

constexpr const char* kDetector = R"({
    "@odata.type": "#LeakDetector.v1_6_0.LeakDetector",
    "Id": "Moisture",
    "Name": "Moisture Leak Detector",
    "LeakDetectorType": "Moisture",
    "Status": {"State": "Enabled", "Health": "Critical"},
    "DetectorState": "Critical",
    "CriticalReactionType": "GracefulShutdown",
    "WarningReactionType": "None",
    "ReactionDelaySeconds": 30,
    "Location": {"PartLocation": {"Reference": "Bottom", "ServiceLabel": "Chassis Moisture Detector"}},
    "PhysicalContext": "Chassis",
    "@odata.id": "/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection/LeakDetectors/Moisture"
})";

constexpr const char* kCollection = R"({
    "@odata.type": "#LeakDetectorCollection.LeakDetectorCollection",
    "Name": "Rack CDU Leak Detector Collection",
    "Members@odata.count": 2,
    "Members": [
        {"@odata.id": "/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection/LeakDetectors/Moisture"},
        {"@odata.id": "/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection/LeakDetectors/Overflow"}
    ],
    "@odata.id": "/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection/LeakDetectors"
})";

constexpr const char* kLeakDetection = R"({
    "@odata.type": "#LeakDetection.v1_2_0.LeakDetection",
    "Id": "LeakDetection",
    "Name": "Leak Detection Systems",
    "Status": {"State": "Enabled", "Health": "OK"},
    "LeakDetectorGroups": [
        {
            "GroupName": "Detectors in the CDU",
            "Status": {"Health": "OK"},
            "HumidityPercent": {"Reading": 26, "DataSourceUri": "/redfish/v1/Chassis/CDU/Sensors/SystemRelativeHumidity"},
            "Detectors": [
                {"DataSourceUri": "/redfish/v1/Chassis/CDU/LeakDetectors/Moisture", "DeviceName": "Moisture Leak Detector", "DetectorState": "OK"},
                {"DataSourceUri": "/redfish/v1/Chassis/CDU/LeakDetectors/Overflow", "DeviceName": "Fluid Level Overflow", "DetectorState": "OK"}
            ]
        }
    ],
    "@odata.id": "/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection"
})";

constexpr const char* kOldLeakDetection = R"({
    "@odata.type": "#LeakDetection.v1_0_0.LeakDetection",
    "Id": "LeakDetection",
    "Name": "Leak Detection Systems",
    "LeakDetectors": {"@odata.id": "/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection/LeakDetectors"},
    "@odata.id": "/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection"
})";

constexpr const char* kNoDetectors = R"({
    "@odata.type": "#LeakDetection.v1_2_0.LeakDetection",
    "Id": "LeakDetection",
    "Name": "Leak Detection Systems",
    "@odata.id": "/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection"
})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

}  // namespace

class TstRedfishDecoder : public QObject {
    Q_OBJECT

private slots:
    void connectorReadingsAsSensorExcerpts() {
        std::string error;
        const auto c = decodeConnector(kConnector, &error);
        QVERIFY2(c, error.c_str());
        QCOMPARE(c->id, std::string("3"));
        QCOMPARE(c->coolingLoopName, std::string("row2-rack3"));
        QCOMPARE(c->status.health, std::string("OK"));
        QCOMPARE(*c->flowLitersPerMinute, 187.5);
        QCOMPARE(*c->supplyTemperatureCelsius, 25.4);
        QCOMPARE(*c->returnTemperatureCelsius, 34.0);  // an integer is a number too
        QCOMPARE(*c->deltaPressurekPa, 152.3);
        QCOMPARE(*c->heatRemovedkW, 107.25);
        QVERIFY(!c->valvePositionPercent);  // "Reading": null
        QCOMPARE(c->malformedReadings, std::size_t(0));

        // A reading left out is empty; one written as a bare number is not a SensorExcerpt.
        const auto bare = decodeConnector(replaced(kConnector, "{\"Reading\": 152.3}", "152.3"), &error);
        QVERIFY2(bare, error.c_str());
        QVERIFY(!bare->deltaPressurekPa);
        QCOMPARE(bare->malformedReadings, std::size_t(1));
        const auto text = decodeConnector(replaced(kConnector, "{\"Reading\": 34}", "{\"Reading\": \"34\"}"), &error);
        QVERIFY2(text, error.c_str());
        QVERIFY(!text->returnTemperatureCelsius);
        QCOMPARE(text->malformedReadings, std::size_t(1));
    }

    void coolingUnitLinks() {
        std::string error;
        const auto u = decodeCoolingUnit(kUnit, &error);
        QVERIFY2(u, error.c_str());
        QCOMPARE(u->id, std::string("CDU-A"));
        QCOMPARE(u->equipmentType, std::string("CDU"));
        QCOMPARE(u->status.health, std::string("Warning"));
        QCOMPARE(u->secondaryConnectors,
                 std::string("/redfish/v1/ThermalEquipment/CDUs/CDU-A/SecondaryCoolantConnectors"));
        QCOMPARE(u->leakDetection, std::string("/redfish/v1/ThermalEquipment/CDUs/CDU-A/LeakDetection"));
        QCOMPARE(u->pumps, std::string("/redfish/v1/ThermalEquipment/CDUs/CDU-A/Pumps"));
        QVERIFY(u->reservoirs.empty());  // this unit has none
    }

    void leakDetectorStateAndReaction() {
        std::string error;
        const auto d = decodeLeakDetector(kDetector, &error);
        QVERIFY2(d, error.c_str());
        QCOMPARE(d->id, std::string("Moisture"));
        QCOMPARE(d->detectorType, std::string("Moisture"));
        QCOMPARE(d->detectorState, std::string("Critical"));
        QCOMPARE(d->criticalReaction, std::string("GracefulShutdown"));
        QCOMPARE(d->warningReaction, std::string("None"));
        QCOMPARE(*d->reactionDelaySeconds, 30LL);
        const auto quiet = decodeLeakDetector(
            replaced(replaced(kDetector, "\"DetectorState\": \"Critical\"", "\"DetectorState\": null"),
                     "\"ReactionDelaySeconds\": 30,", ""),
            &error);
        QVERIFY2(quiet, error.c_str());
        QVERIFY(quiet->detectorState.empty());
        QVERIFY(!quiet->reactionDelaySeconds);
    }

    void leakDetectionNamesItsDetectors() {
        std::string error;
        const auto groups = decodeLeakDetection(kLeakDetection, &error);
        QVERIFY2(groups, error.c_str());
        QCOMPARE(groups->detectorUris, (std::vector<std::string>{"/redfish/v1/Chassis/CDU/LeakDetectors/Moisture",
                                                                 "/redfish/v1/Chassis/CDU/LeakDetectors/Overflow"}));
        QVERIFY(groups->leakDetectors.empty());
        // Before LeakDetection v1.2 the detectors hung under it as a collection.
        const auto old = decodeLeakDetection(kOldLeakDetection, &error);
        QVERIFY2(old, error.c_str());
        QVERIFY(old->detectorUris.empty());
        QCOMPARE(old->leakDetectors, std::string("/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection/LeakDetectors"));
        QVERIFY(!decodeLeakDetection(kNoDetectors, &error));
        QVERIFY2(error.find("names no leak detector") != std::string::npos, error.c_str());
    }

    void collectionMembers() {
        std::string error;
        const auto list = decodeCollection(kCollection, &error);
        QVERIFY2(list, error.c_str());
        QCOMPARE(list->members.size(), std::size_t(2));
        QCOMPARE(lastSegment(list->members[1]), std::string("Overflow"));
        QCOMPARE(lastSegment("/redfish/v1/ThermalEquipment/CDUs/Row%202%20CDU/"), std::string("Row 2 CDU"));
    }

    void wrongAnswersAreRefusedWithAReason_data() {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("reason");
        QTest::newRow("not JSON") << "<html>503 Service Unavailable</html>"
                                  << "not JSON";
        QTest::newRow("truncated") << QString(kUnit).left(200) << "not JSON";
        QTest::newRow("an array") << "[1,2,3]"
                                  << "not a JSON object";
        QTest::newRow("Redfish error") << "{\"error\":{\"code\":\"Base.1.19.InternalError\",\"message\":\"The request "
                                          "failed due to an internal service error.\",\"@Message.ExtendedInfo\":[]}}"
                                       << "Redfish error Base.1.19.InternalError: The request failed";
        QTest::newRow("another type") << QString(kConnector) << "expected a CoolingUnit resource";
        QTest::newRow("no @odata.type") << QString::fromStdString(replaced(
                                               kUnit, "\"@odata.type\": \"#CoolingUnit.v1_5_0.CoolingUnit\",", ""))
                                        << "expected a CoolingUnit resource, got @odata.type \"\"";
        QTest::newRow("no Id") << QString::fromStdString(replaced(kUnit, "\"Id\": \"CDU-A\",", ""))
                               << "CoolingUnit without Id";
        QTest::newRow("no @odata.id") << QString::fromStdString(replaced(
                                             kUnit, ",\n    \"@odata.id\": \"/redfish/v1/ThermalEquipment/CDUs/CDU-A\"",
                                             ""))
                                      << "CoolingUnit without @odata.id";
    }
    void wrongAnswersAreRefusedWithAReason() {
        QFETCH(QString, body);
        QFETCH(QString, reason);
        std::string error;
        const std::string text = body.toStdString();
        QVERIFY(!decodeCoolingUnit(text, &error));
        QVERIFY2(QString::fromStdString(error).contains(reason), error.c_str());
    }

    void badCollections() {
        std::string error;
        QVERIFY(!decodeCollection(replaced(kCollection, "\"Members\": [", "\"Mumbers\": ["), &error));
        QVERIFY2(error.find("without a Members array") != std::string::npos, error.c_str());
        QVERIFY(!decodeCollection(
            replaced(kCollection,
                     "{\"@odata.id\": \"/redfish/v1/ThermalEquipment/CDUs/1/LeakDetection/LeakDetectors/Moisture\"}",
                     "{}"),
            &error));
        QVERIFY2(error.find("member without @odata.id") != std::string::npos, error.c_str());
        QVERIFY(!decodeCollection(kDetector, &error));
        QVERIFY2(error.find("expected a resource collection") != std::string::npos, error.c_str());
    }

    void jsonWriterEscapesAndNumbers() {
        JsonWriter w;
        w.beginObject().key("a").string("q\"\\\n\x01").key("n").number(25.5).key("nan").number(std::nan(""));
        w.key("list").beginArray().integer(1).integer(2).beginObject().endObject().endArray();
        w.link("L", "/x").endObject();
        QCOMPARE(w.text(), std::string("{\"a\":\"q\\\"\\\\\\n\\u0001\",\"n\":25.5,\"nan\":null,\"list\":[1,2,{}],\"L\":"
                                       "{\"@odata.id\":\"/x\"}}"));
    }

    void fleetFileMapsCdusConnectorsAndDetectors() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("site.fleet").toStdString();
        std::ofstream(path) << "region us-east\n"
                               "rack a1 cdu=CDU-A connector=1 leak_detectors=LD-A1-[1-2]\n"
                               "rack a2 cdu=CDU-A connector=2 leak_detectors=LD-A2-rope\n"
                               "racks 2 row=2 cdu=CDU-B connector=loop-{rack} leak_detectors={rack}-tray,{rack}-floor\n"
                               "rack c1 row=3\n";
        ConfigError error;
        const auto spec = readFleetFile(path, &error);
        QVERIFY2(spec, error.toString().c_str());
        const auto topology = FleetModel(*spec, 0).topology();
        const CoolingMap map(topology, &*spec);
        QCOMPARE(map.cdus(), (std::vector<std::string>{"CDU-A", "CDU-B", "cdu-us-east-h1-row03"}));
        QCOMPARE(map.racksOf("CDU-A").size(), std::size_t(2));
        QCOMPARE(map.byConnector("CDU-A", "2")->rackName, std::string("a2"));
        QCOMPARE(map.byDetector("CDU-A", "LD-A1-2")->rackName, std::string("a1"));
        QVERIFY(!map.byDetector("CDU-B", "LD-A1-2"));  // a detector belongs to its own CDU
        const RackCooling* generated = map.byConnector("CDU-B", "loop-r04");
        QVERIFY(generated);
        QCOMPARE(generated->leakDetectors, (std::vector<std::string>{"r04-tray", "r04-floor"}));
        // Defaults: the loop's CDU name, the rack's name, <rack>-manifold and <rack>-drip.
        const RackCooling* plain = map.byConnector("cdu-us-east-h1-row03", "c1");
        QVERIFY(plain);
        QCOMPARE(plain->leakDetectors, (std::vector<std::string>{"c1-manifold", "c1-drip"}));
        QCOMPARE(topology.cooling_loops(0).cdu_name(), std::string("CDU-A"));
    }

    void fleetFileMappingMistakes_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("problem");
        QTest::newRow("connector twice") << "region x\nrack a cdu=C connector=1\nrack b cdu=C connector=1\n"
                                         << "site.fleet:3: connector '1' of CDU 'C' already feeds rack a";
        QTest::newRow("detector twice")
            << "region x\nrack a cdu=C leak_detectors=D1\nrack b cdu=C leak_detectors=D[0-1]\n"
            << "site.fleet:3: leak detector 'D1' already watches rack a";
        QTest::newRow("racks without {rack}") << "region x\nracks 2 cdu=C connector=1\n"
                                              << "already feeds rack r01";
        QTest::newRow("not an Id") << "region x\nrack a cdu=C/1\n"
                                   << "'C/1' is not a Redfish resource Id";
        QTest::newRow("bad list") << "region x\nrack a leak_detectors=D[1-\n"
                                  << "is not a list of Ids";
    }
    void fleetFileMappingMistakes() {
        QFETCH(QString, text);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const std::string path = dir.filePath("site.fleet").toStdString();
        std::ofstream(path) << text.toStdString();
        ConfigError error;
        QVERIFY(!readFleetFile(path, &error));
        QVERIFY2(QString::fromStdString(error.toString()).contains(problem), error.toString().c_str());
    }
};

QTEST_APPLESS_MAIN(TstRedfishDecoder)
#include "tst_redfish_decoder.moc"
