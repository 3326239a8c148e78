#pragma once
// The console's reading of fleetd's link health (fleet.proto LinkHealth, LinkHealthSummary): the
// "Links at risk" rows over every endpoint, worst first, with the words an operator reads (verdict,
// both ends' BER, the forecast's probabilities and time to the Error line, the top influencer, the
// jobs and GPU-hours at stake, the stage's reason); the listed record of one NIC port or tray (the
// ports table's forecast column, the rack's marks); the sentence an empty list shows. Plain data:
// ui/ draws it. A link fleetd does not list is Normal or not judged: it has no row and no forecast.

#include "EntityId.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace watchfloor::client {

class FleetStore;

// The Symbol BER lines NVIDIA's field thresholds draw for NDR with PLR (docs/domain/link-health.md).
inline constexpr double kBerErrorLine = 1e-14;
inline constexpr double kBerWarningLine = 5e-15;
inline constexpr double kBerNormalLine = 1e-15;

// "no data", "judging", "Normal", "elevated", "saturated", "Warning", "Error"; "" for UNSPECIFIED.
QString linkVerdictLabel(watchfloor::v1::LinkVerdict verdict);
// "watch", "proposed", "isolating", "isolated", "treated", "returned"; "" for UNSPECIFIED.
QString linkStageLabel(watchfloor::v1::LinkStage stage);
// One end's BER: fleetd's text when it sent one, else "≤ 1.0e-15 (95 %)" for an upper bound (never
// 0), "3.2e-14" for a point, "no BER" without bits.
QString linkEndBerText(const watchfloor::v1::LinkBer& end);
// Both ends, host first: "3.2e-14 / 2.9e-14", "3.2e-14 / one end seen".
QString linkBerText(const watchfloor::v1::LinkHealth& link);
// A probability as an operator reads it: "82 %", "< 1 %" (a forecast is never a sure 0), "> 99 %".
QString linkProbabilityText(double p);
// The time to the Error line: "now" when the errors prove it crossed, "3.2 h (1.9–6.0)" with the
// 90 % interval, "31 h (18–60)", "—" when no crossing is in view.
QString linkEtaText(const watchfloor::v1::LinkForecast& forecast);
// "12 GPU-h", "3.5 GPU-h": GPU-hours rounded for reading.
QString gpuHoursText(double hours);

// One row of the Links at risk list.
struct LinkRiskRow {
    int endpoint = 0;
    EntityId port;  // the host end's NIC port (invalid when the topology does not know it)
    EntityId tray;  // the tray it serves
    QString name;   // fleet-unique (navigation)
    watchfloor::v1::LinkHealth record;
    QString verdict;         // linkVerdictLabel of the cable (the worse end)
    QString ber;             // linkBerText
    QString p1h, p6h, p24h;  // linkProbabilityText
    QString eta;             // linkEtaText
    QString influencer;      // the largest deviation's text; "—" without one
    QString jobs;            // the jobs' names, comma-separated; "no job"
    QString atStake;         // "412 GPU-h unplanned vs 8 at the checkpoint in 25 min · saves 404 GPU-h"
    QString stage;           // "watch: P(Error or down within 6 h) 82 %"
};
LinkRiskRow linkRiskRow(const FleetStore& store, int endpoint, const watchfloor::v1::LinkHealth& record);
// Every listed link of every endpoint: at risk first, then by P(Error or down within 6 h), then
// the worse verdict, then by name.
std::vector<LinkRiskRow> linkRiskRows(const FleetStore& store);
// What a link at risk costs, unplanned against planned: "40 vs 20 GPU-h, saves 20 (checkpoint in
// 20 min)" (the checkpoint's time from `nowMs`, the endpoint's fleet clock); "no job" when none runs.
QString linkAtStakeText(const watchfloor::v1::LinkAtStake& stake, std::int64_t nowMs);
// The same in a sentence (the cell's tooltip): "An unplanned failure costs 40 GPU-h (120 GPUs: restart
// + progress since the last checkpoint); a drain at the next checkpoint (in 20 min) costs 20 GPU-h:
// draining saves 20 GPU-h."
QString linkAtStakeDetail(const watchfloor::v1::LinkAtStake& stake, std::int64_t nowMs);

// fleetd's listed record for a NIC port, or null (Normal or not judged).
const watchfloor::v1::LinkHealth* linkHealthOf(const FleetStore& store, EntityId port);
// The listed links of a tray's NIC ports, worst first (at risk, then P 6 h).
std::vector<const watchfloor::v1::LinkHealth*> linkHealthOfTray(const FleetStore& store, EntityId tray);

// fleetd's link summaries summed over endpoints, one line: "3 at risk · 2 Warning · 1 Error · 412 GPU-h
// at stake · 0 isolated (budget 10) · 180 links judged, 36 judging"; "" when no endpoint sent one.
QString linkSummaryText(const FleetStore& store);
// What an empty list says: "No link at risk: 412 links judged, 36 still judging." from the
// endpoints' summaries summed; "fleetd judges no links." when no endpoint sent a summary.
QString linksAtRiskEmptyText(const FleetStore& store);

}  // namespace watchfloor::client
