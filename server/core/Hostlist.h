#pragma once
// Slurm's hostlist syntax, as squeue prints node lists and as sites name hosts in fleet files:
// "gb200-r01-n[01-18]", "r01-n[01-03,07],r02-n05", several bracket groups ("r[1-2]-n[01-02]").
// Zero-padded ranges keep their width ("01-18" gives "01" .. "18").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server {

// A single host name: letters, digits, '.', '_', '-', at most 64 characters.
bool isPlainHostName(std::string_view name);

// Every name, in order; nothing when the text is not a hostlist (unbalanced or nested brackets,
// a range that runs backwards or is not a number, a name with other characters, over a million names).
std::optional<std::vector<std::string>> expandHostlist(std::string_view hostlist);

}  // namespace watchfloor::server
