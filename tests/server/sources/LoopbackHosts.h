#pragma once
// Hosts scraped by IP address, on one machine: a TCP forwarder on each of `count` loopback
// addresses 127.0.0.FIRST.. (all of 127/8 reaches lo on Linux), all on one port, each passing
// connections to one upstream port on 127.0.0.1 (the twin's exporter server). A scraper that
// connects to 127.0.0.13:PORT reaches the exporters as it would reach host 10.1.2.13 of a site.
// The port is `port` when given (the upstream's own: the other addresses have it free), else an
// ephemeral one.

#include "TcpDropProxy.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace watchfloor::testing {

class LoopbackHosts {
public:
    LoopbackHosts(std::uint16_t upstreamPort, unsigned first, unsigned count, std::uint16_t port = 0) : first_(first) {
        // An ephemeral port is the first forwarder's; another address may have it taken: retry.
        for (int attempt = 0; attempt < (port ? 1 : 5) && forwarders_.size() < count; ++attempt) {
            forwarders_.clear();
            try {
                forwarders_.push_back(std::make_unique<TcpDropProxy>(upstreamPort, address(0), port));
                port_ = forwarders_.front()->port();
                for (unsigned i = 1; i < count; ++i)
                    forwarders_.push_back(std::make_unique<TcpDropProxy>(upstreamPort, address(i), port_));
            } catch (const std::runtime_error& e) {
                error_ = e.what();
            }
        }
        if (forwarders_.size() == count) error_.clear();
    }
    bool ok() const { return error_.empty(); }
    const std::string& error() const { return error_; }
    std::uint16_t port() const { return port_; }
    // "127.0.0.FIRST+i"
    std::string ip(unsigned i) const { return "127.0.0." + std::to_string(first_ + i); }

private:
    std::uint32_t address(unsigned i) const { return (127u << 24) | (first_ + i); }

    unsigned first_;
    std::uint16_t port_ = 0;
    std::string error_;
    std::vector<std::unique_ptr<TcpDropProxy>> forwarders_;
};

}  // namespace watchfloor::testing
