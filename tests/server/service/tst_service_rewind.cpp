// GetStateAsOf: the fleet as it was at a past moment, folded from the rewind log, the history
// store and the event journal, after scripted changes (a rack isolated and restored, incidents
// opened, acknowledged and resolved), and refused clearly out of range or in the future.

#include "AsOfAnswer.h"
#include "TinyFleetSource.h"

#include <QtTest>

using namespace watchfloor::server;
using namespace watchfloor::server::service;
using watchfloor::server::testing::TinyFleetSource;
namespace v1 = watchfloor::v1;

namespace {

v1::Incident incident(std::uint64_t id, v1::IncidentState state, std::int64_t timeMs, const char* owner = "") {
    v1::Incident i;
    i.set_id(id);
    i.set_state(state);
    i.set_started_unix_ms(timeMs);
    i.set_owner(owner);
    i.set_title("incident " + std::to_string(id));
    if (state == v1::INCIDENT_STATE_RESOLVED) i.set_resolved_unix_ms(timeMs);
    auto* entry = i.add_timeline();
    entry->set_time_unix_ms(timeMs);
    entry->set_state(state);
    return i;
}

// 40 one-second ticks of the tiny fleet with a script on top: r01 isolated at tick 10 and back in
// service at 20; incident 1 opens at 5, acknowledged by alice at 15, resolved at 25; incident 2
// opens at 12 and stays open. Every tick an incident changes its goodput cost only.
struct ScriptedFleet {
    TinyFleetSource source;
    FleetStateStore store;
    HistoryStore history{store.index()};
    std::uint32_t rack = source.topology().racks(0).index();
    std::uint32_t loop = source.topology().cooling_loops(0).index();
    std::map<int, float> loopFlowAt;  // tick -> the live value the store held then
    std::map<int, std::int64_t> timeAt;

    explicit ScriptedFleet(StoreLimits limits = {}) : store(source.topology(), limits) {
        v1::Incident one, two;
        for (int tick = 1; tick <= 40; ++tick) {
            FleetChanges changes;
            source.advanceTo(source.now() + std::chrono::seconds(1), changes);
            const std::int64_t t = toUnixMs(changes.time);
            if (tick == 10 || tick == 20) {
                v1::EntityState s;
                s.set_entity_index(rack);
                s.set_rack_state(tick == 10 ? v1::RACK_STATE_ISOLATED : v1::RACK_STATE_IN_SERVICE);
                s.set_since_unix_ms(t);
                changes.states.push_back(s);
            }
            if (tick == 5) one = incident(1, v1::INCIDENT_STATE_OPEN, t);
            if (tick == 15) {
                one.set_state(v1::INCIDENT_STATE_ACKNOWLEDGED);
                one.set_owner("alice");
                auto* entry = one.add_timeline();
                entry->set_time_unix_ms(t);
                entry->set_state(v1::INCIDENT_STATE_ACKNOWLEDGED);
            }
            if (tick == 25) {
                one.set_state(v1::INCIDENT_STATE_RESOLVED);
                one.set_resolved_unix_ms(t);
            }
            if (tick == 12) two = incident(2, v1::INCIDENT_STATE_OPEN, t);
            if (tick >= 5) {
                one.set_goodput_cost_gpu_hours(tick);
                changes.incidents.push_back(one);
            }
            if (tick >= 12) changes.incidents.push_back(two);
            store.apply(changes, &history);
            loopFlowAt[tick] = store.latest(loop, v1::RACK_LIQUID_FLOW_LPM)->value;
            timeAt[tick] = t;
        }
    }

    grpc::Status ask(std::int64_t asOf, v1::AsOfState* out, bool earliestIfBefore = false) const {
        v1::AsOfRequest request;
        request.set_as_of_unix_ms(asOf);
        request.set_earliest_if_before(earliestIfBefore);
        return answerStateAsOf(request, store, history, "run-a", out);
    }
};

v1::RackState rackStateIn(const v1::AsOfState& state, std::uint32_t rack) {
    for (const auto& s : state.states())
        if (s.entity_index() == rack) return s.rack_state();
    return v1::RACK_STATE_UNSPECIFIED;
}

const v1::Incident* incidentIn(const v1::AsOfState& state, std::uint64_t id) {
    for (const auto& i : state.incidents())
        if (i.id() == id) return &i;
    return nullptr;
}

std::optional<float> valueIn(const v1::AsOfState& state, v1::Metric metric, std::uint32_t entity) {
    for (const auto& block : state.samples())
        if (block.metric() == metric)
            for (int i = 0; i < block.entity_indexes_size(); ++i)
                if (block.entity_indexes(i) == entity) return block.values(i);
    return std::nullopt;
}

}  // namespace

class ServiceRewindTest : public QObject {
    Q_OBJECT
private slots:
    void statesAsTheyWere() {
        ScriptedFleet f;
        v1::AsOfState at9, at12, at30;
        QVERIFY(f.ask(f.timeAt[9], &at9).ok());
        QVERIFY(f.ask(f.timeAt[12], &at12).ok());
        QVERIFY(f.ask(f.timeAt[30], &at30).ok());
        QCOMPARE(rackStateIn(at9, f.rack), v1::RACK_STATE_UNSPECIFIED);  // never set before tick 10
        QCOMPARE(rackStateIn(at12, f.rack), v1::RACK_STATE_ISOLATED);
        QCOMPARE(rackStateIn(at30, f.rack), v1::RACK_STATE_IN_SERVICE);
        QCOMPARE(at12.as_of_unix_ms(), f.timeAt[12]);
        QCOMPARE(at12.server_time_unix_ms(), f.timeAt[40]);
        QCOMPARE(at12.earliest_unix_ms(), f.timeAt[1]);
        QCOMPARE(at12.run_id(), std::string("run-a"));
    }

    void incidentsOpenAtTheMomentWithTheirStateThen() {
        ScriptedFleet f;
        v1::AsOfState at4, at12, at17, at30;
        QVERIFY(f.ask(f.timeAt[4], &at4).ok());
        QVERIFY(f.ask(f.timeAt[12], &at12).ok());
        QVERIFY(f.ask(f.timeAt[17], &at17).ok());
        QVERIFY(f.ask(f.timeAt[30], &at30).ok());
        QCOMPARE(at4.incidents_size(), 0);
        QCOMPARE(at4.fleet().active_incidents(), 0u);

        QCOMPARE(at12.fleet().active_incidents(), 2u);
        QCOMPARE(incidentIn(at12, 1)->state(), v1::INCIDENT_STATE_OPEN);
        QCOMPARE(incidentIn(at12, 1)->owner(), std::string());
        QCOMPARE(incidentIn(at12, 1)->timeline_size(), 1);  // the acknowledgement came later

        QCOMPARE(incidentIn(at17, 1)->state(), v1::INCIDENT_STATE_ACKNOWLEDGED);
        QCOMPARE(incidentIn(at17, 1)->owner(), std::string("alice"));
        QCOMPARE(incidentIn(at17, 1)->timeline_size(), 2);

        // Resolved later: listed after the open ones, not counted as active.
        QCOMPARE(at30.fleet().active_incidents(), 1u);
        QCOMPARE(at30.incidents(0).id(), 2u);
        QCOMPARE(incidentIn(at30, 1)->state(), v1::INCIDENT_STATE_RESOLVED);
    }

    void goodputCostAloneMakesNoVersion() {
        // 36 + 29 incident updates arrived; only the real changes (open, ack, resolve; open) are kept.
        StoreLimits limits;
        limits.rewind.incidentVersions = 4;
        ScriptedFleet f(limits);
        v1::AsOfState at6;
        QVERIFY(f.ask(f.timeAt[6], &at6).ok());  // no version dropped: tick 6 still answers
        QCOMPARE(at6.earliest_unix_ms(), f.timeAt[1]);
        QCOMPARE(incidentIn(at6, 1)->state(), v1::INCIDENT_STATE_OPEN);
    }

    void readingsFromHistoryAtTheMoment() {
        ScriptedFleet f;
        for (int tick : {3, 17, 33}) {
            v1::AsOfState at;
            QVERIFY(f.ask(f.timeAt[tick], &at).ok());
            const auto flow = valueIn(at, v1::RACK_LIQUID_FLOW_LPM, f.loop);
            QVERIFY2(flow.has_value(), qPrintable(QStringLiteral("tick %1").arg(tick)));
            QCOMPARE(*flow, f.loopFlowAt[tick]);
        }
        QVERIFY(f.loopFlowAt[3] != f.loopFlowAt[17] || f.loopFlowAt[17] != f.loopFlowAt[33]);
    }

    void droppedVersionsRaiseTheEarliestMoment() {
        StoreLimits limits;
        limits.rewind.stateChanges = 3;  // the tiny fleet changes node states every fifth tick
        ScriptedFleet f(limits);
        v1::AsOfState at30;
        QVERIFY(f.ask(f.timeAt[30], &at30).ok());
        QVERIFY(at30.earliest_unix_ms() > f.timeAt[1]);
        QCOMPARE(rackStateIn(at30, f.rack), v1::RACK_STATE_IN_SERVICE);  // folded into the base, still exact
        v1::AsOfState before;
        const auto refused = f.ask(at30.earliest_unix_ms() - 1, &before);
        QCOMPARE(refused.error_code(), grpc::StatusCode::OUT_OF_RANGE);
        QVERIFY2(refused.error_message().find(std::to_string(at30.earliest_unix_ms())) != std::string::npos,
                 refused.error_message().c_str());
    }

    void outOfRangeAndFuture() {
        ScriptedFleet f;
        v1::AsOfState out;
        auto status = f.ask(f.timeAt[1] - 60'000, &out);
        QCOMPARE(status.error_code(), grpc::StatusCode::OUT_OF_RANGE);
        QVERIFY2(status.error_message().find(std::to_string(f.timeAt[1])) != std::string::npos,
                 status.error_message().c_str());
        QVERIFY(f.ask(f.timeAt[1] - 60'000, &out, true).ok());
        QCOMPARE(out.as_of_unix_ms(), f.timeAt[1]);

        status = f.ask(f.timeAt[40] + 1, &out);
        QCOMPARE(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        QVERIFY2(status.error_message().find("after fleetd's latest tick") != std::string::npos,
                 status.error_message().c_str());
        QCOMPARE(f.ask(0, &out).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    }

    void badRequests() {
        ScriptedFleet f;
        auto refuse = [&](const v1::AsOfRequest& request, grpc::StatusCode code, const char* mentions) {
            v1::AsOfState out;
            const auto status = answerStateAsOf(request, f.store, f.history, "run-a", &out);
            QCOMPARE(status.error_code(), code);
            QVERIFY2(status.error_message().find(mentions) != std::string::npos, status.error_message().c_str());
        };
        v1::AsOfRequest request;
        request.set_as_of_unix_ms(f.timeAt[20]);
        request.set_max_events(kMaxAsOfEvents + 1);
        refuse(request, grpc::StatusCode::INVALID_ARGUMENT, "max_events");
        request.set_max_events(0);
        request.set_detail(v1::DetailLevel(99));
        refuse(request, grpc::StatusCode::INVALID_ARGUMENT, "detail 99");
        request.set_detail(v1::DETAIL_LEVEL_SUMMARY);
        request.add_rack_names("r77");
        refuse(request, grpc::StatusCode::NOT_FOUND, "r77");

        FleetStateStore empty(f.source.topology());
        HistoryStore none(empty.index());
        v1::AsOfState out;
        QCOMPARE(answerStateAsOf(v1::AsOfRequest(), empty, none, "run-a", &out).error_code(),
                 grpc::StatusCode::INVALID_ARGUMENT);
        request.clear_rack_names();
        QCOMPARE(answerStateAsOf(request, empty, none, "run-a", &out).error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
    }

    void rackFilterAndSummary() {
        ScriptedFleet f;
        v1::AsOfRequest request;
        request.set_as_of_unix_ms(f.timeAt[12]);
        request.set_detail(v1::DETAIL_LEVEL_SUMMARY);
        request.add_rack_names(f.source.topology().racks(1).name());
        v1::AsOfState out;
        QVERIFY(answerStateAsOf(request, f.store, f.history, "run-a", &out).ok());
        QCOMPARE(rackStateIn(out, f.rack), v1::RACK_STATE_UNSPECIFIED);                        // r01 not asked for
        QVERIFY(!valueIn(out, v1::DCGM_FI_DEV_GPU_TEMP, f.source.gpus().back()).has_value());  // SUMMARY: no GPUs
        QCOMPARE(out.fleet().active_incidents(), 2u);  // incidents are fleet-wide
    }
};

QTEST_GUILESS_MAIN(ServiceRewindTest)
#include "tst_service_rewind.moc"
