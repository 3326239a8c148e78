#pragma once
// A fleet-wide entity reference: which fleetd endpoint, and the entity's index on that server.
// Server indexes are unique only within one fleetd, so the console always carries both.

#include <QHashFunctions>
#include <QMetaType>

#include <cstdint>

namespace watchfloor::client {

struct EntityId {
    static constexpr std::uint16_t kNoEndpoint = 0xFFFF;

    std::uint16_t endpoint = kNoEndpoint;
    std::uint32_t index = 0;

    constexpr bool isValid() const { return endpoint != kNoEndpoint; }
    constexpr std::uint64_t key() const { return (std::uint64_t(endpoint) << 32) | index; }
    static constexpr EntityId fromKey(std::uint64_t k) {
        return EntityId{std::uint16_t(k >> 32), std::uint32_t(k & 0xFFFFFFFFu)};
    }
    friend constexpr bool operator==(EntityId a, EntityId b) { return a.key() == b.key(); }
    friend constexpr bool operator<(EntityId a, EntityId b) { return a.key() < b.key(); }
};

inline size_t qHash(EntityId id, size_t seed = 0) { return ::qHash(id.key(), seed); }

}  // namespace watchfloor::client

Q_DECLARE_METATYPE(watchfloor::client::EntityId)
