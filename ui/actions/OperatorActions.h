#pragma once
// Which operator actions the console offers where, and the way into them. Pages ask it to add
// the actions that fit an entity to a context menu or an action bar; it answers with nothing at
// all unless the operator may act on the endpoint that owns the entity (role operator or admin,
// identity known). MainWindow creates one, except on the wall display, which has no actions.

#include "ActionWording.h"
#include "EntityId.h"
#include "RepairCases.h"

#include "watchfloor/v1/control.pb.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QVector>

#include <optional>

class QMenu;
class QWidget;

namespace watchfloor::client {
class ControlClient;
class FleetStore;
}  // namespace watchfloor::client

namespace watchfloor::ui {

class ActionDialog;

// An action ready to open: where it goes and what it is about.
struct ActionDraft {
    int endpoint = -1;
    watchfloor::v1::ActionRequest request;  // type and target; restart-job exclusions pre-filled
    QString label;                          // "Drain node r01-n03…"
};

class OperatorActions : public QObject {
    Q_OBJECT
public:
    OperatorActions(const client::FleetStore& store, QVector<QPointer<client::ControlClient>> controls,
                    QObject* parent = nullptr);

    // The client that acts on `endpoint`, when this operator may act there; otherwise null.
    client::ControlClient* actorFor(int endpoint) const;
    client::ControlClient* control(int endpoint) const;

    // The actions that fit the entity in its current state: a node (or a GPU: its tray) can be
    // drained or resumed, a rack isolated or restored, a job restarted. Empty when the operator
    // may not act there.
    QList<ActionDraft> draftsFor(client::EntityId entity) const;
    // Acknowledging the event (by store serial), unless it is acknowledged already; for an admin,
    // resetting the automation circuit breaker from its trip alert.
    QList<ActionDraft> draftsForEvent(quint64 eventSerial) const;
    // The lifecycle steps fleetd allows the incident in its state: acknowledge (OPEN), mark
    // mitigated (OPEN, ACKNOWLEDGED), resolve (not resolved, no member active), add a note.
    QList<ActionDraft> draftsForIncident(int endpoint, const watchfloor::v1::Incident& incident) const;
    // The break/fix step recommended for an Xid event (by store serial) or a tray (or its GPU):
    // the tray's open repair case's next rung, else the first rung of the Xid's bucket
    // (client/RepairCases.h). At most one draft; none for another event, a bucket that is no
    // repair, a step already running, or an operator who may not act there.
    QList<ActionDraft> repairStepForEvent(quint64 eventSerial) const;
    QList<ActionDraft> repairStepForTray(client::EntityId tray) const;
    // The link ladder's next steps for a listed link (fleet.proto LinkHealth) of `endpoint`, by its
    // stage: isolate (at the next checkpoint when its jobs checkpoint and the link has not proved
    // itself over the Error line yet), record a treatment, return it. None while it is isolating,
    // or when the operator may not act there.
    QList<ActionDraft> draftsForLink(int endpoint, const watchfloor::v1::LinkHealth& link) const;
    // The first endpoint this operator may act on, or -1.
    int firstActableEndpoint() const;
    // Posting the handoff note (one line, as fleetd stores it) for the period to the first
    // endpoint this operator may act on; nullopt when there is none.
    std::optional<ActionDraft> draftPostHandoff(std::int64_t periodStartMs, std::int64_t periodEndMs,
                                                const QString& noteLine) const;
    // Acknowledging `handoff` of `endpoint`; nullopt, with the reason in `why`, when this operator
    // may not: no control channel or a read-only role, or the handoff is their own.
    std::optional<ActionDraft> draftAcknowledgeHandoff(int endpoint, const watchfloor::v1::ShiftHandoff& handoff,
                                                       QString* why = nullptr) const;

    // Adds a separator and one entry per draft; returns how many entries were added (0: nothing
    // was added, not even the separator).
    int addToMenu(QMenu& menu, const QList<ActionDraft>& drafts, QWidget* dialogParent);

    // Opens the (window-modal, self-deleting) dialog for the draft; null when not allowed.
    ActionDialog* open(const ActionDraft& draft, QWidget* parent);

    // Dialogs opened from now on write alarms and cautions in the theme's colours.
    void setTheme(const widgets::Theme& theme) { m_colours = ActionColours::of(theme); }

    // The job's trays a restart should avoid: drained, draining, down, or holding a failed GPU.
    QStringList nodesToAvoid(client::EntityId job) const;

signals:
    // Who may act changed (an identity became known, a role changed): action controls rebuild.
    void availabilityChanged();
    void dialogOpened(watchfloor::ui::ActionDialog* dialog);

private:
    // `target`: the name the type's target field takes (a node, job, rack, handoff); empty for none.
    ActionDraft draft(int endpoint, watchfloor::v1::ActionType type, const QString& target) const;
    QList<ActionDraft> repairDraft(const std::optional<client::RepairStepProposal>& step) const;
    ActionDraft lifecycleDraft(int endpoint, client::EntityId tray, const QString& name) const;

    const client::FleetStore& m_store;
    QVector<QPointer<client::ControlClient>> m_controls;
    ActionColours m_colours;
};

}  // namespace watchfloor::ui
