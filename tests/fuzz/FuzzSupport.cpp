#include "FuzzSupport.h"

#include <unistd.h>
#include <filesystem>
#include <fstream>

namespace watchfloor::fuzz {

ScratchDir::ScratchDir() {
    std::string base = "/dev/shm";
    if (::access(base.c_str(), W_OK) != 0) {
        const char* tmp = std::getenv("TMPDIR");
        base = tmp && *tmp ? tmp : "/tmp";
    }
    std::string pattern = base + "/watchfloor-fuzz-XXXXXX";
    if (!::mkdtemp(pattern.data())) fail(__FILE__, __LINE__, "mkdtemp", "cannot create a folder in " + base);
    path_ = pattern;
}

ScratchDir::~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

std::string ScratchDir::write(const std::string& name, const std::uint8_t* data, std::size_t size) const {
    const std::string target = file(name);
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) fail(__FILE__, __LINE__, "write", "cannot write " + target);
    return target;
}

void explain(const std::string& what) {
    static const bool on = std::getenv("WATCHFLOOR_FUZZ_EXPLAIN") != nullptr;
    if (on) std::fprintf(stderr, "explain: %s\n", what.c_str());
}

std::string ScratchDir::write(const std::string& name, const std::string& text) const {
    return write(name, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

}  // namespace watchfloor::fuzz
