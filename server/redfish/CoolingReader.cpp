#include "CoolingReader.h"

namespace watchfloor::server::redfish {

namespace {

constexpr std::string_view kCdus = "/redfish/v1/ThermalEquipment/CDUs";
constexpr std::size_t kLongestPath = 1024;

bool insideService(const std::string& path) {
    return path.rfind("/redfish/v1/", 0) == 0 && path.size() <= kLongestPath &&
           path.find_first_of("?#\\ \r\n") == std::string::npos && path.find("..") == std::string::npos;
}

std::string outsideService(const std::string& path) {
    return "link \"" + path.substr(0, 120) + "\" leaves the service's /redfish/v1/ tree";
}

}  // namespace

CoolingReadout CoolingReader::read() {
    CoolingReadout readout;
    readout.requests = 1;
    const Fetched list = http_.fetchAll({std::string(kCdus)}).front();
    std::optional<CollectionDoc> cdus;
    if (list.ok)
        cdus = decodeCollection(list.body, &readout.error);
    else
        readout.error = list.error;
    if (!cdus) {
        readout.failedRequests = list.ok ? 0 : 1;
        if (list.ok) readout.error = std::string(kCdus) + ": " + readout.error;
        return readout;
    }
    readout.ok = true;
    if (cdus->members.size() > kMostCdus)
        readout.error =
            std::to_string(cdus->members.size()) + " CDUs listed; the first " + std::to_string(kMostCdus) + " are read";
    std::vector<std::string> unitPaths;
    for (std::size_t i = 0; i < cdus->members.size() && i < kMostCdus; ++i) {
        readout.cdus.push_back({});
        readout.cdus.back().path = cdus->members[i];
        if (insideService(cdus->members[i]))
            unitPaths.push_back(cdus->members[i]);
        else
            readout.cdus.back().error = outsideService(cdus->members[i]);
    }

    // The units, then everything below them, one level at a time.
    std::vector<Pending> level;
    {
        const auto answers = http_.fetchAll(unitPaths);
        readout.requests += answers.size();
        std::size_t a = 0;
        for (std::size_t c = 0; c < readout.cdus.size(); ++c) {
            CduReadout& cdu = readout.cdus[c];
            if (!cdu.error.empty()) continue;
            const Fetched& answer = answers[a++];
            if (!answer.ok) {
                ++readout.failedRequests;
                cdu.error = answer.error;
                continue;
            }
            auto unit = decodeCoolingUnit(answer.body, &cdu.error);
            if (!unit) {
                cdu.error = answer.path + ": " + cdu.error;
                continue;
            }
            cdu.ok = true;
            cdu.unit = std::move(*unit);
            const std::pair<const std::string*, Part> parts[] = {{&cdu.unit.secondaryConnectors, Part::SecondaryList},
                                                                 {&cdu.unit.pumps, Part::PumpList},
                                                                 {&cdu.unit.filters, Part::FilterList},
                                                                 {&cdu.unit.reservoirs, Part::ReservoirList},
                                                                 {&cdu.unit.leakDetection, Part::LeakDetection}};
            for (const auto& [path, part] : parts) {
                if (path->empty()) continue;
                if (insideService(*path))
                    level.push_back({c, part, *path});
                else
                    cdu.partErrors.push_back(outsideService(*path));
            }
        }
    }
    while (!level.empty()) {
        std::vector<std::string> paths;
        for (const auto& p : level) paths.push_back(p.path);
        const auto answers = http_.fetchAll(paths);
        readout.requests += answers.size();
        std::vector<Pending> next;
        for (std::size_t i = 0; i < level.size(); ++i) {
            if (!answers[i].ok) {
                ++readout.failedRequests;
                CduReadout& cdu = readout.cdus[level[i].cdu];
                cdu.partErrors.push_back(answers[i].error);
                if (level[i].part == Part::Pump || level[i].part == Part::PumpList) cdu.pumpsRead = false;
                continue;
            }
            take(level[i], answers[i], next, readout);
        }
        level = std::move(next);
    }
    return readout;
}

void CoolingReader::take(const Pending& request, const Fetched& answer, std::vector<Pending>& next,
                         CoolingReadout& readout) {
    CduReadout& cdu = readout.cdus[request.cdu];
    std::string error;
    auto failed = [&] { cdu.partErrors.push_back(answer.path + ": " + error); };
    auto queueMembers = [&](Part memberPart) {
        const auto list = decodeCollection(answer.body, &error);
        if (!list) return failed();
        if (list->members.size() > kMostMembers)
            cdu.partErrors.push_back(answer.path + ": " + std::to_string(list->members.size()) +
                                     " members; the first " + std::to_string(kMostMembers) + " are read");
        for (std::size_t i = 0; i < list->members.size() && i < kMostMembers; ++i) {
            if (insideService(list->members[i]))
                next.push_back({request.cdu, memberPart, list->members[i]});
            else
                cdu.partErrors.push_back(outsideService(list->members[i]));
        }
        if (memberPart == Part::Pump) cdu.pumpsRead = true;
    };
    switch (request.part) {
    case Part::SecondaryList: return queueMembers(Part::Secondary);
    case Part::PumpList: return queueMembers(Part::Pump);
    case Part::FilterList: return queueMembers(Part::Filter);
    case Part::ReservoirList: return queueMembers(Part::Reservoir);
    case Part::DetectorList: return queueMembers(Part::Detector);
    case Part::LeakDetection: {
        const auto doc = decodeLeakDetection(answer.body, &error);
        if (!doc) return failed();
        // The groups name every detector; the (deprecated) collection is the way in for services
        // that publish no groups.
        if (doc->detectorUris.empty()) {
            if (!insideService(doc->leakDetectors)) return cdu.partErrors.push_back(outsideService(doc->leakDetectors));
            next.push_back({request.cdu, Part::DetectorList, doc->leakDetectors});
            return;
        }
        for (std::size_t i = 0; i < doc->detectorUris.size() && i < kMostMembers; ++i) {
            if (insideService(doc->detectorUris[i]))
                next.push_back({request.cdu, Part::Detector, doc->detectorUris[i]});
            else
                cdu.partErrors.push_back(outsideService(doc->detectorUris[i]));
        }
        return;
    }
    case Part::Secondary: {
        auto doc = decodeConnector(answer.body, &error);
        if (!doc) return failed();
        cdu.secondary.push_back({std::move(*doc), answer.startedUnixMs});
        return;
    }
    case Part::Detector: {
        auto doc = decodeLeakDetector(answer.body, &error);
        if (!doc) return failed();
        cdu.detectors.push_back({std::move(*doc), answer.startedUnixMs});
        return;
    }
    case Part::Pump:
    case Part::Filter:
    case Part::Reservoir: {
        const std::string_view type = request.part == Part::Pump     ? "Pump"
                                      : request.part == Part::Filter ? "Filter"
                                                                     : "Reservoir";
        auto doc = decodePart(answer.body, type, &error);
        if (!doc) {
            if (request.part == Part::Pump) cdu.pumpsRead = false;
            return failed();
        }
        auto& into = request.part == Part::Pump     ? cdu.pumps
                     : request.part == Part::Filter ? cdu.filters
                                                    : cdu.reservoirs;
        into.push_back(std::move(*doc));
        return;
    }
    }
}

}  // namespace watchfloor::server::redfish
