#include "ScenarioScript.h"

#include "DurationParse.h"
#include "FailureCauses.h"
#include "LineParser.h"
#include "XidCatalog.h"

#include <algorithm>
#include <cstdlib>

namespace watchfloor::server::sim {
namespace {

using namespace watchfloor::v1;

struct VerbInfo {
    const char* word;
    ScriptVerb verb;
    const char* usage;
};

constexpr VerbInfo kVerbs[] = {
    {"xid", ScriptVerb::Xid, "xid CODE gpu=GPU"},
    {"fail", ScriptVerb::Fail, "fail CAUSE gpu=GPU|node=NODE|job=JOB"},
    {"leak", ScriptVerb::Leak, "leak rack=RACK"},
    {"pump-fail", ScriptVerb::PumpFail, "pump-fail rack=RACK"},
    {"filter-clog", ScriptVerb::FilterClog, "filter-clog rack=RACK [for=D]"},
    {"sensor-fault", ScriptVerb::SensorFault, "sensor-fault rack=RACK [for=D]"},
    {"facility-excursion", ScriptVerb::FacilityExcursion, "facility-excursion region=REGION [delta_c=C] [for=D]"},
    {"valve-close", ScriptVerb::ValveClose, "valve-close rack=RACK [for=D]"},
    {"isolate", ScriptVerb::Isolate, "isolate rack=RACK"},
    {"restore", ScriptVerb::Restore, "restore rack=RACK"},
    {"link-flap", ScriptVerb::LinkFlap, "link-flap link=LINK|nic=PORT [count=N]"},
    {"link-down", ScriptVerb::LinkDown, "link-down link=LINK|nic=PORT [for=D]"},
    {"ber", ScriptVerb::Ber, "ber link=LINK|nic=PORT [value=BER]"},
    {"link-drift", ScriptVerb::LinkDrift, "link-drift nic=PORT hours=H [down_after=D]"},
    {"straggler", ScriptVerb::Straggler, "straggler node=NODE [factor=F] [for=D]"},
    {"drain", ScriptVerb::Drain, "drain node=NODE [reason=TEXT]"},
    {"resume", ScriptVerb::Resume, "resume node=NODE [reason=TEXT]"},
    {"requeue", ScriptVerb::Requeue, "requeue job=JOB [exclude=NODE,NODE] [reason=TEXT]"},
};

struct TargetKey {
    const char* key;
    EntityKind kind;
};

constexpr TargetKey kTargetKeys[] = {
    {"gpu", ENTITY_KIND_GPU},     {"node", ENTITY_KIND_NODE},    {"rack", ENTITY_KIND_RACK},
    {"link", ENTITY_KIND_NVLINK}, {"nic", ENTITY_KIND_NIC_PORT}, {"region", ENTITY_KIND_REGION},
    {"job", ENTITY_KIND_JOB},
};

std::vector<EntityKind> allowedTargets(ScriptVerb verb) {
    switch (verb) {
    case ScriptVerb::Xid: return {ENTITY_KIND_GPU};
    case ScriptVerb::Fail: return {ENTITY_KIND_GPU, ENTITY_KIND_NODE, ENTITY_KIND_JOB};
    case ScriptVerb::FacilityExcursion: return {ENTITY_KIND_REGION};
    case ScriptVerb::LinkFlap:
    case ScriptVerb::LinkDown:
    case ScriptVerb::Ber: return {ENTITY_KIND_NVLINK, ENTITY_KIND_NIC_PORT};
    case ScriptVerb::LinkDrift: return {ENTITY_KIND_NIC_PORT};  // the rail links' trajectories
    case ScriptVerb::Straggler:
    case ScriptVerb::Drain:
    case ScriptVerb::Resume: return {ENTITY_KIND_NODE};
    case ScriptVerb::Requeue: return {ENTITY_KIND_JOB};
    default: return {ENTITY_KIND_RACK};
    }
}

}  // namespace

std::optional<std::vector<ScriptedFault>> readScenarioFile(const std::string& path, const EntityResolver& resolve,
                                                           ConfigError* error) {
    auto lines = readConfigLines(path, error);
    if (!lines) return std::nullopt;
    std::vector<ScriptedFault> faults;
    for (auto& line : *lines) {
        OptionReader options(path, line, error);
        const auto& words = line.words;
        if (words.size() < 3 || words[0] != "at")
            return options.fail("expected 'at OFFSET VERB ...' (e.g. 'at 10m leak rack=r03')"), std::nullopt;
        ScriptedFault fault;
        fault.line = line.number;
        const auto offset = parseDuration(words[1]);
        if (!offset)
            return options.fail("'" + words[1] + "' is not a duration (e.g. 90s, 10m, 6h, 1h30m)"), std::nullopt;
        fault.at = *offset;
        const auto verbIt =
            std::find_if(std::begin(kVerbs), std::end(kVerbs), [&](const VerbInfo& v) { return words[2] == v.word; });
        if (verbIt == std::end(kVerbs)) {
            std::string known;
            for (const auto& v : kVerbs) known += std::string(known.empty() ? "" : ", ") + v.word;
            return options.fail("unknown verb '" + words[2] + "' (known: " + known + ")"), std::nullopt;
        }
        fault.verb = verbIt->verb;
        const std::size_t positional = (fault.verb == ScriptVerb::Xid || fault.verb == ScriptVerb::Fail) ? 4 : 3;
        if (words.size() != positional)
            return options.fail("expected '" + std::string(verbIt->usage) + "'"), std::nullopt;
        if (fault.verb == ScriptVerb::Xid) {
            char* end = nullptr;
            const unsigned long code = std::strtoul(words[3].c_str(), &end, 10);
            if (*end != '\0' || !findXid(static_cast<std::uint32_t>(code)))
                return options.fail("Xid '" + words[3] + "' is not in the fleet's Xid table"), std::nullopt;
            fault.code = static_cast<std::uint32_t>(code);
        } else if (fault.verb == ScriptVerb::Fail) {
            const auto& causes = failureCauses();
            const auto it =
                std::find_if(causes.begin(), causes.end(), [&](const FailureCause& c) { return words[3] == c.cause; });
            if (it == causes.end()) {
                std::string known;
                for (const auto& c : causes) known += std::string(known.empty() ? "" : ", ") + c.cause;
                return options.fail("unknown failure cause '" + words[3] + "' (known: " + known + ")"), std::nullopt;
            }
            fault.code = static_cast<std::uint32_t>(it - causes.begin());
        }

        const bool operatorAction =
            fault.verb == ScriptVerb::Drain || fault.verb == ScriptVerb::Resume || fault.verb == ScriptVerb::Requeue;
        if (operatorAction) fault.reason = options.text("reason").value_or("scenario: " + words[2]);
        if (fault.verb == ScriptVerb::Requeue) {
            std::string list = options.text("exclude").value_or("");
            for (std::size_t start = 0; start < list.size();) {
                const std::size_t comma = std::min(list.find(',', start), list.size());
                const std::string name = list.substr(start, comma - start);
                const auto ref = resolve(name);
                if (!ref || ref->kind != ENTITY_KIND_NODE)
                    return options.fail("unknown node '" + name + "' in exclude="), std::nullopt;
                fault.excludeTrays.push_back(ref->ordinal);
                start = comma + 1;
            }
        }

        // Exactly one target key, of a kind this verb accepts.
        const auto allowed = allowedTargets(fault.verb);
        int targets = 0;
        for (const auto& key : kTargetKeys) {
            const auto name = options.text(key.key);
            if (!name) continue;
            ++targets;
            if (std::find(allowed.begin(), allowed.end(), key.kind) == allowed.end())
                return options.fail("'" + words[2] + "' does not take " + key.key + "= (expected '" + verbIt->usage +
                                    "')"),
                       std::nullopt;
            const auto ref = resolve(*name);
            if (!ref || ref->kind != key.kind)
                return options.fail("unknown " + std::string(key.key) + " '" + *name + "'"), std::nullopt;
            fault.target = *ref;
        }
        if (targets != 1) return options.fail("expected '" + std::string(verbIt->usage) + "'"), std::nullopt;

        double count = 1;
        double value = 0;
        const double defaultValue = fault.verb == ScriptVerb::Straggler           ? 1.3
                                    : fault.verb == ScriptVerb::FacilityExcursion ? 8.0
                                    : fault.verb == ScriptVerb::Ber               ? 1e-9
                                                                                  : 0.0;
        value = defaultValue;
        bool ok = true;
        if (fault.verb == ScriptVerb::LinkFlap)
            ok = options.number("count", 1, 1000, count);
        else if (fault.verb == ScriptVerb::Straggler)
            ok = options.number("factor", 1.0, 5.0, value);
        else if (fault.verb == ScriptVerb::FacilityExcursion)
            ok = options.number("delta_c", -10, 25, value);
        else if (fault.verb == ScriptVerb::Ber)
            ok = options.number("value", 1e-18, 1e-2, value);
        else if (fault.verb == ScriptVerb::LinkDrift) {
            if (!options.has("hours"))
                return options.fail("expected '" + std::string(verbIt->usage) + "'"), std::nullopt;
            ok = options.number("hours", 0.1, 72, value) && options.duration("down_after", fault.duration);
        }
        if (!ok) return std::nullopt;
        const bool takesDuration = fault.verb == ScriptVerb::FilterClog || fault.verb == ScriptVerb::SensorFault ||
                                   fault.verb == ScriptVerb::FacilityExcursion ||
                                   fault.verb == ScriptVerb::ValveClose || fault.verb == ScriptVerb::LinkDown ||
                                   fault.verb == ScriptVerb::Straggler;
        if (takesDuration && !options.duration("for", fault.duration)) return std::nullopt;
        if (!options.noLeftovers()) return std::nullopt;
        fault.count = static_cast<std::uint32_t>(count);
        fault.value = value;
        faults.push_back(fault);
    }
    std::stable_sort(faults.begin(), faults.end(),
                     [](const ScriptedFault& a, const ScriptedFault& b) { return a.at < b.at; });
    return faults;
}

}  // namespace watchfloor::server::sim
