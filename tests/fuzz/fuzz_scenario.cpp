// Scenario files (fleetd --scenario FILE): readScenarioFile against the fleet of
// scenarios/example.fleet, names resolved as the twin resolves them (its jobs, then the model).
#include "FuzzSupport.h"

#include "FleetModel.h"
#include "FleetSpec.h"
#include "ScenarioScript.h"

#include <memory>

namespace sim = watchfloor::server::sim;
using watchfloor::fuzz::ScratchDir;

namespace {

struct Fleet {
    watchfloor::server::FleetSpec spec;
    std::unique_ptr<watchfloor::server::FleetModel> model;

    Fleet() {
        watchfloor::server::ConfigError error;
        auto read = watchfloor::server::readFleetFile(WATCHFLOOR_SOURCE_DIR "/scenarios/example.fleet", &error);
        FUZZ_CHECK(read.has_value(), error.toString());
        spec = std::move(*read);
        model = std::make_unique<watchfloor::server::FleetModel>(spec, static_cast<std::uint32_t>(spec.jobs.size()));
    }

    // DigitalTwin::create's resolver: a job name first, then any entity of the model.
    std::optional<watchfloor::server::EntityRef> resolve(const std::string& name) const {
        for (std::uint32_t j = 0; j < spec.jobs.size(); ++j)
            if (spec.jobs[j].name == name) return watchfloor::server::EntityRef{watchfloor::v1::ENTITY_KIND_JOB, j};
        return model->find(name);
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const ScratchDir scratch;
    static const Fleet fleet;
    const std::string path = scratch.write("input.scn", data, size);
    watchfloor::server::ConfigError error;
    const auto faults = sim::readScenarioFile(
        path, [](const std::string& name) { return fleet.resolve(name); }, &error);
    if (!faults) {
        watchfloor::fuzz::explain(error.toString());
        FUZZ_CHECK(!error.problem.empty(), "refused without a problem");
        FUZZ_CHECK(error.line > 0, "refusal names no line: " + error.toString());
        return 0;
    }
    watchfloor::fuzz::explain(std::to_string(faults->size()) + " faults");
    for (std::size_t i = 0; i < faults->size(); ++i) {
        const auto& fault = (*faults)[i];
        FUZZ_CHECK(fault.line > 0, "a fault from no line");
        FUZZ_CHECK(fault.at.count() >= 0, "a fault before the start");
        FUZZ_CHECK(i == 0 || (*faults)[i - 1].at <= fault.at, "faults out of time order");
        FUZZ_CHECK(fault.count >= 1, "count 0");
    }
    return 0;
}
