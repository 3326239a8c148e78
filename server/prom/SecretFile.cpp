#include "SecretFile.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace watchfloor::server::prom {

namespace {

std::string trimmed(std::string text) {
    const char* space = " \t\r\n";
    const auto first = text.find_first_not_of(space);
    if (first == std::string::npos) return {};
    const auto last = text.find_last_not_of(space);
    return text.substr(first, last - first + 1);
}

}  // namespace

SecretFile::SecretFile(std::string path) : path_(std::move(path)) {}

std::optional<std::string> SecretFile::read(std::string& error) {
    struct stat info {};
    if (::stat(path_.c_str(), &info) != 0) {
        error = "cannot read " + path_ + ": " + std::strerror(errno);
        return std::nullopt;
    }
    // Secrets mounted by Kubernetes are replaced by a symlink swap: a new inode, maybe the same
    // size and time, so all four are compared.
    const bool unchanged = loaded_ && info.st_dev == device_ && info.st_ino == inode_ && info.st_size == size_ &&
                           info.st_mtim.tv_sec == modified_.tv_sec && info.st_mtim.tv_nsec == modified_.tv_nsec;
    if (unchanged) return cached_;
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
        error = "cannot read " + path_ + ": " + std::strerror(errno);
        return std::nullopt;
    }
    std::ostringstream contents;
    contents << in.rdbuf();
    std::string secret = trimmed(contents.str());
    if (secret.empty()) {
        error = path_ + " is empty";
        return std::nullopt;
    }
    if (secret.find_first_of("\r\n") != std::string::npos) {
        error = path_ + " holds more than one line";
        return std::nullopt;
    }
    cached_ = std::move(secret);
    loaded_ = true;
    device_ = info.st_dev;
    inode_ = info.st_ino;
    size_ = info.st_size;
    modified_ = info.st_mtim;
    return cached_;
}

}  // namespace watchfloor::server::prom
