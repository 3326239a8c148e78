#pragma once
// What a ScrapeSource handed to fleetd's tick thread so far, as the scrape tests read it: newest
// value per series, every event, newest state per entity, newest source status; and, when a test
// sets one, fleetd's link watches (rail links, NVLink5) fed the same changes.

#include "LinkHealthKeeper.h"
#include "NvlinkHealthKeeper.h"
#include "ScrapeSource.h"

#include <QString>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace watchfloor::testing {

inline std::int64_t wallMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

class ScrapeCollected {
public:
    void take(server::sources::ScrapeSource& source) {
        server::FleetChanges changes;
        source.advanceTo(source.now(), changes);
        if (links) links->observe(changes);
        if (nvlinks) nvlinks->observe(changes);  // its verdicts are samples too, recorded below
        for (std::size_t i = 0; i < changes.samples.size(); ++i)
            values_[{changes.samples[i].entityIndex, changes.samples[i].metric}] = {changes.samples[i].value,
                                                                                    changes.sampleTimeMs(i)};
        for (auto& e : changes.events) events_.push_back(e);
        for (auto& s : changes.states) states_[s.entity_index()] = s;
        for (auto& s : changes.sources) status_ = s;
    }
    std::unique_ptr<server::LinkHealthKeeper> links;      // fleetd's link watch, when a test sets one
    std::unique_ptr<server::NvlinkHealthKeeper> nvlinks;  // and its NVLink5 watch
    std::optional<std::pair<float, std::int64_t>> value(std::uint32_t entity, watchfloor::v1::Metric metric) const {
        auto it = values_.find({entity, metric});
        if (it == values_.end()) return std::nullopt;
        return it->second;
    }
    std::vector<watchfloor::v1::Event> events(const std::string& cause) const {
        std::vector<watchfloor::v1::Event> found;
        for (const auto& e : events_)
            if (e.type() == watchfloor::v1::EVENT_TYPE_SOURCE && e.cause() == cause) found.push_back(e);
        return found;
    }
    const watchfloor::v1::EntityState* state(std::uint32_t entity) const {
        auto it = states_.find(entity);
        return it == states_.end() ? nullptr : &it->second;
    }
    // The tray's target of `exporter` ("dcgm-exporter", "node_exporter") as last reported.
    const watchfloor::v1::ScrapeTarget* target(std::uint32_t tray, const std::string& exporter) const {
        const auto* s = state(tray);
        if (!s) return nullptr;
        for (const auto& t : s->telemetry().targets())
            if (t.exporter() == exporter) return &t;
        return nullptr;
    }
    const watchfloor::v1::SourceStatus& status() const { return status_; }
    QString describe() const {
        return QString("scrape health %1, targets %2 (up %3, down %4, frozen %5), hosts silent %6, error '%7'")
            .arg(status_.health())
            .arg(status_.targets())
            .arg(status_.targets_up())
            .arg(status_.targets_down())
            .arg(status_.targets_frozen())
            .arg(status_.hosts_silent())
            .arg(status_.last_error().c_str());
    }

private:
    std::map<std::pair<std::uint32_t, int>, std::pair<float, std::int64_t>> values_;
    std::vector<watchfloor::v1::Event> events_;
    std::map<std::uint32_t, watchfloor::v1::EntityState> states_;
    watchfloor::v1::SourceStatus status_;
};

}  // namespace watchfloor::testing
