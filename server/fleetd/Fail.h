#pragma once
// fleetd's one way to report an error (CONTRIBUTING.md, "Errors"): the function returns false (or
// an empty optional, a null pointer) and says why in `*error`, a sentence that names the input
// ("--racks: expected a whole number from 1 to 10000, got \"0\""); the caller adds "fleetd: " and
// picks the exit status.

#include <string>
#include <utility>

namespace watchfloor::server::fleetd {

// `return fail(error, "--tls-cert and --tls-key go together");` returns false; a function that
// returns something else names its failed value: `return fail(error, why, nullptr);`.
template <class Failed = bool>
[[nodiscard]] Failed fail(std::string* error, std::string message, Failed failed = {}) {
    *error = std::move(message);
    return failed;
}

}  // namespace watchfloor::server::fleetd
