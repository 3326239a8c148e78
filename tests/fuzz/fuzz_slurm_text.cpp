// What fleetd reads from Slurm's programs on a real site: squeue's job lines (SlurmJobs,
// --jobs slurm) and Slurm's compressed hostlists (squeue node lists, fleet files' hosts=).
#include "FuzzSupport.h"

#include "Hostlist.h"
#include "SlurmJobs.h"

namespace server = watchfloor::server;
namespace sources = watchfloor::server::sources;

namespace {

void checkNames(const std::vector<std::string>& names, const std::string& from) {
    FUZZ_CHECK(names.size() <= 1'000'000, from + ": " + std::to_string(names.size()) + " names");
    // Every name goes to scontrol as one argument: a hostlist must never yield one that Slurm
    // would read as several nodes.
    for (const auto& name : names) FUZZ_CHECK(server::isPlainHostName(name), from + " gave '" + name + "'");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    std::vector<std::string> problems;
    const auto jobs = sources::parseSqueueJobs(text, &problems);
    watchfloor::fuzz::explain(std::to_string(jobs.size()) + " squeue jobs, " + std::to_string(problems.size()) +
                              " problems");
    FUZZ_CHECK(problems.size() <= 5, std::to_string(problems.size()) + " problems kept");
    for (const auto& job : jobs) {
        FUZZ_CHECK(!job.id.empty(), "a job without an id");
        FUZZ_CHECK(job.startMs >= 0, "start " + std::to_string(job.startMs));
        checkNames(job.hosts, "squeue job " + job.id);
    }

    // A single hostlist holds no newline; the first line is the one squeue would print.
    const auto line = text.substr(0, text.find('\n'));
    if (const auto names = server::expandHostlist(line)) checkNames(*names, "hostlist");
    return 0;
}
