#pragma once
// Runs a program with an explicit argument vector (no shell, so no quoting or injection), extra
// environment variables, and a deadline after which the child is killed.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace watchfloor::server {

struct CommandResult {
    int exitCode = -1;
    bool timedOut = false;
    std::string startError;  // the program could not be started
    std::string out;
    std::string err;

    bool succeeded() const { return startError.empty() && !timedOut && exitCode == 0; }
    // What went wrong, in the program's own words where it gave any.
    std::string failureText(const std::string& program, std::chrono::milliseconds timeout) const;
};

using EnvironmentOverrides = std::vector<std::pair<std::string, std::string>>;

CommandResult runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                         const EnvironmentOverrides& environment = {});

}  // namespace watchfloor::server
