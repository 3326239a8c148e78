#pragma once
// A fleet or scenario file that cannot be used, as a value an operator can act on.

#include <string>

namespace watchfloor::server {

struct ConfigError {
    std::string file;
    int line = 0;  // 0 when not about one line
    std::string problem;
    std::string toString() const;  // "FILE:LINE: PROBLEM"
};

}  // namespace watchfloor::server
