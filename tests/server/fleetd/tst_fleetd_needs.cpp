// fleetd's command line refuses a flag that needs another one it was not given, with the message
// operators and the process tests know: one case per rule of the flag table (kRules in
// server/fleetd/FlagTable.cpp), the first given flag named when several break a rule, and the
// combinations that are fine. A plain test (no Qt) of fleetd_cli's parseCommandLine.

#include "CommandLine.h"

#include <iostream>
#include <string>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
    std::cout << (ok ? "PASS: " : "FAIL: ") << what << std::endl;
    failures += ok ? 0 : 1;
}

std::string joined(const std::vector<std::string>& args) {
    std::string text;
    for (const auto& arg : args) text += (text.empty() ? "" : " ") + arg;
    return text;
}

void refused(const std::vector<std::string>& args, const std::string& message) {
    watchfloor::server::fleetd::CommandLine cl;
    std::string error;
    const bool parsed = watchfloor::server::fleetd::parseCommandLine(args, &cl, &error);
    check(!parsed && error == message, "fleetd " + joined(args) + ": \"" + (parsed ? "accepted" : error) + "\"");
}

void accepted(const std::vector<std::string>& args) {
    watchfloor::server::fleetd::CommandLine cl;
    std::string error;
    check(watchfloor::server::fleetd::parseCommandLine(args, &cl, &error), "fleetd " + joined(args) + " " + error);
}

}  // namespace

int main() {
    const std::string twinOnly =
        " is for the digital twin; fleetd reads a real source (--source scrape or prometheus=URL)";
    const std::vector<std::string> scrape = {"--source", "scrape", "--fleet", "site.fleet"};
    const auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
        args.insert(args.end(), more.begin(), more.end());
        return args;
    };

    refused({"--sim-duration", "1h"},
            "--sim-duration and --dump-events go together (a headless run writes its events)");
    refused({"--tls-key", "k"}, "--tls-cert and --tls-key go together");
    refused({"--tls-client-ca", "ca"},
            "--tls-client-ca needs --tls-cert and --tls-key (mTLS is TLS that also checks the client)");
    refused({"--tokens", "t", "--slurm-conf", "f"}, "--slurm-conf needs --scheduler slurm");
    refused({"--tokens", "t", "--auto-lifecycle"},
            "--auto-lifecycle needs --auto-drain N/WINDOW: automation acts behind its circuit breaker");
    refused({"--lemon", "3/7d", "--audit-log", "a"},
            "--lemon needs --tokens FILE: operator actions are off without it");
    refused({"--source", "twin", "--jobs", "slurm"},
            "--jobs needs --source scrape, prometheus=URL or redfish=URL (the twin is not polled)");
    refused({"--source", "redfish=http://bms"},
            "--source scrape, prometheus=URL or redfish=URL needs --fleet FILE: the site's racks and the host names "
            "of their trays (the inventory), their CDUs and leak detectors");
    refused(with(scrape, {"--speed", "60", "--seed=3"}), "--speed" + twinOnly);
    refused(with(scrape, {"--warm-start"}), "--warm-start" + twinOnly);
    refused({"--exporters-blanks", "omit"}, "--exporters-blanks needs --serve-exporters HOST:PORT");
    refused({"--serve-exporters", "127.0.0.1:0", "--exporters-scrape-interval", "15s"},
            "--exporters-scrape-interval needs --exporters-config DIR");
    refused({"--alertmanager", "http://127.0.0.1:9093", "--sim-duration", "1h", "--dump-events", "-"},
            "--alertmanager pages from a running fleetd, not a headless --dump-events run");
    refused({"--serve-exporters", "127.0.0.1:0", "--sim-duration", "1h", "--dump-events", "-"},
            "--serve-exporters needs a running fleetd, not a headless --dump-events run");
    refused(with(scrape, {"--serve-redfish", "127.0.0.1:0"}),
            "--serve-redfish publishes the running digital twin's cooling; not with --dump-events or a real source");
    refused(with(scrape, {"--serve-exporters", "127.0.0.1:0"}),
            "--serve-exporters publishes the digital twin's values; fleetd reads a real source (--source scrape or "
            "prometheus=URL)");
    const std::vector<std::string> store = {"--source", "prometheus=http://prom:9090", "--fleet", "site.fleet"};
    const std::vector<std::string> cooling = {"--source", "redfish=http://bms", "--fleet", "site.fleet"};
    refused(with(store, {"--scrape-concurrency", "8"}), "--scrape-concurrency needs --source scrape");
    refused(with(store, {"--redfish-connections", "2"}), "--redfish-connections needs --source redfish=URL");
    refused(with(cooling, {"--prom-tenant", "a"}),
            "--prom-tenant needs --source prometheus=URL (--source redfish=URL reads cooling only)");
    refused(with(scrape, {"--poll", "10s"}),
            "--poll is for polling a store; with --source scrape the store (--source prometheus=URL) only answers "
            "history");
    refused(with(cooling, {"--redfish-interval", "5s", "--redfish-timeout", "6s"}),
            "--redfish-timeout must not exceed --redfish-interval (the tree is walked once per interval)");
    refused(with(scrape, {"--scrape-interval", "5s", "--scrape-timeout", "6s"}),
            "--scrape-timeout must not exceed --scrape-interval (a target is scraped once per interval)");
    refused(with(scrape, {"--tokens", "t"}),
            "operator actions on a real fleet act through Slurm: add --scheduler slurm [--slurm-conf FILE] (or leave "
            "out --tokens)");
    refused({"--racks", "2", "--regions", "3"}, "--regions (3) cannot exceed --racks (2)");
    refused({"--simulate=yes"}, "--simulate takes no value");
    refused({"--seed"}, "--seed: missing value");
    refused({"--bogus=1"}, "unknown option \"--bogus=1\"");

    accepted({"--tokens", "t", "--auto-drain", "5/10m", "--auto-evict-slow", "--auto-lifecycle", "--lemon", "3/7d"});
    accepted({"--tls-cert", "c", "--tls-key", "k", "--tls-client-ca", "ca"});
    accepted({"--sim-duration", "1h", "--dump-events", "-", "--warm-start=2h", "--racks", "3", "--regions", "3"});
    accepted(with(scrape, {"--source", "prometheus=http://prom:9090", "--scrape-timeout", "2s", "--jobs", "slurm",
                           "--tokens", "t", "--scheduler", "slurm"}));
    accepted(with(cooling, {"--redfish-interval", "5s", "--redfish-timeout", "5s"}));
    accepted({"--help", "--racks", "2", "--regions", "3"});

    std::cout << (failures ? "FAILED: " + std::to_string(failures) + " checks" : std::string("all passed"))
              << std::endl;
    return failures ? 1 : 0;
}
