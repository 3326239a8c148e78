// Every flag fleetd's parser accepts is documented as its row in the flag table says
// (server/fleetd/FlagTable.cpp, documentedFlags): with the same synopsis in `fleetd --help`
// (usageText) and in fleetd(8) (packaging/man/fleetd.8), and in fleetd(8) under the row's section
// (.SS); neither documents a flag the parser refuses. The synopsis is the flag with its value:
// "--auto-drain N/WINDOW[,max=P%]" in one and "--auto-drain N/WINDOW" in the other is a
// difference (the man_pages test compares flag names only). A plain test (no Qt): the parser's
// flags come from fleetd_cli itself (acceptedFlags).

#include "CommandLine.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Synopses = std::map<std::string, std::set<std::string>>;  // flag -> its documented forms
using Sections = std::map<std::string, std::set<std::string>>;  // flag -> the sections naming it

int failures = 0;

void check(bool ok, const std::string& what) {
    std::cout << (ok ? "PASS: " : "FAIL: ") << what << std::endl;
    failures += ok ? 0 : 1;
}

// "--tls-cert FILE --tls-key FILE" or "--help, -h": one synopsis per flag in the head.
void addSynopses(const std::string& head, Synopses& out) {
    std::istringstream words(std::regex_replace(head, std::regex(", "), " , "));
    std::string word, current;
    auto flush = [&] {
        if (current.empty()) return;
        out[current.substr(0, current.find_first_of(" [="))].insert(current);
        current.clear();
    };
    while (words >> word) {
        if (word == ",") continue;
        if (word[0] == '-') {
            flush();
            current = word;
        } else if (!current.empty()) {
            current += " " + word;
        }
    }
    flush();
}

// --help: an option line starts "  -"; its head runs to the first double space or, for a head
// that fills the column, to the description's column (25).
Synopses helpSynopses(const std::string& help) {
    Synopses out;
    std::istringstream lines(help);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("  -", 0) != 0) continue;
        const std::string rest = line.substr(2);
        const auto gap = rest.find("  ");
        const bool fillsColumn = gap == std::string::npos && rest.size() > 22 && rest[22] == ' ';
        addSynopses(rest.substr(0, fillsColumn ? 22 : gap), out);
    }
    return out;
}

// One man(7) font-macro line as rendered: .B/.I join their words with spaces, the alternating
// ones (.BI, .BR, .IR, ...) join them without; font escapes dropped, \- is a hyphen.
std::string rendered(const std::string& line) {
    std::smatch macro;
    if (!std::regex_match(line, macro, std::regex(R"(\.(B|I|BI|IB|BR|RB|IR|RI)\s+(.*))"))) return {};
    const bool alternating = macro[1].length() == 2;
    std::string joined;
    const std::string args = macro[2];
    const std::regex arg(R"re("([^"]*)"|(\S+))re");
    for (auto it = std::sregex_iterator(args.begin(), args.end(), arg); it != std::sregex_iterator(); ++it) {
        if (!joined.empty() && !alternating) joined += ' ';
        joined += (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
    }
    joined = std::regex_replace(joined, std::regex(R"(\\f[RBIP])"), "");
    return std::regex_replace(joined, std::regex(R"(\\-)"), "-");
}

// fleetd(8): the tag line after each .TP that names an option, and the .SS it stands under.
Synopses manSynopses(const std::string& page, Sections* sections = nullptr) {
    Synopses out;
    std::istringstream lines(page);
    std::string line, section;
    bool tag = false;
    while (std::getline(lines, line)) {
        if (line.rfind(".SH", 0) == 0) section.clear();
        if (line.rfind(".SS ", 0) == 0) section = std::regex_replace(line.substr(4), std::regex("\""), "");
        if (tag) {
            const std::string head = rendered(line);
            Synopses here;
            if (head.rfind("-", 0) == 0) addSynopses(head, here);
            for (const auto& [flag, forms] : here) {
                out[flag].insert(forms.begin(), forms.end());
                if (sections) (*sections)[flag].insert(section);
            }
        }
        tag = line.rfind(".TP", 0) == 0;
    }
    return out;
}

std::string join(const std::set<std::string>& forms) {
    std::string text;
    for (const auto& form : forms) text += (text.empty() ? "\"" : ", \"") + form + "\"";
    return text.empty() ? "nothing" : text;
}

}  // namespace

int main() {
    const char* source = std::getenv("WATCHFLOOR_SOURCE_DIR");
    const std::string pagePath = std::string(source ? source : ".") + "/packaging/man/fleetd.8";
    std::ifstream pageFile(pagePath);
    std::stringstream page;
    page << pageFile.rdbuf();
    check(pageFile.good() && !page.str().empty(), "read " + pagePath);

    const auto accepted = watchfloor::server::fleetd::acceptedFlags();
    const auto help = helpSynopses(watchfloor::server::fleetd::usageText());
    Sections manSections;
    const auto man = manSynopses(page.str(), &manSections);
    Synopses table;
    Sections tableSections;
    for (const auto& doc : watchfloor::server::fleetd::documentedFlags()) {
        table[doc.flag].insert(doc.synopsis);
        tableSections[doc.flag].insert(doc.section);
    }
    check(accepted.size() > 50, "the parser accepts " + std::to_string(accepted.size()) + " flags");

    // The test's own readers: a head with a value, a two-flag head, an alternating macro.
    Synopses probe;
    addSynopses("--tls-cert FILE --tls-key FILE", probe);
    addSynopses("--help, -h", probe);
    check(probe.size() == 4 && probe["--tls-key"] == std::set<std::string>{"--tls-key FILE"} && probe.count("-h"),
          "a head splits into one synopsis per flag");
    check(rendered(R"(.BI \-\-auto\-drain " N" / WINDOW\fR[\fP ,max= P %\fR]\fP)") == "--auto-drain N/WINDOW[,max=P%]",
          "a .BI tag renders as man shows it");
    Sections probeSections;
    manSynopses(
        ".SS \"Operator actions\"\n.TP\n.BI \\-\\-tokens \" FILE\"\nBearer tokens.\n.SH SIGNALS\n.TP\n.B \\-\\-x\n",
        &probeSections);
    check(probeSections["--tokens"] == std::set<std::string>{"Operator actions"} &&
              probeSections["--x"] == std::set<std::string>{""},
          "an option's section is the .SS it stands under, none past the next .SH");

    const std::set<std::string> acceptedSet(accepted.begin(), accepted.end());
    for (const auto& flag : accepted) {
        const std::set<std::string> inTable = table[flag];
        check(!inTable.empty(), flag + " has a row in the flag table");
        check(help.count(flag) && help.at(flag) == inTable,
              flag + ": the table says " + join(inTable) + ", --help says " +
                  join(help.count(flag) ? help.at(flag) : std::set<std::string>()));
        check(man.count(flag) && man.at(flag) == inTable,
              flag + ": the table says " + join(inTable) + ", fleetd(8) says " +
                  join(man.count(flag) ? man.at(flag) : std::set<std::string>()));
        check(manSections[flag] == tableSections[flag], flag + ": the table's section is " + join(tableSections[flag]) +
                                                            ", fleetd(8) has it under " + join(manSections[flag]));
    }
    for (const auto* documented : {&help, &man})
        for (const auto& [flag, forms] : *documented)
            check(acceptedSet.count(flag) != 0, (documented == &help ? "--help" : std::string("fleetd(8)")) +
                                                    " documents " + flag + ", which the parser accepts");
    std::cout << (failures ? "FAILED: " + std::to_string(failures) + " checks" : std::string("all passed"))
              << std::endl;
    return failures ? 1 : 0;
}
