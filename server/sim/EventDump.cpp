#include "EventDump.h"

#include "DigitalTwin.h"
#include "FleetIncidents.h"

#include <google/protobuf/util/json_util.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

namespace watchfloor::server::sim {
namespace {

class LineWriter {
public:
    bool open(const std::string& path, std::string* error) {
        if (path == "-") {
            file_ = stdout;
            return true;
        }
        file_ = std::fopen(path.c_str(), "wb");
        if (!file_ && error) *error = path + ": cannot open for writing: " + std::strerror(errno);
        owned_ = file_ != nullptr;
        return file_ != nullptr;
    }
    ~LineWriter() {
        if (owned_) std::fclose(file_);
    }
    void write(const char* kind, const char* field, const google::protobuf::Message& message) {
        json_.clear();
        google::protobuf::util::JsonPrintOptions options;
        options.preserve_proto_field_names = true;
        (void)google::protobuf::util::MessageToJsonString(message, &json_, options);
        std::fprintf(file_, "{\"kind\":\"%s\",\"%s\":%s}\n", kind, field, json_.c_str());
    }
    bool finish(const std::string& path, std::string* error) {
        if (std::fflush(file_) != 0 || std::ferror(file_)) {
            if (error) *error = path + ": write failed: " + std::strerror(errno);
            return false;
        }
        return true;
    }

private:
    std::FILE* file_ = nullptr;
    bool owned_ = false;
    std::string json_;
};

}  // namespace

bool dumpEvents(FleetSource& source, const DumpOptions& options, std::string* error) {
    LineWriter writer;
    if (!writer.open(options.path, error)) return false;
    // Nobody reads per-entity samples in a dump: take the twin's fast path.
    if (auto* twin = dynamic_cast<DigitalTwin*>(&source)) twin->setTelemetryEnabled(false);

    constexpr std::chrono::milliseconds kStep{1000};
    const UnixTime start = source.now();
    const UnixTime end = start + options.duration;
    const auto goodputPeriod = std::max(options.goodputPeriod, kStep);
    UnixTime nextGoodput = start + goodputPeriod;
    std::map<std::uint32_t, watchfloor::v1::Job> latestJobs;  // ordered by index: stable output
    watchfloor::v1::FleetGoodput latestFleet;
    bool haveFleet = false;
    std::uint64_t nextEventId = 1;
    incidents::FleetIncidents grouping(source.topology(), options.incidents);
    FleetChanges changes;
    for (UnixTime t = start + kStep; t <= end; t += kStep) {
        changes.clear();
        source.advanceTo(t, changes);
        for (auto& event : changes.events) {
            event.set_id(nextEventId++);
            writer.write("event", "event", event);
        }
        grouping.apply(changes);
        for (const auto& incident : changes.incidents) writer.write("incident", "incident", incident);
        for (auto& job : changes.jobs) latestJobs[job.index()].Swap(&job);
        if (changes.hasFleet) {
            latestFleet.Swap(&changes.fleet);
            haveFleet = true;
        }
        if (t >= nextGoodput) {
            nextGoodput += goodputPeriod;
            if (haveFleet) writer.write("fleet", "fleet", latestFleet);
            for (const auto& [index, job] : latestJobs) writer.write("job", "job", job);
        }
    }
    return writer.finish(options.path, error);
}

}  // namespace watchfloor::server::sim
