#include "CommandLine.h"

#include "Fail.h"
#include "FlagTable.h"

#include <algorithm>

namespace watchfloor::server::fleetd {

namespace {

// The description column of --help: a synopsis that reaches it is followed by two spaces.
constexpr std::size_t kHelpColumn = 25;

const Flag* findFlag(const std::string& name) {
    for (const Flag& flag : flagTable())
        if (flag.name == name || flag.alias == name) return &flag;
    return nullptr;
}

// "  --listen HOST:PORT     address to serve on ..." and its continuation lines.
void appendHelpLine(std::string head, std::string_view help, std::string& out) {
    head = "  " + head;
    head += head.size() < kHelpColumn ? std::string(kHelpColumn - head.size(), ' ') : std::string("  ");
    for (std::string indent = std::move(head);; indent.assign(kHelpColumn, ' ')) {
        const auto newline = help.find('\n');
        out.append(indent).append(help.substr(0, newline)).append("\n");
        if (newline == std::string_view::npos) break;
        help.remove_prefix(newline + 1);
    }
}

}  // namespace

std::string usageText() {
    std::string text =
        "usage: fleetd [options]\n"
        "Serves the watchfloor.v1 fleet API (gRPC) for a fleet source; the digital twin by default.\n";
    std::optional<Section> section;
    std::string head;  // the synopses that share the next line
    for (const Flag& flag : flagTable()) {
        if (flag.section != section) {
            section = flag.section;
            text += "\n";
            if (const auto heading = sectionHeading(flag.section); !heading.empty()) text.append(heading).append("\n");
        }
        head += (head.empty() ? "" : " ") + flag.synopsis();
        if (!flag.alias.empty()) head.append(", ").append(flag.alias);
        if (flag.help.empty()) continue;
        appendHelpLine(std::move(head), flag.help, text);
        head.clear();
    }
    return text +
           "\n"
           "fleetd logs to stderr, including its 'listening on HOST:PORT' line once it serves; stdout\n"
           "carries only --help, --version and --dump-events - output.\n"
           "\n"
           "Exit status: 0 ok (SIGTERM/SIGINT = graceful shutdown), 1 bad fleet/scenario file or\n"
           "cannot listen, 2 bad command line or an unusable tokens file, TLS file or audit log.\n";
}

std::vector<std::string> acceptedFlags() {
    std::vector<std::string> flags;
    for (const Flag& flag : flagTable()) {
        flags.emplace_back(flag.name);
        if (!flag.alias.empty()) flags.emplace_back(flag.alias);
    }
    std::sort(flags.begin(), flags.end());
    flags.erase(std::unique(flags.begin(), flags.end()), flags.end());
    return flags;
}

std::vector<FlagDoc> documentedFlags() {
    std::vector<FlagDoc> docs;
    for (const Flag& flag : flagTable()) {
        const std::string section(sectionTitle(flag.section));
        docs.push_back({std::string(flag.name), flag.synopsis(), section});
        if (!flag.alias.empty()) docs.push_back({std::string(flag.alias), std::string(flag.alias), section});
    }
    return docs;
}

bool parseCommandLine(const std::vector<std::string>& args, CommandLine* out, std::string* error) {
    CommandLine cl;
    std::vector<const Flag*> given;  // in the order given, to name the first one out of place
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i], value;
        bool hasValue = false;
        if (const auto eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = name.substr(eq + 1);
            name.resize(eq);
            hasValue = true;
        }
        const Flag* flag = findFlag(name);
        if (!flag) return fail(error, "unknown option \"" + args[i] + "\"");
        if (flag->takesValue() && !hasValue) {
            if (i + 1 >= args.size()) return fail(error, name + ": missing value");
            value = args[++i];
            hasValue = true;
        }
        if (flag->value.empty() && hasValue) return fail(error, name + " takes no value");
        if (!flag->parse({name, value, hasValue, cl, error})) return false;
        given.push_back(flag);
    }
    if (cl.mode == CommandLine::Mode::Help || cl.mode == CommandLine::Mode::Version) {
        *out = cl;
        return true;
    }
    if (cl.simDuration) cl.mode = CommandLine::Mode::DumpEvents;
    if (!checkNeeds(given, cl, error)) return false;
    if (cl.racks && cl.regions && *cl.regions > *cl.racks)
        return fail(error, "--regions (" + std::to_string(*cl.regions) + ") cannot exceed --racks (" +
                               std::to_string(*cl.racks) + ")");
    *out = cl;
    return true;
}

}  // namespace watchfloor::server::fleetd
