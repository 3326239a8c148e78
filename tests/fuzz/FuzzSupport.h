#pragma once
// What every fuzz target shares: a private scratch folder for parsers that read a path, and
// FUZZ_CHECK, which turns a broken promise of the code under test into a crash libFuzzer keeps.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace watchfloor::fuzz {

// One folder per fuzzing process, on /dev/shm when there is one: the audit log fsyncs what it
// writes, and a disk would make that the cost of every input. Removed when the process ends.
class ScratchDir {
public:
    ScratchDir();
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    // Replaces the file `name` with exactly these bytes; returns its path.
    std::string write(const std::string& name, const std::uint8_t* data, std::size_t size) const;
    std::string write(const std::string& name, const std::string& text) const;

private:
    std::string path_;
};

// With WATCHFLOOR_FUZZ_EXPLAIN set, what the code under test answered an input, one line each:
// how to see why a seed is refused (e.g. `WATCHFLOOR_FUZZ_EXPLAIN=1 fuzz_scenario -runs=0 DIR`).
void explain(const std::string& what);

[[noreturn]] inline void fail(const char* file, int line, const char* what, const std::string& detail) {
    std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: %s\n", file, line, what, detail.c_str());
    std::abort();
}

}  // namespace watchfloor::fuzz

// A promise the code under test makes about any input (e.g. "a refusal says why").
#define FUZZ_CHECK(condition, detail) \
    ((condition) ? void(0) : ::watchfloor::fuzz::fail(__FILE__, __LINE__, #condition, (detail)))
