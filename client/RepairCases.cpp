#include "RepairCases.h"

#include "ActionWords.h"
#include "FleetStateKinds.h"
#include "FleetStore.h"
#include "RepairLadder.h"
#include "XidFilter.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

// The tray an entity is, or is a GPU of; invalid for anything else.
EntityId trayOf(const FleetStore& store, EntityId entity) {
    if (store.kind(entity) == v1::ENTITY_KIND_GPU) entity = store.parent(entity);
    return store.kind(entity) == v1::ENTITY_KIND_NODE ? entity : EntityId{};
}

// A closed case opened at or after the fault: the fault's own case (or a later one) dealt with it.
bool closedCaseSince(const FleetStore& store, EntityId tray, std::int64_t faultUnixMs) {
    for (const v1::RepairCase* c : repairCasesOf(store, tray))
        if (!isOpenRepairCase(*c) && c->opened_unix_ms() >= faultUnixMs) return true;
    return false;
}

std::optional<RepairStepProposal> proposal(const FleetStore& store, EntityId tray, EntityId faulted,
                                           const v1::Event* xid) {
    const v1::Node* node = store.nodeInfo(tray);
    if (!node) return std::nullopt;
    RepairStepProposal step;
    step.tray = tray;
    step.trayName = QString::fromStdString(node->name());
    if (const v1::Gpu* gpu = store.gpuInfo(faulted)) step.gpu = gpu->local_id();
    if (const v1::RepairCase* open = openRepairCase(store, tray)) {
        // A step running (no next rung) is not offered a second one: fleetd would refuse it.
        if (open->next_rung() == v1::REPAIR_RUNG_UNSPECIFIED) return std::nullopt;
        step.rung = open->next_rung();
        step.fromCase = true;
        step.why = QString::fromStdString(open->next_reason());
        if (!step.gpu && open->has_gpu_index()) step.gpu = open->gpu_index();
        return step;
    }
    if (!xid || closedCaseSince(store, tray, xid->time_unix_ms())) return std::nullopt;
    step.rung = proto::firstRung(xid->xid().recommended_action());
    if (step.rung == v1::REPAIR_RUNG_UNSPECIFIED) return std::nullopt;
    step.why = QStringLiteral("Xid %1: NVIDIA's resolution starts with %2")
                   .arg(xid->xid().xid())
                   .arg(step.rung == v1::REPAIR_RUNG_DIAGNOSTICS ? QStringLiteral("diagnostics")
                                                                 : QStringLiteral("a ") + repairRungLabel(step.rung));
    return step;
}

double weighted(double sum, double weight) { return weight > 0 ? sum / weight : RepairSummary::kNaN; }

}  // namespace

QString repairRungLabel(v1::RepairRung rung) { return QString::fromLatin1(proto::rungWords(rung)); }

QString repairCaseStateLabel(v1::RepairCaseState state) {
    switch (state) {
    case v1::REPAIR_CASE_STATE_OPEN: return QStringLiteral("open");
    case v1::REPAIR_CASE_STATE_BURN_IN: return QStringLiteral("burn-in");
    case v1::REPAIR_CASE_STATE_FIXED: return QStringLiteral("fixed");
    case v1::REPAIR_CASE_STATE_RMA: return QStringLiteral("RMA");
    default: return QStringLiteral("unknown");
    }
}

QString trayAfterRepairLabel(v1::TrayAfterRepair after) {
    switch (after) {
    case v1::TRAY_AFTER_REPAIR_RESUME: return QStringLiteral("back in service (if the step succeeded)");
    case v1::TRAY_AFTER_REPAIR_DOWN: return QStringLiteral("held down");
    default: return QStringLiteral("stays drained");
    }
}

bool isOpenRepairCase(const v1::RepairCase& repairCase) { return !fleetstate::RepairCases::retired(repairCase); }

std::vector<const v1::RepairCase*> repairCasesOf(const FleetStore& store, EntityId tray) {
    std::vector<const v1::RepairCase*> cases;
    if (!tray.isValid() || tray.endpoint >= store.endpointCount()) return cases;
    const auto& held = store.endpointFleet(tray.endpoint).repairCases();
    for (auto it = held.rbegin(); it != held.rend(); ++it)  // ids are given in opening order
        if (it->second.node_index() == tray.index) cases.push_back(&it->second);
    return cases;
}

const v1::RepairCase* openRepairCase(const FleetStore& store, EntityId tray) {
    for (const v1::RepairCase* c : repairCasesOf(store, tray))
        if (isOpenRepairCase(*c)) return c;
    return nullptr;
}

std::optional<RepairStepProposal> repairStepForEvent(const FleetStore& store, const StoredEvent& event) {
    if (event.event.type() != v1::EVENT_TYPE_XID || !event.event.has_xid()) return std::nullopt;
    const EntityId entity = store.eventEntity(event);
    const EntityId tray = trayOf(store, entity);
    if (!tray.isValid()) return std::nullopt;
    return proposal(store, tray, entity, &event.event);
}

std::optional<RepairStepProposal> repairStepForTray(const FleetStore& store, EntityId tray) {
    tray = trayOf(store, tray);
    if (!tray.isValid()) return std::nullopt;
    const std::vector<XidRow> newest = selectXids(store, XidFilter{tray, 1});
    const StoredEvent* xid = newest.empty() ? nullptr : store.eventBySerial(newest.front().serial);
    return proposal(store, tray, xid ? store.eventEntity(*xid) : tray, xid ? &xid->event : nullptr);
}

v1::ActionRequest repairStepRequest(const RepairStepProposal& step) {
    v1::ActionRequest request;
    request.set_type(proto::actionFor(step.rung));
    request.set_node_name(step.trayName.toStdString());
    switch (step.rung) {
    case v1::REPAIR_RUNG_RESET_GPU:
        if (step.gpu) request.set_gpu_index(*step.gpu);
        [[fallthrough]];
    case v1::REPAIR_RUNG_REBOOT:
    case v1::REPAIR_RUNG_POWER_CYCLE: request.set_after_repair(v1::TRAY_AFTER_REPAIR_STAY_DRAINED); break;
    case v1::REPAIR_RUNG_DIAGNOSTICS:
        request.set_after_repair(v1::TRAY_AFTER_REPAIR_RESUME);
        request.set_diagnostic_level(2);
        break;
    case v1::REPAIR_RUNG_RMA: request.set_lifecycle(v1::TRAY_LIFECYCLE_RMA); break;
    default: break;
    }
    if (!step.why.isEmpty()) request.set_reason(step.why.toStdString());
    return request;
}

QString repairStepLabel(const RepairStepProposal& step) {
    if (step.rung == v1::REPAIR_RUNG_RMA) return QStringLiteral("Set %1 to RMA").arg(step.trayName);
    return actionHeading(repairStepRequest(step));
}

RepairCaseRow repairCaseRow(const FleetStore& store, int endpoint, const v1::RepairCase& record) {
    RepairCaseRow row;
    row.endpoint = endpoint;
    row.tray = EntityId{quint16(endpoint), record.node_index()};
    row.trayName = store.nodeInfo(row.tray) ? store.name(row.tray) : QString::fromStdString(record.node_name());
    row.record = record;
    row.open = isOpenRepairCase(record);
    const std::int64_t end = row.open ? store.endpointFleet(endpoint).serverTimeUnixMs() : record.closed_unix_ms();
    row.ageMs = std::max<std::int64_t>(0, end - record.opened_unix_ms());
    return row;
}

std::vector<RepairCaseRow> repairCaseRows(const FleetStore& store, int closedLimit) {
    std::vector<RepairCaseRow> open, closed;
    for (int endpoint = 0; endpoint < store.endpointCount(); ++endpoint) {
        for (const auto& [id, record] : store.endpointFleet(endpoint).repairCases()) {
            RepairCaseRow row = repairCaseRow(store, endpoint, record);
            (row.open ? open : closed).push_back(std::move(row));
        }
    }
    std::sort(open.begin(), open.end(), [](const RepairCaseRow& a, const RepairCaseRow& b) {
        return a.record.opened_unix_ms() != b.record.opened_unix_ms()
                   ? a.record.opened_unix_ms() < b.record.opened_unix_ms()
                   : a.trayName < b.trayName;
    });
    std::sort(closed.begin(), closed.end(), [](const RepairCaseRow& a, const RepairCaseRow& b) {
        return a.record.closed_unix_ms() != b.record.closed_unix_ms()
                   ? a.record.closed_unix_ms() > b.record.closed_unix_ms()
                   : a.trayName < b.trayName;
    });
    if (int(closed.size()) > std::max(0, closedLimit)) closed.resize(std::size_t(std::max(0, closedLimit)));
    open.insert(open.end(), std::make_move_iterator(closed.begin()), std::make_move_iterator(closed.end()));
    return open;
}

QString repairCaseStepText(const v1::RepairCase& c) {
    if (c.state() == v1::REPAIR_CASE_STATE_FIXED)
        return c.fixed_by() == v1::REPAIR_RUNG_DIAGNOSTICS
                   ? QStringLiteral("fixed: diagnostics only")
                   : QStringLiteral("fixed by %1").arg(repairRungLabel(c.fixed_by()));
    if (c.state() == v1::REPAIR_CASE_STATE_RMA) return QStringLiteral("sent to RMA");
    if (!c.steps().empty() && c.steps().rbegin()->ended_unix_ms() == 0) {
        const v1::RepairStep& running = *c.steps().rbegin();
        return QStringLiteral("%1 running (%2)%3")
            .arg(repairRungLabel(running.rung()), QString::fromStdString(running.principal()),
                 running.dry_run() ? QStringLiteral(", dry run") : QString());
    }
    if (c.state() == v1::REPAIR_CASE_STATE_BURN_IN) return QStringLiteral("burn-in");
    if (c.next_rung() != v1::REPAIR_RUNG_UNSPECIFIED)
        return QStringLiteral("next: %1").arg(repairRungLabel(c.next_rung()));
    return QStringLiteral("waiting");
}

QString repairCaseOwnerText(const v1::RepairCase& c) {
    if (!c.owner().empty()) return QString::fromStdString(c.owner());
    for (const v1::RepairStep& step : c.steps())
        if (step.principal() == "auto") return QStringLiteral("auto");
    return QStringLiteral("—");
}

RepairSummary summarizeRepairs(const FleetStore& store) {
    RepairSummary s;
    double all = 0, automated = 0, manual = 0;
    for (int endpoint = 0; endpoint < store.endpointCount(); ++endpoint) {
        const v1::FleetGoodput* fleet = store.endpointFleet(endpoint).fleetGoodput();
        if (!fleet || !fleet->has_repairs()) continue;
        const v1::RepairStats& r = fleet->repairs();
        ++s.endpoints;
        s.windowS = std::max(s.windowS, r.window_s());
        s.open += r.open_cases();
        s.fixed += r.fixed();
        s.sentToRma += r.sent_to_rma();
        s.fixedAutomated += r.fixed_automated();
        s.fixedManual += r.fixed_manual();
        s.byReset += r.fixed_by_reset();
        s.byReboot += r.fixed_by_reboot();
        s.byPowerCycle += r.fixed_by_power_cycle();
        s.byDiagnostics += r.fixed_by_diagnostics();
        s.outOfServiceGpuHours += r.out_of_service_gpu_hours();
        all += r.mttr_s() * r.fixed();
        automated += r.mttr_automated_s() * r.fixed_automated();
        manual += r.mttr_manual_s() * r.fixed_manual();
    }
    s.mttrS = weighted(all, s.fixed);
    s.mttrAutomatedS = weighted(automated, s.fixedAutomated);
    s.mttrManualS = weighted(manual, s.fixedManual);
    return s;
}

QString formatRepairDuration(double seconds) {
    if (!std::isfinite(seconds)) return QStringLiteral("—");
    if (seconds < 5400) return QStringLiteral("%1 min").arg(std::lround(std::max(0.0, seconds) / 60.0));
    if (seconds < 2 * 86400) return QStringLiteral("%1 h").arg(seconds / 3600.0, 0, 'f', 1);
    return QStringLiteral("%1 d").arg(seconds / 86400.0, 0, 'f', 1);
}

QString repairOutcomeMix(const RepairSummary& s) {
    return QStringLiteral("%1 reset · %2 reboot · %3 power cycle · %4 diagnostics only · %5 RMA")
        .arg(s.byReset)
        .arg(s.byReboot)
        .arg(s.byPowerCycle)
        .arg(s.byDiagnostics)
        .arg(s.sentToRma);
}

}  // namespace watchfloor::client
