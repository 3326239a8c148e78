#pragma once
// fleetd's flags, one row each (FlagTable.cpp): the parser reads them, `fleetd --help` prints them
// and the checks of which flags go together are run from them; tests/server/fleetd/tst_fleetd_flags
// holds fleetd(8) to the same synopses and sections.

#include "CommandLine.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace watchfloor::server::fleetd {

// The sections of --help and of fleetd(8)'s OPTIONS, in their order.
enum class Section { ServiceAndTwin, OperatorActions, RealTelemetry, Other };
// fleetd(8)'s .SS title ("Operator actions").
std::string_view sectionTitle(Section section);
// The heading of its block in --help; empty for the first block and for --version/--help.
std::string_view sectionHeading(Section section);

// A flag as given on the command line, handed to its row's parser.
struct GivenFlag {
    std::string_view flag;  // "--racks"
    std::string value;      // "" for a switch (and for --warm-start without =D)
    bool hasValue;          // a value was given (always, for a flag that takes one)
    CommandLine& cl;        // where the value goes
    std::string* error;

    // "--racks: expected a whole number from 1 to 10000, got "0"": false, with `error` set.
    [[nodiscard]] bool expected(std::string_view what) const;
    // "--fleet: expected a file name" (the value, empty, not quoted).
    [[nodiscard]] bool expectedWithoutValue(std::string_view what) const;
};

// What a flag needs of the others, each a bit of Flag::needs. Once every flag is read they are
// checked in this order, each over the flags in the order given; the first broken one is
// reported (kRules in FlagTable.cpp holds the condition and the message).
enum Need : std::uint32_t {
    kHeadlessPair = 1u << 0,         // --sim-duration and --dump-events go together
    kTlsPair = 1u << 1,              // --tls-cert and --tls-key go together
    kTls = 1u << 2,                  // --tls-client-ca: TLS
    kSlurmScheduler = 1u << 3,       // --slurm-conf: --scheduler slurm
    kAutoDrain = 1u << 4,            // automation: its circuit breaker
    kTokens = 1u << 5,               // operator actions' options: --tokens
    kRealSource = 1u << 6,           // a real source's options: a real source
    kFleetFile = 1u << 7,            // a real source: --fleet FILE, its inventory
    kTwin = 1u << 8,                 // the twin's options: no real source
    kExporters = 1u << 9,            // the exporter pages' options: --serve-exporters
    kExportersConfig = 1u << 10,     // --exporters-scrape-interval: --exporters-config
    kNotHeadlessPager = 1u << 11,    // --alertmanager: a running fleetd
    kNotHeadlessPages = 1u << 12,    // --serve-exporters: a running fleetd
    kTwinRedfish = 1u << 13,         // --serve-redfish: a running twin
    kTwinPages = 1u << 14,           // --serve-exporters: the twin
    kScrape = 1u << 15,              // --scrape-*: --source scrape
    kRedfish = 1u << 16,             // --redfish-*: --source redfish=URL
    kStore = 1u << 17,               // a store's options: --source prometheus=URL (or scrape)
    kPolledStore = 1u << 18,         // --poll, --store-lookback: a store that is polled
    kRedfishTimeoutFits = 1u << 19,  // --redfish-timeout <= --redfish-interval
    kScrapeTimeoutFits = 1u << 20,   // --scrape-timeout <= --scrape-interval
    kSlurmOnRealFleet = 1u << 21,    // --tokens on a real fleet: --scheduler slurm
    kServedRedfish = 1u << 22,       // --serve-redfish-credentials: --serve-redfish
};

struct Flag {
    std::string_view name;  // "--racks"
    // The value's placeholder in the synopsis: "N", "HOST:PORT", "sim|slurm"; "" for a switch;
    // "[=D]" for a value given only inline (--warm-start[=D]). A flag with several forms
    // (--source scrape, --source prometheus=URL) has a row per form, the first one parsing all.
    std::string_view value;
    Section section;
    std::uint32_t needs;  // Need bits
    // Stores the value into `given.cl`; false with `given.error` set for a bad one.
    bool (*parse)(const GivenFlag& given);
    // --help's text after the synopsis, lines split by '\n'; empty: the flag shares the next
    // row's line ("--tls-cert FILE --tls-key FILE  serve TLS ...").
    std::string_view help;
    std::string_view alias = {};  // another name for it ("-h")

    // "--racks N", "--warm-start[=D]", "--simulate".
    std::string synopsis() const;
    bool takesValue() const { return !value.empty() && value.front() != '['; }
};

// Every row, in --help's order.
std::span<const Flag> flagTable();

// The first broken rule among the given flags (in the order given), with `error` set; true when
// none is.
[[nodiscard]] bool checkNeeds(std::span<const Flag* const> given, const CommandLine& cl, std::string* error);

}  // namespace watchfloor::server::fleetd
