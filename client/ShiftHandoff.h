#pragma once
// The shift handoff report: what the next shift needs from the last N hours — open incidents
// with their owners and notes, incidents resolved in the period, operator actions, the repairs of
// the period (cases opened and closed, MTTR automated against manual, the outcome mix), goodput per
// job, racks isolated or in maintenance, and the note the outgoing operator leaves. Pure logic:
// collectHandoff() reads the console's data (FleetStore, the control clients' operations) into a
// plain HandoffInput, handoffMarkdown() writes it; ui/ renders the same Markdown to PDF.
//
// Two clocks: incidents carry fleet time (the source's clock, which a twin runs at --speed),
// operations carry fleetd's wall clock. The period is N hours of each, as stated in the report.

#include "watchfloor/v1/control.pb.h"
#include "watchfloor/v1/fleet.pb.h"

#include <QPointer>
#include <QString>
#include <QVector>

#include <cstdint>
#include <vector>

namespace watchfloor::client {

class ControlClient;
class FleetStore;

struct HandoffJob {
    QString name;
    watchfloor::v1::JobState state = watchfloor::v1::JOB_STATE_UNSPECIFIED;
    std::uint32_t gpus = 0;
    double goodputRatio = 0;       // cumulative, provisional
    double goodput1hRatio = 0;     // the last hour
    bool noStepTelemetry = false;  // a real site's job that publishes no steps: no goodput
    bool starting = false;         // no productive step yet (client/JobProgress.h): "starting", not 0 %
};

struct HandoffRack {
    QString name;
    QString why;  // "isolated since 2026-12-02 14:02", "maintenance until 16:00 (alice: pump swap)"
};

struct HandoffIncident {
    QString endpoint;  // empty with one endpoint
    watchfloor::v1::Incident incident;
};

// A repair case fleetd holds (fleet.proto RepairCase); times are fleet time, like incidents'.
struct HandoffRepair {
    QString endpoint;  // empty with one endpoint
    watchfloor::v1::RepairCase repairCase;
};

// A handoff note stored in fleetd (ControlService POST_HANDOFF), as a console sees it.
struct PostedHandoff {
    int endpoint = -1;
    QString endpointName;  // empty with one endpoint
    watchfloor::v1::ShiftHandoff handoff;
    bool acknowledged() const { return !handoff.acknowledged_by().empty(); }
};

struct HandoffInput {
    QString fleet;   // the fleets' names, "demo" or "east + west"
    QString author;  // who hands off (the control identity), empty if unknown
    int periodHours = 8;
    std::int64_t fleetNowUnixMs = 0;
    std::int64_t wallNowUnixMs = 0;
    std::vector<HandoffIncident> incidents;             // every incident held
    std::vector<watchfloor::v1::Operation> operations;  // newest first, any age
    std::vector<HandoffRepair> repairs;                 // every repair case held
    std::vector<HandoffJob> jobs;
    std::vector<HandoffRack> racksOut;
    QString note;                       // for the next shift
    std::vector<PostedHandoff> posted;  // fleetd's handoffs, newest first
};

inline constexpr int kDefaultHandoffHours = 8;
// fleetd's bound on a note (control.proto ActionRequest.note), in UTF-8 bytes.
inline constexpr int kMaxHandoffNoteBytes = 2048;

// Every endpoint's handoffs, newest first.
std::vector<PostedHandoff> postedHandoffs(const FleetStore& store);
// The newest handoff nobody has acknowledged yet, or null: what an incoming shift reads first.
const PostedHandoff* awaitingAcknowledgement(const std::vector<PostedHandoff>& posted);
// The note as fleetd stores it: one line of plain text. Lines (and paragraphs) are joined with
// " / ", tabs become spaces, blank lines go; the preview shows exactly this.
QString handoffNoteLine(const QString& note);
// One line for a handoff's acknowledgement state: "acknowledged by bob at 2026-12-02 14:05 UTC"
// or "not acknowledged yet".
QString handoffAcknowledgement(const watchfloor::v1::ShiftHandoff& handoff);

HandoffInput collectHandoff(const FleetStore& store, const QVector<QPointer<ControlClient>>& controls, int periodHours,
                            const QString& note);

// The report. Sections in this order: header, note, handoffs stored in fleetd (every
// unacknowledged one and those posted in the period, with who acknowledged them and when), open
// incidents (with their notes), resolved in the period, operator actions in the period (oldest
// first), repairs (cases opened or closed in the period and those still open: counts, MTTR of the
// cases fixed in the period, automated and manual, and their outcome mix), goodput per job, racks out.
QString handoffMarkdown(const HandoffInput& input);

}  // namespace watchfloor::client
