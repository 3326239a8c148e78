#pragma once
// A credential kept in a file (bearer token, basic-auth password): read trimmed, and read again
// when the file changes, so a rotated token is picked up without restarting fleetd.

#include <sys/types.h>
#include <ctime>
#include <optional>
#include <string>

namespace watchfloor::server::prom {

class SecretFile {
public:
    explicit SecretFile(std::string path);
    bool configured() const { return !path_.empty(); }
    // The contents, or nullopt with `error` set to a one-line reason naming the file.
    [[nodiscard]] std::optional<std::string> read(std::string& error);

private:
    std::string path_;
    std::string cached_;
    bool loaded_ = false;
    dev_t device_ = 0;
    ino_t inode_ = 0;
    off_t size_ = 0;
    timespec modified_{};
};

}  // namespace watchfloor::server::prom
