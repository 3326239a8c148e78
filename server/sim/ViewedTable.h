#pragma once
// Rows the twin's read view shows (trays, racks). Reading is free; writing needs edit(), which
// records that the table changed, so publishing the view can never miss a write: there is no
// flag to remember to set. Publishing takes the record and rescans only after a change.

#include <cstddef>
#include <vector>

namespace watchfloor::server::sim {

template <class Row>
class ViewedTable {
public:
    void resize(std::size_t n) {
        rows_.resize(n);
        changed_ = true;
    }
    std::size_t size() const { return rows_.size(); }
    bool empty() const { return rows_.empty(); }
    const Row& operator[](std::size_t i) const { return rows_[i]; }
    typename std::vector<Row>::const_iterator begin() const { return rows_.begin(); }
    typename std::vector<Row>::const_iterator end() const { return rows_.end(); }

    Row& edit(std::size_t i) {
        changed_ = true;
        return rows_[i];
    }
    // Whether anything was edited since the last call.
    bool takeChanged() {
        const bool changed = changed_;
        changed_ = false;
        return changed;
    }

private:
    std::vector<Row> rows_;
    bool changed_ = true;
};

}  // namespace watchfloor::server::sim
