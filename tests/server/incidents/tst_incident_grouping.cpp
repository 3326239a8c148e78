// Incident grouping rules, each topology path: cooling (valve → loop → trays → GPUs, CDU →
// racks, facility water → region), network (leaf → ports → trays, NVLink switch tray), power
// shelf → trays, job → its trays (stragglers), a tray's Xids and the lemon tray; join versus a
// new incident; hold-time resolution; goodput cost; the same twin run twice gives the same
// incidents.

#include "DigitalTwin.h"
#include "FleetIncidents.h"
#include "IncidentGrouper.h"
#include "IncidentTestFleet.h"

#include <QtTest>

#include <map>

using namespace watchfloor::server;
using namespace watchfloor::server::incidents;
using incidents::testing::IncidentTestFleet;
namespace v1 = watchfloor::v1;

namespace {

constexpr std::int64_t kStart = 1'700'000'000'000;
constexpr std::int64_t kMinute = 60'000;

// A grouper and the newest version of every incident it published.
class Harness {
public:
    explicit Harness(const IncidentTestFleet& fleet, GrouperOptions options = {})
        : grouper_(fleet.topology(), options) {}

    void at(std::int64_t offsetMs, std::vector<v1::Event> events, std::vector<v1::Job> jobs = {}) {
        std::vector<v1::Incident> changed;
        for (auto& e : events) e.set_time_unix_ms(kStart + offsetMs);
        grouper_.observe(kStart + offsetMs, events, jobs, &changed);
        std::uint64_t previous = 0;
        for (const auto& incident : changed) {
            QVERIFY2(incident.id() > previous, "changed incidents come in id order");
            previous = incident.id();
            latest_[incident.id()] = incident;
        }
    }
    const std::map<std::uint64_t, v1::Incident>& incidents() const { return latest_; }
    const v1::Incident& only() const {
        if (latest_.size() != 1) qFatal("expected one incident, have %zu", latest_.size());
        return latest_.begin()->second;
    }
    std::uint32_t open() const { return grouper_.openCount(); }

private:
    IncidentGrouper grouper_;
    std::map<std::uint64_t, v1::Incident> latest_;
};

}  // namespace

class IncidentGroupingTest : public QObject {
    Q_OBJECT
private slots:
    void valveFaultTakesItsRacksThrottlingAndShutdowns();
    void thermalSymptomsWithoutAlarmNameTheLoop();
    void pumpFailureTakesTheCdusRacksButALeakIsItsOwn();
    void facilityWaterExplainsHeatInItsRegionOnly();
    void leafSwitchNamedWhenSeveralPortsFail();
    void nvlinkEventsOfAFailingGpuJoinItsTray();
    void powerShelfTakesItsRacksTrays();
    void stragglerNamesTheSlowTrayAndJoinsTheNetworkFault();
    void unrelatedFaultsAreSeparateIncidents();
    void drainByHandIsNoIncident();
    void resolvesOnlyAfterEveryMemberStayedClearForTheHold();
    void repeatedFaultsOnOneTrayNameALemonTray();
    void goodputCostIsSplitBetweenIncidentsSharingAJob();
    void boundedListsKeepExactCounts();
    void sameSeedSameIncidents();
};

void IncidentGroupingTest::valveFaultTakesItsRacksThrottlingAndShutdowns() {
    IncidentTestFleet f;
    Harness h(f);
    const auto loop = f("r07-loop");
    h.at(0,
         {f.event(v1::EVENT_TYPE_CDU_ALARM, v1::SEVERITY_CRITICAL, loop, "valve_fault", {f("r07")},
                  "cdu: control valve fault at r07")},
         {f.job(IncidentTestFleet::kJob, {"r07-n04", "r07-n05"})});
    std::vector<v1::Event> heat;
    for (int n = 1; n <= 18; ++n)
        for (int g = 0; g < 4; ++g) {
            const std::string gpu =
                "r07-n" + std::string(n < 10 ? "0" : "") + std::to_string(n) + "-g" + std::to_string(g);
            heat.push_back(f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, f(gpu), "thermal"));
        }
    heat.push_back(f.event(v1::EVENT_TYPE_CDU_ALARM, v1::SEVERITY_CRITICAL, loop, "low_flow", {f("r07")}));
    h.at(30'000, heat);
    h.at(60'000, {f.event(v1::EVENT_TYPE_HARDWARE, v1::SEVERITY_CRITICAL, f("r07-n04"), "thermal_shutdown"),
                  f.event(v1::EVENT_TYPE_JOB_INTERRUPTED, v1::SEVERITY_CRITICAL, IncidentTestFleet::kJob,
                          "thermal_shutdown", {f("r07-n04")}),
                  f.event(v1::EVENT_TYPE_NODE_STATE, v1::SEVERITY_WARNING, f("r07-n04"))});
    const v1::Incident& incident = h.only();
    QCOMPARE(incident.state(), v1::INCIDENT_STATE_OPEN);
    QCOMPARE(incident.root_cause().scope(), v1::CAUSE_SCOPE_COOLING_LOOP);
    QCOMPARE(incident.root_cause().entity_index(), loop);
    QCOMPARE(incident.root_cause().name(), std::string("r07-loop"));
    QCOMPARE(incident.root_cause().cause(), std::string("valve_fault"));
    QVERIFY(incident.root_cause().summary().find("control valve fault") != std::string::npos);
    QCOMPARE(incident.member_count(), 1u + 72u + 1u + 3u);
    QCOMPARE(incident.severity(), v1::SEVERITY_CRITICAL);
    QCOMPARE(incident.blast_radius().racks(), 1u);
    QCOMPARE(incident.blast_radius().trays(), 18u);
    QCOMPARE(incident.blast_radius().gpus(), 72u);
    QCOMPARE(incident.blast_radius().jobs(), 1u);
    QCOMPARE(incident.blast_radius().job_indexes(0), IncidentTestFleet::kJob);
    // valve alarm, low flow, 72 throttling GPUs, the job, the tray down
    QCOMPARE(incident.active_members(), 1u + 1u + 72u + 1u + 1u);
    QCOMPARE(incident.started_unix_ms(), kStart);
}

void IncidentGroupingTest::thermalSymptomsWithoutAlarmNameTheLoop() {
    IncidentTestFleet f;
    Harness h(f);
    h.at(0, {f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, f("r02-n03-g1"), "thermal"),
             f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, f("r02-n09-g0"), "thermal")});
    QCOMPARE(h.only().root_cause().scope(), v1::CAUSE_SCOPE_COOLING_LOOP);
    QCOMPARE(h.only().root_cause().name(), std::string("r02-loop"));
    QCOMPARE(h.only().root_cause().cause(), std::string("thermal"));
    // The alarm that explains it arrives later: it names the cause, no second incident.
    h.at(10'000, {f.event(v1::EVENT_TYPE_CDU_ALARM, v1::SEVERITY_CRITICAL, f("r02-loop"), "valve_fault", {f("r02")})});
    QCOMPARE(h.incidents().size(), std::size_t(1));
    QCOMPARE(h.only().root_cause().cause(), std::string("valve_fault"));
    QCOMPARE(h.only().member_count(), 3u);
}

void IncidentGroupingTest::pumpFailureTakesTheCdusRacksButALeakIsItsOwn() {
    IncidentTestFleet f;
    Harness h(f);
    const std::string cdu = f.cduOf("r01");
    QCOMPARE(f.cduOf("r03"), cdu);  // the default fleet's first row shares one CDU
    h.at(0, {f.event(v1::EVENT_TYPE_CDU_ALARM, v1::SEVERITY_WARNING, f("r01-loop"), "pump_failure")});
    std::vector<v1::Event> supply;
    for (const char* rack : {"r01", "r02", "r03", "r04"})
        supply.push_back(f.event(v1::EVENT_TYPE_CDU_ALARM, v1::SEVERITY_WARNING, f("r01-loop"),
                                 "supply_temperature_high", {f(rack)}));
    h.at(30'000, supply);
    QCOMPARE(h.incidents().size(), std::size_t(1));
    const v1::Incident pump = h.only();
    QCOMPARE(pump.root_cause().scope(), v1::CAUSE_SCOPE_CDU);
    QVERIFY(!pump.root_cause().has_entity());
    QCOMPARE(pump.root_cause().name(), cdu);
    QCOMPARE(pump.root_cause().cause(), std::string("pump_failure"));
    QCOMPARE(pump.blast_radius().racks(), 4u);
    // A leak in one of its racks is a fault of its own: a second incident, named the loop.
    h.at(60'000,
         {f.event(v1::EVENT_TYPE_LEAK, v1::SEVERITY_CRITICAL, f("r03-loop"), "leak", {f("r03")}),
          f.event(v1::EVENT_TYPE_CDU_ALARM, v1::SEVERITY_CRITICAL, f("r01-loop"), "leak", {f("r03")}),
          f.event(v1::EVENT_TYPE_RACK_ISOLATED, v1::SEVERITY_CRITICAL, f("r03"), "leak", {IncidentTestFleet::kJob}),
          f.event(v1::EVENT_TYPE_AUTOMATED_ACTION, v1::SEVERITY_WARNING, f("r03"))});
    QCOMPARE(h.incidents().size(), std::size_t(2));
    const v1::Incident& leak = h.incidents().rbegin()->second;
    QCOMPARE(leak.root_cause().scope(), v1::CAUSE_SCOPE_COOLING_LOOP);
    QCOMPARE(leak.root_cause().name(), std::string("r03-loop"));
    QCOMPARE(leak.root_cause().cause(), std::string("leak"));
    QCOMPARE(leak.member_count(), 4u);
    QCOMPARE(leak.blast_radius().trays(), 18u);  // isolated: the whole rack
    QCOMPARE(leak.blast_radius().gpus(), 72u);
    QCOMPARE(leak.blast_radius().jobs(), 1u);
    QCOMPARE(h.incidents().begin()->second.member_count(), 5u);  // the pump incident is unchanged
}

void IncidentGroupingTest::facilityWaterExplainsHeatInItsRegionOnly() {
    IncidentTestFleet f;
    Harness h(f);
    h.at(0, {f.event(v1::EVENT_TYPE_CDU_ALARM, v1::SEVERITY_WARNING, f("us-east"), "facility_water")});
    h.at(60'000, {f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, f("r02-n01-g0"), "thermal")});
    QCOMPARE(h.only().root_cause().scope(), v1::CAUSE_SCOPE_FACILITY);
    QCOMPARE(h.only().root_cause().name(), std::string("us-east"));
    QCOMPARE(h.only().member_count(), 2u);
    // Heat in the other region is not explained by us-east's water.
    h.at(90'000, {f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, f("r07-n01-g0"), "thermal")});
    QCOMPARE(h.incidents().size(), std::size_t(2));
    QCOMPARE(h.incidents().rbegin()->second.root_cause().name(), std::string("r07-loop"));
    // A straggler is no cooling symptom: the facility does not take it.
    h.at(100'000, {f.event(v1::EVENT_TYPE_STRAGGLER_DETECTED, v1::SEVERITY_WARNING, IncidentTestFleet::kJob, {},
                           {f("r02-n05")})});
    QCOMPARE(h.incidents().size(), std::size_t(3));
}

void IncidentGroupingTest::leafSwitchNamedWhenSeveralPortsFail() {
    IncidentTestFleet f;
    Harness h(f);
    const auto [a, b] = f.portsOnOneLeaf();
    h.at(0, {f.event(v1::EVENT_TYPE_LINK_FLAP, v1::SEVERITY_WARNING, a->index(), {}, {}, a->name() + " flapped")});
    QCOMPARE(h.only().root_cause().scope(), v1::CAUSE_SCOPE_LINK);
    QCOMPARE(h.only().root_cause().entity_index(), a->index());
    QVERIFY(h.only().root_cause().summary().find(a->switch_name()) != std::string::npos);
    h.at(5'000, {f.event(v1::EVENT_TYPE_LINK_DOWN, v1::SEVERITY_WARNING, b->index())});
    QCOMPARE(h.incidents().size(), std::size_t(1));
    QCOMPARE(h.only().root_cause().scope(), v1::CAUSE_SCOPE_LEAF_SWITCH);
    QCOMPARE(h.only().root_cause().name(), a->switch_name());
    QCOMPARE(h.only().blast_radius().trays(), 2u);
    QCOMPARE(h.only().active_members(), 1u);  // the link down; a flap is momentary
    h.at(6'000, {f.event(v1::EVENT_TYPE_LINK_UP, v1::SEVERITY_INFO, b->index())});
    QCOMPARE(h.only().active_members(), 0u);
}

void IncidentGroupingTest::nvlinkEventsOfAFailingGpuJoinItsTray() {
    IncidentTestFleet f;
    Harness h(f);
    h.at(0, {f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f("r01-n04-g2"), "gpu_hard_fault",
                     {IncidentTestFleet::kJob}, "r01-n04-g2: Xid 79 GPU_HAS_FALLEN_OFF_THE_BUS"),
             f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_INFO, f("r01-n04-g2"), "gpu_hard_fault"),
             f.event(v1::EVENT_TYPE_LINK_DOWN, v1::SEVERITY_WARNING, f("r01-n04-g2-l05"), "gpu_hard_fault"),
             f.event(v1::EVENT_TYPE_NODE_STATE, v1::SEVERITY_WARNING, f("r01-n04")),
             f.event(v1::EVENT_TYPE_JOB_INTERRUPTED, v1::SEVERITY_CRITICAL, IncidentTestFleet::kJob, "gpu_hard_fault",
                     {f("r01-n04-g2")})});
    const v1::Incident& incident = h.only();
    QCOMPARE(incident.root_cause().scope(), v1::CAUSE_SCOPE_TRAY);
    QCOMPARE(incident.root_cause().name(), std::string("r01-n04"));
    QCOMPARE(incident.root_cause().cause(), std::string("gpu_hard_fault"));
    QVERIFY(incident.root_cause().summary().find("Xid 79") != std::string::npos);
    QCOMPARE(incident.member_count(), 5u);
    // A flapping NVLink elsewhere, no GPU fault: its own incident, named the link.
    h.at(1'000, {f.event(v1::EVENT_TYPE_LINK_FLAP, v1::SEVERITY_WARNING, f("r02-n01-g0-l03"))});
    QCOMPARE(h.incidents().size(), std::size_t(2));
    const v1::Incident& link = h.incidents().rbegin()->second;
    QCOMPARE(link.root_cause().scope(), v1::CAUSE_SCOPE_LINK);
    QCOMPARE(link.root_cause().name(), std::string("r02-n01-g0-l03"));
    // A second GPU's link to the same switch tray: the switch tray is named.
    const auto& links = f.topology().nvlinks();
    const v1::NvLink* first = nullptr;
    for (const auto& l : links)
        if (l.name() == "r02-n01-g0-l03") first = &l;
    QVERIFY(first);
    const v1::NvLink* other = nullptr;
    for (const auto& l : links)
        if (l.nvswitch_tray_index() == first->nvswitch_tray_index() && l.gpu_index() != first->gpu_index()) {
            other = &l;
            break;
        }
    QVERIFY(other);
    h.at(2'000, {f.event(v1::EVENT_TYPE_LINK_FLAP, v1::SEVERITY_WARNING, other->index())});
    QCOMPARE(h.incidents().size(), std::size_t(2));
    QCOMPARE(h.incidents().rbegin()->second.root_cause().scope(), v1::CAUSE_SCOPE_NVSWITCH_TRAY);
    QCOMPARE(h.incidents().rbegin()->second.root_cause().entity_index(), first->nvswitch_tray_index());
}

void IncidentGroupingTest::powerShelfTakesItsRacksTrays() {
    IncidentTestFleet f;
    Harness h(f);
    const auto& rack = f.topology().racks(4);  // r05
    QVERIFY(rack.power_shelf_indexes_size() > 0);
    const std::uint32_t shelf = rack.power_shelf_indexes(0);
    h.at(0, {f.event(v1::EVENT_TYPE_HARDWARE, v1::SEVERITY_CRITICAL, shelf, "psu", {}, "power shelf lost input")},
         {f.job(IncidentTestFleet::kJob, {"r05-n01", "r05-n02"})});
    h.at(1'000, {f.event(v1::EVENT_TYPE_NODE_STATE, v1::SEVERITY_WARNING, rack.node_indexes(0)),
                 f.event(v1::EVENT_TYPE_NODE_STATE, v1::SEVERITY_WARNING, rack.node_indexes(1)),
                 f.event(v1::EVENT_TYPE_JOB_INTERRUPTED, v1::SEVERITY_CRITICAL, IncidentTestFleet::kJob, "power",
                         {rack.node_indexes(0)})});
    const v1::Incident& incident = h.only();
    QCOMPARE(incident.root_cause().scope(), v1::CAUSE_SCOPE_POWER_SHELF);
    QCOMPARE(incident.root_cause().entity_index(), shelf);
    QCOMPARE(incident.member_count(), 4u);
    QCOMPARE(incident.blast_radius().trays(), 2u);
    QCOMPARE(incident.blast_radius().jobs(), 1u);
    // Heat in the same rack is not a power symptom.
    h.at(2'000, {f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, f("r05-n07-g0"), "thermal")});
    QCOMPARE(h.incidents().size(), std::size_t(2));
}

void IncidentGroupingTest::stragglerNamesTheSlowTrayAndJoinsTheNetworkFault() {
    IncidentTestFleet f;
    Harness h(f);
    h.at(0,
         {f.event(v1::EVENT_TYPE_STRAGGLER_DETECTED, v1::SEVERITY_WARNING, IncidentTestFleet::kJob, {}, {f("r05-n09")},
                  "llm-test steps take 1.30x the ideal time; slowest: r05-n09")},
         {f.job(IncidentTestFleet::kJob, {"r05-n09", "r05-n10"})});
    QCOMPARE(h.only().root_cause().scope(), v1::CAUSE_SCOPE_TRAY);
    QCOMPARE(h.only().root_cause().name(), std::string("r05-n09"));
    QCOMPARE(h.only().root_cause().cause(), std::string("straggler"));
    // Detected again after a restart: the same incident.
    h.at(kMinute, {f.event(v1::EVENT_TYPE_STRAGGLER_DETECTED, v1::SEVERITY_WARNING, IncidentTestFleet::kJob, {},
                           {f("r05-n09")})});
    QCOMPARE(h.incidents().size(), std::size_t(1));
    QCOMPARE(h.only().member_count(), 2u);

    // A job slowed by a tray whose NIC port is already failing joins that network incident.
    Harness n(f);
    const auto [a, b] = f.portsOnOneLeaf();
    n.at(0, {f.event(v1::EVENT_TYPE_LINK_DOWN, v1::SEVERITY_WARNING, a->index())});
    n.at(1'000, {f.event(v1::EVENT_TYPE_STRAGGLER_DETECTED, v1::SEVERITY_WARNING, IncidentTestFleet::kOtherJob, {},
                         {a->node_index()})});
    QCOMPARE(n.incidents().size(), std::size_t(1));
    QCOMPARE(n.only().member_count(), 2u);
    QCOMPARE(n.only().blast_radius().jobs(), 1u);
    Q_UNUSED(b);
}

void IncidentGroupingTest::unrelatedFaultsAreSeparateIncidents() {
    IncidentTestFleet f;
    Harness h(f);
    h.at(0, {f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f("r01-n04-g2"), "gpu_hard_fault")});
    h.at(1'000, {f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f("r06-n02-g1"), "hbm_uncorrectable")});
    h.at(2'000, {f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_WARNING, f("r01-n04-g0"), "gpu_hard_fault")});  // same tray
    QCOMPARE(h.incidents().size(), std::size_t(2));
    QCOMPARE(h.incidents().at(1).member_count(), 2u);
    QCOMPARE(h.incidents().at(2).root_cause().name(), std::string("r06-n02"));
    QCOMPARE(h.incidents().at(2).root_cause().cause(), std::string("hbm_uncorrectable"));
    QCOMPARE(h.open(), 2u);
}

void IncidentGroupingTest::drainByHandIsNoIncident() {
    IncidentTestFleet f;
    Harness h(f);
    h.at(0, {f.event(v1::EVENT_TYPE_NODE_STATE, v1::SEVERITY_WARNING, f("r02-n05"), {}, {}, "r02-n05 drained"),
             f.event(v1::EVENT_TYPE_OPERATOR_ACTION, v1::SEVERITY_WARNING, f("r02-n05")),
             f.event(v1::EVENT_TYPE_JOB_CHECKPOINT, v1::SEVERITY_INFO, IncidentTestFleet::kJob),
             f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_INFO, f("r02-n05-g0"))});
    QCOMPARE(h.incidents().size(), std::size_t(0));
    QCOMPARE(h.open(), 0u);
}

void IncidentGroupingTest::resolvesOnlyAfterEveryMemberStayedClearForTheHold() {
    IncidentTestFleet f;
    GrouperOptions options;
    options.hold = std::chrono::minutes(10);
    Harness h(f, options);
    const auto gpu = f("r04-n02-g3");
    h.at(0, {f.event(v1::EVENT_TYPE_CDU_ALARM, v1::SEVERITY_CRITICAL, f("r04-loop"), "valve_fault", {f("r04")}),
             f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, gpu, "thermal")});
    h.at(5 * kMinute, {f.event(v1::EVENT_TYPE_CDU_ALARM, v1::SEVERITY_INFO, f("r04-loop"), "valve_fault", {f("r04")})});
    QCOMPARE(h.only().active_members(), 1u);
    h.at(30 * kMinute, {});  // the GPU still throttles: open however long it takes
    QCOMPARE(h.only().state(), v1::INCIDENT_STATE_OPEN);
    h.at(31 * kMinute, {f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_INFO, gpu, "thermal")});
    QCOMPARE(h.only().active_members(), 0u);
    h.at(41 * kMinute - 1, {});
    QCOMPARE(h.only().state(), v1::INCIDENT_STATE_OPEN);
    QCOMPARE(h.open(), 1u);
    // Back within the hold: the same incident, and the hold starts again.
    h.at(41 * kMinute - 1, {f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, gpu, "thermal")});
    h.at(42 * kMinute, {f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_INFO, gpu, "thermal")});
    h.at(51 * kMinute, {});
    QCOMPARE(h.only().state(), v1::INCIDENT_STATE_OPEN);
    h.at(52 * kMinute, {});
    QCOMPARE(h.only().state(), v1::INCIDENT_STATE_RESOLVED);
    QCOMPARE(h.only().resolved_unix_ms(), kStart + 52 * kMinute);
    QCOMPARE(h.only().member_count(), 3u);
    QCOMPARE(h.open(), 0u);
    // After resolution the same cause opens a new incident.
    h.at(60 * kMinute, {f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, gpu, "thermal")});
    QCOMPARE(h.incidents().size(), std::size_t(2));
    QCOMPARE(h.incidents().at(2).state(), v1::INCIDENT_STATE_OPEN);
    QCOMPARE(h.incidents().at(2).member_count(), 1u);
    // A clear whose raise no incident holds changes nothing.
    h.at(61 * kMinute, {f.event(v1::EVENT_TYPE_LINK_UP, v1::SEVERITY_INFO, f("r01-n01-ib0"))});
    QCOMPARE(h.incidents().at(2).active_members(), 1u);
}

void IncidentGroupingTest::repeatedFaultsOnOneTrayNameALemonTray() {
    IncidentTestFleet f;
    Harness h(f);
    const auto tray = f("r03-n11");
    for (int fault = 0; fault < 3; ++fault) {
        const std::int64_t t = fault * 24 * 60 * kMinute;
        h.at(t, {f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f("r03-n11-g1"), "gsp", {}, "r03-n11-g1: Xid 119"),
                 f.event(v1::EVENT_TYPE_NODE_STATE, v1::SEVERITY_WARNING, tray)});
        h.at(t + 30 * kMinute, {f.event(v1::EVENT_TYPE_NODE_STATE, v1::SEVERITY_INFO, tray)});
        h.at(t + 60 * kMinute, {});
    }
    QCOMPARE(h.incidents().size(), std::size_t(3));
    QCOMPARE(h.incidents().at(1).root_cause().cause(), std::string("gsp"));
    QCOMPARE(h.incidents().at(2).root_cause().cause(), std::string("gsp"));
    QCOMPARE(h.incidents().at(3).root_cause().cause(), std::string("lemon_tray"));
    QVERIFY(h.incidents().at(3).root_cause().summary().find("lemon tray") != std::string::npos);
    for (const auto& [id, incident] : h.incidents()) QCOMPARE(incident.state(), v1::INCIDENT_STATE_RESOLVED);
}

void IncidentGroupingTest::goodputCostIsSplitBetweenIncidentsSharingAJob() {
    IncidentTestFleet f;
    GrouperOptions options;
    options.costPublishPeriod = std::chrono::milliseconds(0);
    Harness h(f, options);
    const auto kJob = IncidentTestFleet::kJob;
    auto job = [&](double wastedS, double slowS = 0) {
        v1::Job j = f.job(kJob, {"r01-n01", "r02-n01"}, wastedS);  // 2 trays = 8 GPUs
        j.mutable_breakdown()->set_straggler_slowdown_s(slowS);
        return j;
    };
    // The ledger's first report is the baseline: history before the incident is not charged.
    h.at(0, {}, {job(500)});
    h.at(1'000,
         {f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f("r01-n01-g0"), "gpu_hard_fault"),
          f.event(v1::EVENT_TYPE_JOB_INTERRUPTED, v1::SEVERITY_CRITICAL, kJob, "gpu_hard_fault", {f("r01-n01-g0")})},
         {job(500 + 450)});
    QCOMPARE(h.only().goodput_cost_gpu_hours(), 8 * 450 / 3600.0);
    // Interrupted again by another tray before it resumed: the new incident takes the loss.
    h.at(2'000,
         {f.event(v1::EVENT_TYPE_XID, v1::SEVERITY_CRITICAL, f("r02-n01-g0"), "gpu_hard_fault"),
          f.event(v1::EVENT_TYPE_JOB_INTERRUPTED, v1::SEVERITY_CRITICAL, kJob, "gpu_hard_fault", {f("r02-n01-g0")})},
         {job(950 + 900)});
    QCOMPARE(h.incidents().size(), std::size_t(2));
    QCOMPARE(h.incidents().at(1).goodput_cost_gpu_hours(), 8 * 450 / 3600.0);
    QCOMPARE(h.incidents().at(2).goodput_cost_gpu_hours(), 8 * 900 / 3600.0);
    // Resumed, but running slow: both incidents hold the job, the slowdown is split.
    h.at(3'000, {f.event(v1::EVENT_TYPE_JOB_RESUMED, v1::SEVERITY_INFO, kJob)}, {job(1850)});
    h.at(4'000, {}, {job(1850 + 900, 900)});
    QCOMPARE(h.incidents().at(1).goodput_cost_gpu_hours(), 8 * (450 + 450) / 3600.0);
    QCOMPARE(h.incidents().at(2).goodput_cost_gpu_hours(), 8 * (900 + 450) / 3600.0);
    // Its own start-up or checkpoints cost no incident anything; nor does a job no incident holds.
    h.at(5'000, {}, {job(1850 + 900 + 3600, 900)});
    h.at(6'000, {}, {f.job(IncidentTestFleet::kOtherJob, {"r05-n01"}, 0)});
    h.at(7'000, {}, {f.job(IncidentTestFleet::kOtherJob, {"r05-n01"}, 3600)});
    QCOMPARE(h.incidents().at(1).goodput_cost_gpu_hours(), 8 * 900 / 3600.0);
    QCOMPARE(h.incidents().at(2).goodput_cost_gpu_hours(), 8 * 1350 / 3600.0);
}

void IncidentGroupingTest::boundedListsKeepExactCounts() {
    IncidentTestFleet f;
    GrouperOptions options;
    options.listBound = 10;
    options.memberIdsKept = 4;
    Harness h(f, options);
    std::vector<v1::Event> heat;
    for (const auto& gpu : f.topology().gpus())
        if (gpu.name().rfind("r06-", 0) == 0)
            heat.push_back(f.event(v1::EVENT_TYPE_CLOCKS_EVENT, v1::SEVERITY_WARNING, gpu.index(), "thermal"));
    h.at(0, heat);
    const v1::Incident& incident = h.only();
    QCOMPARE(incident.blast_radius().gpus(), 72u);
    QCOMPARE(incident.blast_radius().gpu_indexes_size(), 10);
    QCOMPARE(incident.member_count(), 72u);
    QCOMPARE(incident.member_event_ids_size(), 8);
    QCOMPARE(incident.member_event_ids(0), heat.front().id());
    QCOMPARE(incident.member_event_ids(7), heat.back().id());
}

void IncidentGroupingTest::sameSeedSameIncidents() {
    const QString scenario = qEnvironmentVariable("WATCHFLOOR_SOURCE_DIR") + "/scenarios/demo.scn";
    QVERIFY(QFile::exists(scenario));
    auto run = [&](std::uint64_t seed) {
        sim::SimConfig config;
        config.seed = seed;
        config.scenarioFile = scenario.toStdString();
        ConfigError error;
        auto twin = sim::DigitalTwin::create(config, &error);
        if (!twin) qFatal("%s", error.toString().c_str());
        twin->setTelemetryEnabled(false);
        FleetIncidents grouping(twin->topology());
        std::string out;
        FleetChanges changes;
        std::uint64_t id = 1;
        for (int s = 1; s <= 2 * 3600; ++s) {
            changes.clear();
            const auto until = twin->now() + std::chrono::seconds(1);
            changes.time = until;
            twin->advanceTo(until, changes);
            for (auto& e : changes.events) e.set_id(id++);
            grouping.apply(changes);
            for (const auto& incident : changes.incidents) out += incident.SerializeAsString();
        }
        return out;
    };
    const std::string a = run(11), b = run(11), c = run(12);
    QVERIFY(!a.empty());
    QCOMPARE(a.size(), b.size());
    QVERIFY(a == b);
    QVERIFY(a != c);
}

QTEST_GUILESS_MAIN(IncidentGroupingTest)
#include "tst_incident_grouping.moc"
