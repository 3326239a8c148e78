#include "FleetRankings.h"

#include "FleetStore.h"
#include "JobProgress.h"

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

void appendWhy(QString& why, const QString& part) { why = why.isEmpty() ? part : why + QStringLiteral(", ") + part; }

}  // namespace

RankedEntity rankRack(EntityId rack, const RackFacts& f) {
    RankedEntity r{rack, 0, {}};
    QStringList why;
    if (f.isolated) {
        r.score += 1e6;
        why << QStringLiteral("isolated");
    }
    if (f.failed) {
        r.score += 5e5;
        why << QStringLiteral("failed");
    }
    if (f.leaksWet > 0) {
        r.score += 4e5;
        why << QStringLiteral("%1 leak sensor(s) wet").arg(f.leaksWet);
    }
    if (f.degraded) {
        r.score += 1e5;
        why << QStringLiteral("degraded");
    }
    // Silent trays may be fine, but nobody can tell: above GPU counts, below a known fault.
    if (f.silentTrays > 0) {
        r.score += 5e2 * f.silentTrays;
        why << QStringLiteral("telemetry silent on %1 tray(s)").arg(f.silentTrays);
    }
    if (f.gpusDown > 0) {
        r.score += 1e3 * f.gpusDown;
        why << QStringLiteral("%1 GPU(s) down").arg(f.gpusDown);
    }
    if (f.gpusDegraded > 0) {
        r.score += 1e2 * f.gpusDegraded;
        why << QStringLiteral("%1 GPU(s) degraded").arg(f.gpusDegraded);
    }
    if (f.gpuTempMaxC > 0) {
        r.score += f.gpuTempMaxC;  // the tie-breaker between otherwise healthy racks
        if (f.gpuTempMaxC >= 85) why << QStringLiteral("GPU max %1 °C").arg(f.gpuTempMaxC, 0, 'f', 0);
    }
    if (f.linkErrorsPerMin > 0) {
        r.score += std::min(f.linkErrorsPerMin, 1e3) * 0.5;
        why << QStringLiteral("%1 link errors/min").arg(f.linkErrorsPerMin);
    }
    r.why = why.isEmpty() ? QStringLiteral("healthy") : why.join(QStringLiteral(", "));
    return r;
}

void addRecentAlerts(RankedEntity& rack, int critical, int warning) {
    if (critical <= 0 && warning <= 0) return;
    rack.score += 50.0 * critical + 10.0 * warning;
    QStringList counts;
    if (critical > 0) counts << QStringLiteral("%1 critical").arg(critical);
    if (warning > 0) counts << QStringLiteral("%1 warning").arg(warning);
    const QString alerts = QStringLiteral("alerts in 15 min: %1").arg(counts.join(QStringLiteral(", ")));
    rack.why = rack.why == QStringLiteral("healthy") ? alerts : rack.why + QStringLiteral(", ") + alerts;
}

RackFacts rackFacts(const FleetStore& store, int row) {
    const EntityId rack = store.rackAt(row);
    const EntityStatus st = store.status(rack);
    auto value = [&](v1::Metric m) {
        const Reading x = store.rackReading(row, m);
        return x.hasValue() ? double(x.value) : 0.0;
    };
    RackFacts f;
    f.isolated = st.rackState == v1::RACK_STATE_ISOLATED;
    f.failed = st.health == v1::HEALTH_STATE_FAILED;
    f.degraded = st.rackState == v1::RACK_STATE_DEGRADED || st.health == v1::HEALTH_STATE_DEGRADED;
    f.leaksWet = value(v1::RACK_LEAK_DETECT);
    f.silentTrays = store.silentTraysInRack(rack);
    f.gpusDown = value(v1::RACK_GPUS_DOWN);
    f.gpusDegraded = value(v1::RACK_GPUS_DEGRADED);
    f.gpuTempMaxC = value(v1::RACK_GPU_TEMP_MAX_C);
    f.linkErrorsPerMin = value(v1::RACK_LINK_ERRORS_PER_MIN);
    return f;
}

std::vector<RankedEntity> worstRacks(const FleetStore& store, int n) {
    std::vector<RankedEntity> all;
    all.reserve(std::size_t(store.rackCount()));
    for (int row = 0; row < store.rackCount(); ++row) all.push_back(rankRack(store.rackAt(row), rackFacts(store, row)));
    // Recent warnings and criticals (last 15 min of their endpoint's server time) count against their rack.
    std::unordered_map<std::uint64_t, std::pair<int, int>> alerts;
    for (const StoredEvent& e : store.eventLog().events()) {
        if (e.event.time_unix_ms() < store.endpointFleet(e.endpoint).serverTimeUnixMs() - 15 * 60 * 1000) continue;
        const EntityId rack = store.rackOf(store.eventEntity(e));
        if (!rack.isValid()) continue;
        if (e.event.severity() == v1::SEVERITY_CRITICAL) ++alerts[rack.key()].first;
        if (e.event.severity() == v1::SEVERITY_WARNING) ++alerts[rack.key()].second;
    }
    for (RankedEntity& r : all) {
        if (const auto it = alerts.find(r.id.key()); it != alerts.end())
            addRecentAlerts(r, it->second.first, it->second.second);
    }
    const auto keep = std::min<std::size_t>(all.size(), std::size_t(std::max(n, 0)));
    std::partial_sort(all.begin(), all.begin() + std::ptrdiff_t(keep), all.end(),
                      [](const RankedEntity& a, const RankedEntity& b) { return a.score > b.score; });
    all.resize(keep);
    return all;
}

std::optional<RankedEntity> worstLink(const FleetStore& store) {
    struct Term {
        v1::EntityKind kind;
        v1::Metric metric;
        bool isBer;
        const char* label;
    };
    static constexpr Term kTerms[] = {
        {v1::ENTITY_KIND_NVLINK, v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO, true, "BER"},
        {v1::ENTITY_KIND_NVLINK, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL, false, "CRC errors"},
        {v1::ENTITY_KIND_NVLINK, v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL, false, "recoveries"},
        {v1::ENTITY_KIND_NIC_PORT, v1::IB_EFFECTIVE_BER, true, "effective BER"},
        {v1::ENTITY_KIND_NIC_PORT, v1::IB_SYMBOL_ERROR_COUNTER, false, "symbol errors"},
        {v1::ENTITY_KIND_NIC_PORT, v1::IB_LINK_DOWNED_COUNTER, false, "link downed"},
        {v1::ENTITY_KIND_GPU, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_TOTAL, false, "NVLink CRC errors"},
        {v1::ENTITY_KIND_GPU, v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_TOTAL, false, "NVLink recoveries"},
    };
    std::optional<RankedEntity> best;
    for (int ep = 0; ep < store.endpointCount(); ++ep) {
        const EndpointFleet& fleet = store.endpointFleet(ep);
        const bool haveLinks =
            fleet.topology().count(v1::ENTITY_KIND_NVLINK) + fleet.topology().count(v1::ENTITY_KIND_NIC_PORT) > 0;
        std::unordered_map<std::uint32_t, RankedEntity> scored;  // by server index
        for (const Term& term : kTerms) {
            if (haveLinks == (term.kind == v1::ENTITY_KIND_GPU)) continue;
            const MetricColumn* column = fleet.column(term.kind, term.metric);
            if (!column) continue;
            for (std::uint32_t slot = 0; slot < column->values.size(); ++slot) {
                const float v = column->values[slot];
                if (column->stamps[slot] == 0 || std::isnan(v) || v <= 0) continue;
                const double score =
                    term.isBer ? 1e3 * std::max(0.0, 15.0 + std::log10(double(v))) : std::min(double(v), 1e4);
                const std::uint32_t index = fleet.topology().indexAt(term.kind, slot);
                RankedEntity& r = scored[index];
                r.id = EntityId{quint16(ep), index};
                r.score += score;
                appendWhy(r.why, term.isBer
                                     ? QStringLiteral("%1 %2").arg(QLatin1String(term.label)).arg(double(v), 0, 'g', 2)
                                     : QStringLiteral("%1 %2").arg(double(v)).arg(QLatin1String(term.label)));
            }
        }
        if (haveLinks) {
            for (v1::EntityKind kind : {v1::ENTITY_KIND_NVLINK, v1::ENTITY_KIND_NIC_PORT}) {
                for (std::uint32_t slot = 0; slot < fleet.topology().count(kind); ++slot) {
                    const std::uint32_t index = fleet.topology().indexAt(kind, slot);
                    const v1::LinkState ls = fleet.status(index).linkState;
                    if (ls != v1::LINK_STATE_DOWN && ls != v1::LINK_STATE_FLAPPING) continue;
                    RankedEntity& r = scored[index];
                    r.id = EntityId{quint16(ep), index};
                    r.score += ls == v1::LINK_STATE_DOWN ? 1e6 : 5e5;
                    const QString part =
                        ls == v1::LINK_STATE_DOWN ? QStringLiteral("down") : QStringLiteral("flapping");
                    r.why = r.why.isEmpty() ? part : part + QStringLiteral(", ") + r.why;  // the state first
                }
            }
        }
        for (auto& [index, r] : scored) {
            if (!best || r.score > best->score) best = r;
        }
    }
    return best;
}

std::optional<RankedEntity> biggestJob(const FleetStore& store) {
    std::optional<RankedEntity> best;
    for (int row = 0; row < store.jobCount(); ++row) {
        const v1::Job* j = store.job(row);
        if (!j || !jobIsActive(*j)) continue;
        if (!best || j->gpu_count() > best->score) {
            best = RankedEntity{store.jobAt(row), double(j->gpu_count()),
                                QStringLiteral("%1 GPUs on %2 nodes").arg(j->gpu_count()).arg(j->node_indexes_size())};
        }
    }
    return best;
}

std::optional<RankedEntity> worstRack(const FleetStore& store) {
    auto v = worstRacks(store, 1);
    return v.empty() ? std::nullopt : std::optional<RankedEntity>(v.front());
}

}  // namespace watchfloor::client
