#include "OperatorActions.h"

#include "ActionDialog.h"
#include "ActionWording.h"

#include "ControlClient.h"
#include "FleetStore.h"
#include "StateLabels.h"

#include <QMenu>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

OperatorActions::OperatorActions(const client::FleetStore& store, QVector<QPointer<client::ControlClient>> controls,
                                 QObject* parent)
    : QObject(parent), m_store(store), m_controls(std::move(controls)) {
    for (const QPointer<client::ControlClient>& control : std::as_const(m_controls)) {
        if (control)
            connect(control, &client::ControlClient::identityChanged, this, &OperatorActions::availabilityChanged);
    }
}

client::ControlClient* OperatorActions::control(int endpoint) const {
    return endpoint >= 0 && endpoint < m_controls.size() ? m_controls[endpoint].data() : nullptr;
}

client::ControlClient* OperatorActions::actorFor(int endpoint) const {
    client::ControlClient* client = control(endpoint);
    return client && client->canAct() ? client : nullptr;
}

ActionDraft OperatorActions::draft(int endpoint, v1::ActionType type, const QString& target) const {
    ActionDraft d;
    d.endpoint = endpoint;
    d.request.set_type(type);
    if (!target.isEmpty()) client::setActionTargetName(&d.request, target);
    d.label = actionHeading(d.request) + QStringLiteral("…");
    return d;
}

ActionDraft OperatorActions::lifecycleDraft(int endpoint, EntityId tray, const QString& name) const {
    // Pre-selected: automation's proposal, else back to production from elsewhere, else triage.
    const client::TrayLifecycleStatus* lifecycle = m_store.trayLifecycle(tray);
    v1::TrayLifecycle suggested = v1::TRAY_LIFECYCLE_TRIAGE;
    if (lifecycle && lifecycle->proposed != v1::TRAY_LIFECYCLE_UNSPECIFIED)
        suggested = lifecycle->proposed;
    else if (lifecycle && lifecycle->state != v1::TRAY_LIFECYCLE_UNSPECIFIED &&
             lifecycle->state != v1::TRAY_LIFECYCLE_PRODUCTION)
        suggested = v1::TRAY_LIFECYCLE_PRODUCTION;
    ActionDraft d;
    d.endpoint = endpoint;
    d.request.set_type(v1::ACTION_TYPE_SET_LIFECYCLE);
    d.request.set_node_name(name.toStdString());
    d.request.set_lifecycle(suggested);
    if (lifecycle && lifecycle->proposed == suggested && !lifecycle->proposalReason.empty())
        d.request.set_reason(lifecycle->proposalReason);
    d.label = QStringLiteral("%1 (%2 → %3)…")
                  .arg(actionHeading(d.request),
                       client::lifecycleLabel(lifecycle ? lifecycle->state : v1::TRAY_LIFECYCLE_UNSPECIFIED),
                       client::lifecycleLabel(suggested));
    return d;
}

QList<ActionDraft> OperatorActions::draftsFor(EntityId entity) const {
    QList<ActionDraft> drafts;
    if (!entity.isValid() || !actorFor(entity.endpoint)) return drafts;
    const int endpoint = entity.endpoint;
    EntityId subject = entity;
    if (m_store.kind(subject) == v1::ENTITY_KIND_GPU || m_store.kind(subject) == v1::ENTITY_KIND_CPU)
        subject = m_store.parent(subject);
    switch (m_store.kind(subject)) {
    case v1::ENTITY_KIND_NODE: {
        const v1::Node* node = m_store.nodeInfo(subject);
        if (!node) break;
        const QString name = QString::fromStdString(node->name());
        const v1::NodeState state = m_store.status(subject).nodeState;
        // Slurm's view: a drained, draining or down node is resumed, any other is drained.
        const bool outOfService =
            state == v1::NODE_STATE_DRAINING || state == v1::NODE_STATE_DRAINED || state == v1::NODE_STATE_DOWN;
        if (!outOfService) drafts << draft(endpoint, v1::ACTION_TYPE_DRAIN_NODE, name);
        if (outOfService || state == v1::NODE_STATE_UNSPECIFIED)
            drafts << draft(endpoint, v1::ACTION_TYPE_RESUME_NODE, name);
        drafts << lifecycleDraft(endpoint, subject, name);
        drafts = repairStepForTray(subject) + drafts;
        break;
    }
    case v1::ENTITY_KIND_RACK: {
        const v1::Rack* rack = m_store.rackInfo(subject);
        if (!rack) break;
        const QString name = QString::fromStdString(rack->name());
        if (m_store.status(subject).rackState == v1::RACK_STATE_ISOLATED)
            drafts << draft(endpoint, v1::ACTION_TYPE_RESTORE_RACK, name);
        else
            drafts << draft(endpoint, v1::ACTION_TYPE_ISOLATE_RACK, name);
        break;
    }
    case v1::ENTITY_KIND_JOB: {
        const int row = m_store.jobRow(subject);
        const v1::Job* job = row >= 0 ? m_store.job(row) : nullptr;
        if (!job || job->state() == v1::JOB_STATE_FINISHED) break;
        ActionDraft restart = draft(endpoint, v1::ACTION_TYPE_RESTART_JOB, QString::fromStdString(job->name()));
        for (const QString& node : nodesToAvoid(subject)) restart.request.add_exclude_node_names(node.toStdString());
        drafts << restart;
        break;
    }
    default: break;
    }
    return drafts;
}

QList<ActionDraft> OperatorActions::draftsForEvent(quint64 eventSerial) const {
    const client::StoredEvent* event = m_store.eventBySerial(eventSerial);
    if (!event) return {};
    client::ControlClient* client = actorFor(event->endpoint);
    if (!client) return {};
    QList<ActionDraft> drafts;
    if (!client->isAcknowledged(event->event.id())) {
        ActionDraft d;
        d.endpoint = event->endpoint;
        d.request.set_type(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT);
        d.request.set_event_id(event->event.id());
        d.label = actionHeading(d.request) + QStringLiteral("…");
        drafts << d;
    }
    // The breaker's trip alert is where an admin looks when automatic draining stopped; fleetd's
    // preview says whether it is still tripped.
    if (event->event.cause() == "automation_circuit_breaker" &&
        client::roleMayRun(client->role(), v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER))
        drafts << draft(event->endpoint, v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER, {});
    return repairStepForEvent(eventSerial) + drafts;
}

QList<ActionDraft> OperatorActions::repairDraft(const std::optional<client::RepairStepProposal>& step) const {
    if (!step || !actorFor(step->tray.endpoint)) return {};
    ActionDraft d;
    d.endpoint = step->tray.endpoint;
    d.request = client::repairStepRequest(*step);
    d.label = client::repairStepLabel(*step) + QStringLiteral("…");
    return {d};
}

QList<ActionDraft> OperatorActions::repairStepForEvent(quint64 eventSerial) const {
    const client::StoredEvent* event = m_store.eventBySerial(eventSerial);
    return event ? repairDraft(client::repairStepForEvent(m_store, *event)) : QList<ActionDraft>{};
}

QList<ActionDraft> OperatorActions::repairStepForTray(EntityId tray) const {
    return tray.isValid() ? repairDraft(client::repairStepForTray(m_store, tray)) : QList<ActionDraft>{};
}

QList<ActionDraft> OperatorActions::draftsForLink(int endpoint, const v1::LinkHealth& link) const {
    if (!actorFor(endpoint)) return {};
    const QString name = QString::fromStdString(link.name());
    QList<ActionDraft> drafts;
    switch (link.stage()) {
    case v1::LINK_STAGE_ISOLATING: break;  // its operation runs: the Operations dock follows it
    case v1::LINK_STAGE_ISOLATED: drafts << draft(endpoint, v1::ACTION_TYPE_TREAT_LINK, name); break;
    case v1::LINK_STAGE_TREATED:
        drafts << draft(endpoint, v1::ACTION_TYPE_RETURN_LINK, name)
               << draft(endpoint, v1::ACTION_TYPE_TREAT_LINK, name);
        break;
    default: {
        ActionDraft isolate = draft(endpoint, v1::ACTION_TYPE_ISOLATE_LINK, name);
        // A planned drain costs the jobs a restart; an unplanned failure their progress too. Once
        // errors prove the link over the Error line, waiting for a checkpoint is a gamble.
        isolate.request.set_at_next_checkpoint(link.at_stake().next_checkpoint_unix_ms() > 0 &&
                                               !link.forecast().confirmed_error());
        drafts << isolate;
        break;
    }
    }
    return drafts;
}

QList<ActionDraft> OperatorActions::draftsForIncident(int endpoint, const v1::Incident& incident) const {
    if (!actorFor(endpoint)) return {};
    QList<ActionDraft> drafts;
    auto step = [&](v1::ActionType type) {
        ActionDraft d;
        d.endpoint = endpoint;
        d.request.set_type(type);
        d.request.set_incident_id(incident.id());
        d.label = actionHeading(d.request) + QStringLiteral("…");
        drafts << d;
    };
    const v1::IncidentState state = incident.state();
    if (state == v1::INCIDENT_STATE_OPEN) step(v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT);
    if (state == v1::INCIDENT_STATE_OPEN || state == v1::INCIDENT_STATE_ACKNOWLEDGED)
        step(v1::ACTION_TYPE_MITIGATE_INCIDENT);
    // fleetd refuses an operator's resolve while a member is active: not offered then.
    if (state != v1::INCIDENT_STATE_RESOLVED && incident.active_members() == 0) step(v1::ACTION_TYPE_RESOLVE_INCIDENT);
    step(v1::ACTION_TYPE_NOTE_INCIDENT);
    return drafts;
}

std::optional<ActionDraft> OperatorActions::draftPostHandoff(std::int64_t periodStartMs, std::int64_t periodEndMs,
                                                             const QString& noteLine) const {
    const int endpoint = firstActableEndpoint();
    if (endpoint < 0) return std::nullopt;
    ActionDraft d = draft(endpoint, v1::ACTION_TYPE_POST_HANDOFF, {});
    d.request.set_handoff_period_start_unix_ms(periodStartMs);
    d.request.set_handoff_period_end_unix_ms(periodEndMs);
    d.request.set_note(noteLine.toStdString());
    d.request.set_reason("end of shift handoff");
    return d;
}

int OperatorActions::firstActableEndpoint() const {
    for (int endpoint = 0; endpoint < m_controls.size(); ++endpoint)
        if (actorFor(endpoint)) return endpoint;
    return -1;
}

std::optional<ActionDraft> OperatorActions::draftAcknowledgeHandoff(int endpoint, const v1::ShiftHandoff& handoff,
                                                                    QString* why) const {
    auto refuse = [&](const QString& reason) -> std::optional<ActionDraft> {
        if (why) *why = reason;
        return std::nullopt;
    };
    const client::ControlClient* client = control(endpoint);
    if (!client)
        return refuse(
            QStringLiteral("No control connection to this fleetd: handoffs can be read here, not acknowledged."));
    if (!actorFor(endpoint))
        return refuse(
            QStringLiteral("Your role (%1) can read handoffs but not acknowledge them.").arg(roleWord(client->role())));
    if (client->principal() == QString::fromStdString(handoff.author()))
        return refuse(QStringLiteral("You posted this handoff; the next shift acknowledges it."));
    ActionDraft d = draft(endpoint, v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF, QString::fromStdString(handoff.id()));
    d.request.set_reason("taking over the shift");
    return d;
}

QStringList OperatorActions::nodesToAvoid(EntityId job) const {
    QStringList nodes;
    const int row = m_store.jobRow(job);
    const v1::Job* info = row >= 0 ? m_store.job(row) : nullptr;
    if (!info) return nodes;
    for (std::uint32_t index : info->node_indexes()) {
        const EntityId node{job.endpoint, index};
        const v1::Node* nodeInfo = m_store.nodeInfo(node);
        if (!nodeInfo) continue;
        const client::EntityStatus status = m_store.status(node);
        bool avoid = status.nodeState == v1::NODE_STATE_DRAINING || status.nodeState == v1::NODE_STATE_DRAINED ||
                     status.nodeState == v1::NODE_STATE_DOWN || status.health == v1::HEALTH_STATE_FAILED;
        for (std::uint32_t gpu : nodeInfo->gpu_indexes())
            avoid = avoid || m_store.status(EntityId{job.endpoint, gpu}).health == v1::HEALTH_STATE_FAILED;
        if (avoid) nodes << QString::fromStdString(nodeInfo->name());
    }
    return nodes;
}

int OperatorActions::addToMenu(QMenu& menu, const QList<ActionDraft>& drafts, QWidget* dialogParent) {
    if (drafts.isEmpty()) return 0;
    menu.addSeparator();
    for (const ActionDraft& d : drafts) {
        QAction* action = menu.addAction(d.label, this, [this, d, dialogParent] { open(d, dialogParent); });
        action->setObjectName(QStringLiteral("operatorAction"));
        action->setData(int(d.request.type()));
    }
    return int(drafts.size());
}

ActionDialog* OperatorActions::open(const ActionDraft& d, QWidget* parent) {
    // Checked again: the role may have changed since the menu was built.
    client::ControlClient* client = actorFor(d.endpoint);
    if (!client) return nullptr;
    auto* dialog = new ActionDialog(*client, d.request, parent);
    dialog->setColours(m_colours);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(parent ? Qt::WindowModal : Qt::ApplicationModal);
    dialog->show();
    emit dialogOpened(dialog);
    return dialog;
}

}  // namespace watchfloor::ui
