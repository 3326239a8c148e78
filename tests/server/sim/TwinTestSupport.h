#pragma once
// Helpers shared by the digital-twin tests: temporary input files and stepping a twin.

#include "DigitalTwin.h"

#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace twintest {

using namespace watchfloor::server;
using namespace watchfloor::server::sim;

inline std::string writeFile(const QTemporaryDir& dir, const char* name, const std::string& text) {
    const std::string path = dir.filePath(name).toStdString();
    std::ofstream(path) << text;
    return path;
}

inline std::string sourcePath(const char* relative) {
    return qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR", WATCHFLOOR_TEST_SOURCE_DIR).toStdString() + "/" + relative;
}

inline std::unique_ptr<DigitalTwin> makeTwin(const SimConfig& config) {
    ConfigError error;
    auto twin = DigitalTwin::create(config, &error);
    if (!twin) qFatal("DigitalTwin::create failed: %s", error.toString().c_str());
    return twin;
}

// Advances one second at a time for `seconds`, handing every change set to `each`.
inline void run(DigitalTwin& twin, std::int64_t seconds, const std::function<void(const FleetChanges&)>& each = {}) {
    FleetChanges changes;
    for (std::int64_t i = 0; i < seconds; ++i) {
        changes.clear();
        twin.advanceTo(twin.now() + std::chrono::seconds(1), changes);
        if (each) each(changes);
    }
}

// Latest value of (entity, metric) seen in `changes`; NaN when absent.
inline float sampleOf(const FleetChanges& changes, std::uint32_t entity, watchfloor::v1::Metric metric) {
    for (auto it = changes.samples.rbegin(); it != changes.samples.rend(); ++it)
        if (it->entityIndex == entity && it->metric == metric) return it->value;
    return std::numeric_limits<float>::quiet_NaN();
}

inline const watchfloor::v1::Rack& rackNamed(const DigitalTwin& twin, const std::string& name) {
    for (const auto& rack : twin.topology().racks())
        if (rack.name() == name) return rack;
    qFatal("no rack %s", name.c_str());
}

inline std::uint32_t nodeIndex(const DigitalTwin& twin, const std::string& name) {
    for (const auto& node : twin.topology().nodes())
        if (node.name() == name) return node.index();
    qFatal("no node %s", name.c_str());
}

}  // namespace twintest
