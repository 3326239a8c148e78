#include "LineParser.h"

#include "DurationParse.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace watchfloor::server {

std::string ConfigError::toString() const {
    std::string text = file;
    if (line > 0) text += ":" + std::to_string(line);
    return text + ": " + problem;
}

namespace {

// Blank-separated words; `#` outside quotes starts a comment; "..." keeps blanks and `#` inside a
// word (reason="GPU 2 hot # again"), the quotes themselves are dropped. False: a quote is open.
bool splitWords(const std::string& raw, std::vector<std::string>& words) {
    std::string word;
    bool inWord = false, quoted = false;
    for (const char c : raw) {
        if (quoted) {
            if (c == '"')
                quoted = false;
            else
                word += c;
            continue;
        }
        if (c == '#') break;
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (inWord) words.push_back(std::move(word));
            word.clear();
            inWord = false;
            continue;
        }
        inWord = true;
        if (c == '"')
            quoted = true;
        else
            word += c;
    }
    if (inWord) words.push_back(std::move(word));
    return !quoted;
}

}  // namespace

std::optional<std::vector<ParsedLine>> readConfigLines(const std::string& path, ConfigError* error) {
    std::ifstream in(path);
    if (!in) {
        if (error) *error = {path, 0, "cannot open file for reading"};
        return std::nullopt;
    }
    std::vector<ParsedLine> lines;
    std::string raw;
    int number = 0;
    while (std::getline(in, raw)) {
        ++number;
        ParsedLine line;
        line.number = number;
        std::vector<std::string> words;
        if (!splitWords(raw, words)) {
            if (error) *error = {path, number, "unterminated quote (a quoted value ends with \")"};
            return std::nullopt;
        }
        for (const std::string& word : words) {
            const auto eq = word.find('=');
            if (eq == std::string::npos) {
                line.words.push_back(word);
                continue;
            }
            const std::string key = word.substr(0, eq);
            if (key.empty() || eq + 1 == word.size()) {
                if (error) *error = {path, number, "malformed option '" + word + "' (expected key=value)"};
                return std::nullopt;
            }
            if (!line.options.emplace(key, word.substr(eq + 1)).second) {
                if (error) *error = {path, number, "option '" + key + "' given twice"};
                return std::nullopt;
            }
        }
        if (!line.words.empty() || !line.options.empty()) lines.push_back(std::move(line));
    }
    return lines;
}

bool OptionReader::fail(const std::string& problem) {
    if (error_) *error_ = {file_, line_.number, problem};
    return false;
}

bool OptionReader::word(const std::string& key, const std::string& word) {
    auto it = line_.options.find(key);
    if (it == line_.options.end() || it->second != word) return false;
    line_.options.erase(it);
    return true;
}

std::optional<std::string> OptionReader::text(const std::string& key) {
    auto it = line_.options.find(key);
    if (it == line_.options.end()) return std::nullopt;
    std::string value = it->second;
    line_.options.erase(it);
    return value;
}

bool OptionReader::number(const std::string& key, double low, double high, double& value) {
    const auto raw = text(key);
    if (!raw) return true;
    errno = 0;
    char* end = nullptr;
    const double parsed = std::strtod(raw->c_str(), &end);
    if (errno != 0 || end == raw->c_str() || *end != '\0' || !std::isfinite(parsed))
        return fail("'" + key + "=" + *raw + "' is not a number");
    if (parsed < low || parsed > high) {
        std::ostringstream range;
        range << "'" << key << "=" << *raw << "' is out of range [" << low << ", " << high << "]";
        return fail(range.str());
    }
    value = parsed;
    return true;
}

bool OptionReader::duration(const std::string& key, std::chrono::milliseconds& value) {
    const auto raw = text(key);
    if (!raw) return true;
    const auto parsed = parseDuration(*raw);
    if (!parsed) return fail("'" + key + "=" + *raw + "' is not a duration (e.g. 90s, 10m, 6h, 1h30m)");
    value = *parsed;
    return true;
}

bool OptionReader::noLeftovers() {
    if (line_.options.empty()) return true;
    return fail("unknown option '" + line_.options.begin()->first + "'");
}

}  // namespace watchfloor::server
