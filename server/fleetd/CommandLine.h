#pragma once
// fleetd's command line: parsed into options or a message naming the bad flag (exit code 2).

#include "ControlPlane.h"
#include "SourceFlags.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server::fleetd {

struct CommandLine {
    enum class Mode { Serve, DumpEvents, Help, Version } mode = Mode::Serve;
    std::string listenAddress = "127.0.0.1:50551";
    std::uint64_t seed = 1;
    std::optional<std::uint32_t> racks;
    std::optional<std::uint32_t> regions;
    std::string fleetFile;
    std::string scenarioFile;
    double speed = 1.0;
    // --warm-start[=D]: the twin's jobs have been training for up to D (default 6h) when it starts.
    std::chrono::seconds warmStart{0};
    std::optional<std::chrono::milliseconds> simDuration;
    std::string dumpEventsPath;
    std::chrono::milliseconds statsInterval{0};
    // --incident-hold D: how long an incident's members must stay clear before it resolves.
    std::chrono::milliseconds incidentHold = std::chrono::minutes(10);
    std::optional<std::uint32_t> replayLogMiB;
    std::string metricsListen;  // empty = no /metrics endpoint
    // --alertmanager URL: page open incidents there (server/paging); empty = page nowhere.
    std::string alertmanagerUrl;
    // Operator actions (ControlService). Off without --tokens; see controlEnabled().
    control::ControlOptions control;
    bool auditLogGiven = false;  // else fleetd picks defaultAuditLogPath()
    // Real telemetry sources (--source prometheus=URL ...); the twin when none is given.
    SourceFlags sources;
    // The twin's exporter pages (--serve-exporters) and the scrape configuration for them.
    std::string exportersListen;  // empty = not served
    std::string exportersConfigDir;
    std::chrono::milliseconds exportersScrapeInterval{15'000};
    bool exportersBlankSentinels = false;  // --exporters-blanks sentinel
    // The twin's cooling as a CDU's Redfish service (--serve-redfish HOST:PORT); empty = not served.
    std::string redfishListen;
    std::string redfishCredentialsFile;  // --serve-redfish-credentials FILE: the trays' BMCs ask for it

    bool controlEnabled() const { return !control.tokensFile.empty(); }
};

// False with `error` set ("--racks: expected a whole number from 1 to 10000, got \"x\"").
[[nodiscard]] bool parseCommandLine(const std::vector<std::string>& args, CommandLine* out, std::string* error);
// fleetd --help, made from the flag table (FlagTable.cpp).
std::string usageText();
// Every flag parseCommandLine accepts, sorted (what --help and fleetd(8) must both document).
std::vector<std::string> acceptedFlags();

// One flag's entry in --help and fleetd(8): "--racks" as "--racks N" under "Service and digital
// twin". A flag with several forms (--source scrape, --source prometheus=URL) has one per form.
struct FlagDoc {
    std::string flag;
    std::string synopsis;
    std::string section;
};
std::vector<FlagDoc> documentedFlags();

}  // namespace watchfloor::server::fleetd
