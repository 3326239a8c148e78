#pragma once
// A map of at most `capacity` entries that forgets the least recently used one first. For caches
// keyed by something a client chooses (a subscription filter), which must not grow with the
// number of distinct keys clients ever sent. Not thread-safe.

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace watchfloor::server::service {

template <class Value>
class LruCache {
public:
    explicit LruCache(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

    // The entry for `key`, created empty (evicting the least recently used) when missing; it
    // becomes the most recently used. Valid until the next call.
    Value& operator[](const std::string& key) {
        if (const auto found = index_.find(key); found != index_.end()) {
            order_.splice(order_.begin(), order_, found->second);
            return found->second->second;
        }
        if (order_.size() >= capacity_) {
            index_.erase(order_.back().first);
            order_.pop_back();
        }
        order_.emplace_front(key, Value{});
        index_.emplace(key, order_.begin());
        return order_.front().second;
    }

    std::size_t size() const { return order_.size(); }
    std::size_t capacity() const { return capacity_; }

private:
    using Entries = std::list<std::pair<std::string, Value>>;
    std::size_t capacity_;
    Entries order_;  // most recently used first
    std::unordered_map<std::string, typename Entries::iterator> index_;
};

}  // namespace watchfloor::server::service
