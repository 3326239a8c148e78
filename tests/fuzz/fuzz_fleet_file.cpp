// Fleet files (fleetd --fleet FILE, scenarios/README.md): readFleetFile, then what fleetd builds
// from an accepted file — the twin with its jobs placed on the named racks and trays.
#include "FuzzSupport.h"

#include "DigitalTwin.h"
#include "FleetSpec.h"

namespace sim = watchfloor::server::sim;
using watchfloor::fuzz::ScratchDir;

namespace {
// A fleet file may declare up to 100,000 racks by design; building a twin of more than a few
// would measure the twin's start-up, not the parser.
constexpr std::size_t kMostRacksBuilt = 4;

int lineCount(const std::uint8_t* data, std::size_t size) {
    int lines = 1;
    for (std::size_t i = 0; i < size; ++i) lines += data[i] == '\n';
    return lines;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const ScratchDir scratch;
    const std::string path = scratch.write("input.fleet", data, size);
    watchfloor::server::ConfigError error;
    const auto spec = watchfloor::server::readFleetFile(path, &error);
    if (!spec) {
        watchfloor::fuzz::explain(error.toString());
        // fleetd exits with FILE:LINE: problem; an operator must be told which line and why.
        FUZZ_CHECK(!error.problem.empty(), "refused without a problem");
        FUZZ_CHECK(error.line >= 0 && error.line <= lineCount(data, size), error.toString());
        return 0;
    }
    FUZZ_CHECK(!spec->racks.empty(), "accepted a fleet without racks");
    for (const auto& rack : spec->racks) {
        FUZZ_CHECK(!rack.name.empty(), "a rack without a name");
        FUZZ_CHECK(rack.region < spec->regions.size(), "rack " + rack.name + " in no declared region");
        FUZZ_CHECK(rack.hostsPattern.empty() || rack.hosts.size() == 18, "rack " + rack.name + " hosts");
    }
    if (spec->racks.size() > kMostRacksBuilt) return 0;
    sim::SimConfig config;
    config.fleetFile = path;
    config.telemetry = false;
    const auto twin = sim::DigitalTwin::create(config, &error);
    if (!twin) {
        watchfloor::fuzz::explain("twin: " + error.toString());
        FUZZ_CHECK(!error.problem.empty(), "twin refused the fleet without a problem");
        return 0;
    }
    FUZZ_CHECK(std::size_t(twin->topology().racks_size()) == spec->racks.size(), "racks in the topology");
    watchfloor::fuzz::explain("twin of " + std::to_string(spec->racks.size()) + " racks, " +
                              std::to_string(spec->jobs.size()) + " jobs");
    return 0;
}
