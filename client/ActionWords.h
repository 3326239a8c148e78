#pragma once
// The console's one table of operator actions: a row per control.proto ActionType with every word
// the console says about it (what it is called, the confirm button's verb, its past tense, what a
// role may or may not do), the request field that names its target, the least role fleetd lets
// run it, and the inputs the action dialog asks for. The dialog, the menus, the Operations dock,
// the error texts, the chart markers and the handoff report read the row instead of switching on
// the type, so one action reads the same everywhere. UNSPECIFIED's row holds the words for a type
// this console does not know (a newer fleetd's). tst_client_actionwords holds every ActionType to
// a row. fleetd's own table of the same types is server/control/ActionCatalog.

#include "watchfloor/v1/control.pb.h"

#include <QString>

#include <span>
#include <string_view>

namespace watchfloor::client {

// What names an action's target: the request field it is in and the word before it.
enum class ActionTargetKind {
    Unknown,            // a type this console does not know: "the target"
    Node,               // node_name: "node r01-n03"
    TrayGpu,            // node_name and gpu_index: "GPU r01-n03-g2"; the tray's name when every GPU is meant
    Job,                // job_name: "job llm-405b-pretrain"
    Rack,               // rack_name: "rack r07"
    Event,              // event_id: "event 1234"
    Incident,           // incident_id: "incident 7"
    MaintenanceScope,   // maintenance.scope_name of a window to schedule: "maintenance of r07"
    MaintenanceWindow,  // maintenance_window_id: "maintenance window mw-3"
    HandoffPeriod,      // the handoff_period fields; a handoff not posted has no id: "the shift handoff"
    Handoff,            // handoff_id: "handoff ho-2a"
    Breaker,            // no field, fleetd has one: "the automation circuit breaker"
    Link,               // link_name: "link r01-n07-ib2"
};

struct ActionTargetWords {
    ActionTargetKind kind;
    const char* field;  // the ActionRequest field that holds the name; "" when none does
    // The word before the name ("node"), or the whole phrase when the kind has no name.
    const char* noun;
    bool numbered;  // named by a number ("event 1234"), which means nothing without its noun
    QString (*name)(const watchfloor::v1::ActionRequest& request);  // "" when the kind has none
    // Puts a name into the field; null for kinds named by a number, a struct or nothing.
    void (*setName)(watchfloor::v1::ActionRequest* request, const std::string& name);
};

// The note the action dialog asks for.
enum class NoteInput {
    None,
    Optional,
    Required,  // the note is what the action records: fleetd refuses it empty
    Shown,     // written before (the handoff dialog) and shown as fleetd will store it
};

// What the action dialog asks for besides the reason, which every action requires.
struct ActionInputs {
    bool excludeNodes = false;     // the nodes a restarted job must avoid
    bool typeTargetName = false;   // the target's name typed exactly to confirm
    const char* typeNameWhy = "";  // the confirmation's tooltip
    bool chooseLifecycle = false;  // the tray lifecycle to set
    bool showOwner = false;        // the caller becomes the owner
    NoteInput note = NoteInput::None;
    const char* notePrompt = "";  // the note's placeholder, before "(optional)" or "(required)"
    // Break/fix (control.proto 50-54): which GPU of the tray (or all), whether to wait for the
    // tray to drain (Slurm's ASAP), where the tray goes afterwards, the diagnostic level.
    bool chooseGpu = false;
    bool waitForDrain = false;
    bool afterRepair = false;
    bool diagnosticLevel = false;
    // The link ladder (control.proto 60-62): drain at the jobs' next checkpoint or now; what was
    // done to the cable and at which end.
    bool atNextCheckpoint = false;
    bool chooseTreatment = false;
};

struct ActionWords {
    watchfloor::v1::ActionType type;
    const char* title;       // "Drain node": headings and menus, before the target's name
    const char* verb;        // "Drain": the confirm button, before the target as the button shows it
    const char* name;        // "drain node": in lists (Operations dock, handoff report, chart markers)
    const char* pastTense;   // "drained": what it did ("acknowledged by alice")
    const char* permission;  // "drain nodes": "Your role (viewer) cannot drain nodes."
    ActionTargetKind target;
    watchfloor::v1::Role minimumRole;  // ROLE_UNSPECIFIED: no role may (the unknown action)
    ActionInputs inputs;
};

// The row of `type`; for a value the table does not hold, UNSPECIFIED's (an unknown action).
const ActionWords& actionWords(watchfloor::v1::ActionType type);
std::span<const ActionWords> allActionWords();
const ActionTargetWords& targetWords(ActionTargetKind kind);
std::span<const ActionTargetWords> allTargetWords();
// The row of fleetd's name for a type, as audit records and incident timelines carry it
// (control.proto's name without "ACTION_TYPE_": "DRAIN_NODE"); null when this console has none.
const ActionWords* actionWordsNamed(std::string_view fleetdName);

QString actionTitle(watchfloor::v1::ActionType type);       // "Drain node"
QString actionVerb(watchfloor::v1::ActionType type);        // "Drain"
QString actionName(watchfloor::v1::ActionType type);        // "drain node"
QString actionPastTense(watchfloor::v1::ActionType type);   // "drained"
QString actionPermission(watchfloor::v1::ActionType type);  // "drain nodes"
// The row's name of fleetd's "DRAIN_NODE" ("drain node"); a name this console does not know in
// fleetd's own words, lower case ("new_thing" → "new thing").
QString recordedActionName(std::string_view fleetdName);
// viewer < operator < admin, against the row's least role; false for an unknown action.
bool roleMayRun(watchfloor::v1::Role role, watchfloor::v1::ActionType type);

// The target's name alone: "r01-n03", "1234", "7"; "" when its kind has none.
QString actionTargetName(const watchfloor::v1::ActionRequest& request);
// With its noun: "node r01-n03", "event 1234", "maintenance of r07", "the automation circuit breaker".
QString actionTargetPhrase(const watchfloor::v1::ActionRequest& request);
// As the confirm button names it: a name alone ("r01-n03"), a number with its noun ("event 1234").
QString actionTargetShown(const watchfloor::v1::ActionRequest& request);
// Names the target in the request field the type's kind uses; false when that kind takes no name.
bool setActionTargetName(watchfloor::v1::ActionRequest* request, const QString& name);

QString actionHeading(const watchfloor::v1::ActionRequest& request);      // "Drain node r01-n03"
QString actionSentence(const watchfloor::v1::ActionRequest& request);     // "drain node r01-n03"
QString actionConfirmText(const watchfloor::v1::ActionRequest& request);  // "Drain r01-n03", "Post to fleetd"

}  // namespace watchfloor::client
