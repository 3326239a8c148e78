#pragma once
// Shared tokenizer for fleetd's two text formats (fleet files and scenario files):
// whitespace-separated words, `key=value` options (`key="a value with blanks"`), `#` comments,
// errors with file:line.

#include "ConfigError.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace watchfloor::server {

struct ParsedLine {
    int number = 0;
    std::vector<std::string> words;              // positional words, in order
    std::map<std::string, std::string> options;  // key=value pairs
};

// Reads `path` into non-empty, comment-stripped lines. Fails when the file cannot be read or a
// `key=value` repeats a key.
std::optional<std::vector<ParsedLine>> readConfigLines(const std::string& path, ConfigError* error);

// Option readers: each removes the key it reads, so leftovers can be reported as unknown.
class OptionReader {
public:
    OptionReader(const std::string& file, ParsedLine& line, ConfigError* error)
        : file_(file), line_(line), error_(error) {}

    bool has(const std::string& key) const { return line_.options.count(key) != 0; }
    std::optional<std::string> text(const std::string& key);
    // Reads the key when its value is exactly `word` (e.g. ckpt_interval=auto); otherwise leaves
    // it for the typed readers.
    bool word(const std::string& key, const std::string& word);
    // Returns false (error set) when present but not a number in [low, high].
    bool number(const std::string& key, double low, double high, double& value);
    bool duration(const std::string& key, std::chrono::milliseconds& value);
    // Fails naming the first key nobody read.
    bool noLeftovers();
    bool fail(const std::string& problem);
    int lineNumber() const { return line_.number; }

private:
    const std::string& file_;
    ParsedLine& line_;
    ConfigError* error_;
};

}  // namespace watchfloor::server
