#pragma once
// One walk of a facility's Redfish cooling tree: the CDU collection, every CoolingUnit, and under
// each its secondary CoolantConnectors, Pumps, Filters, Reservoirs and the leak detectors its
// LeakDetection names (by the groups' DataSourceUri, else its LeakDetectors collection), level by level (the requests
// of one level run concurrently within the connection limit). Only links inside the service's /redfish/v1/ tree are
// followed. A part that fails is recorded with its reason and the walk goes on; the readings of a part that answered
// carry the time their request was sent.

#include "RedfishDecoder.h"
#include "RedfishHttp.h"

#include <cstdint>
#include <string>
#include <vector>

namespace watchfloor::server::redfish {

template <typename Doc>
struct Timed {
    Doc doc;
    std::int64_t readUnixMs = 0;
};

struct CduReadout {
    std::string path;   // the CoolingUnit's @odata.id
    bool ok = false;    // the CoolingUnit itself answered
    std::string error;  // when !ok
    CoolingUnitDoc unit;
    std::vector<Timed<ConnectorDoc>> secondary;
    std::vector<Timed<LeakDetectorDoc>> detectors;
    std::vector<PartDoc> pumps, filters, reservoirs;
    bool pumpsRead = false;               // the Pumps collection and every pump answered
    std::vector<std::string> partErrors;  // parts below the unit that failed, one line each
};

struct CoolingReadout {
    bool ok = false;    // the CDU collection answered
    std::string error;  // when !ok; when ok, a note (more CDUs listed than are read)
    std::vector<CduReadout> cdus;
    std::size_t requests = 0, failedRequests = 0;
};

inline constexpr std::size_t kMostCdus = 1024;
inline constexpr std::size_t kMostMembers = 4096;  // per collection

class CoolingReader {
public:
    explicit CoolingReader(RedfishOptions options) : http_(std::move(options)) {}
    CoolingReadout read();

private:
    enum class Part {
        SecondaryList,
        PumpList,
        FilterList,
        ReservoirList,
        LeakDetection,
        DetectorList,
        Secondary,
        Pump,
        Filter,
        Reservoir,
        Detector
    };
    struct Pending {
        std::size_t cdu;
        Part part;
        std::string path;
    };
    // Decodes one answer of the walk into `readout`, queueing what it links to into `next`.
    void take(const Pending& request, const Fetched& answer, std::vector<Pending>& next, CoolingReadout& readout);

    RedfishHttp http_;
};

}  // namespace watchfloor::server::redfish
