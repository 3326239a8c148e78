#include "ShiftHandoff.h"

#include "ActionWords.h"
#include "ControlClient.h"
#include "FleetStore.h"
#include "JobProgress.h"
#include "RepairCases.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

constexpr std::int64_t kHourMs = 3'600'000;

QString utc(std::int64_t unixMs) {
    return QDateTime::fromMSecsSinceEpoch(unixMs, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm"));
}

QString duration(std::int64_t ms) {
    const std::int64_t minutes = std::max<std::int64_t>(0, ms) / 60'000;
    return minutes < 60 ? QStringLiteral("%1 min").arg(minutes)
                        : QStringLiteral("%1 h %2 min").arg(minutes / 60).arg(minutes % 60, 2, 10, QChar(u'0'));
}

// A table cell: one line, no column breaks.
QString cell(QString text) {
    text.replace(QLatin1Char('|'), QStringLiteral("\\|")).replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text.isEmpty() ? QStringLiteral("—") : text;
}

QString row(const QStringList& cells) {
    QStringList escaped;
    for (const QString& c : cells) escaped << cell(c);
    return QStringLiteral("| %1 |\n").arg(escaped.join(QStringLiteral(" | ")));
}

QString header(const QStringList& columns) {
    QStringList rule;
    for (qsizetype i = 0; i < columns.size(); ++i) rule << QStringLiteral("---");
    return row(columns) + QStringLiteral("|%1|\n").arg(rule.join(QLatin1Char('|')));
}

QString stateName(v1::IncidentState state) {
    QString name = QString::fromStdString(v1::IncidentState_Name(state));
    return name.remove(QStringLiteral("INCIDENT_STATE_")).toLower();
}

QString enumWords(std::string name, const char* prefix) {
    QString words = QString::fromStdString(name);
    return words.remove(QLatin1String(prefix)).toLower().replace(QLatin1Char('_'), QLatin1Char(' '));
}

QString incidentId(const HandoffIncident& i) {
    return i.endpoint.isEmpty() ? QStringLiteral("#%1").arg(i.incident.id())
                                : QStringLiteral("%1 #%2").arg(i.endpoint).arg(i.incident.id());
}

QString percent(double ratio) { return QStringLiteral("%1 %").arg(ratio * 100.0, 0, 'f', 1); }

QString notesOf(const std::vector<const HandoffIncident*>& incidents, std::int64_t fromMs) {
    QString out;
    for (const HandoffIncident* i : incidents)
        for (const v1::IncidentTimelineEntry& e : i->incident.timeline())
            if (e.kind() == v1::TIMELINE_ENTRY_KIND_NOTE && e.time_unix_ms() >= fromMs)
                out += QStringLiteral("- **%1** %2 %3: %4\n")
                           .arg(incidentId(*i), utc(e.time_unix_ms()), QString::fromStdString(e.principal()),
                                QString::fromStdString(e.text()));
    return out.isEmpty() ? out : QStringLiteral("\nNotes:\n\n") + out;
}

// Cases opened or closed in the period, and those open now; the period's fixes as MTTR and mix.
QString repairsSection(const std::vector<HandoffRepair>& repairs, std::int64_t fleetFrom, std::int64_t fleetNow) {
    std::vector<const HandoffRepair*> shown;
    int opened = 0, fixed = 0, rma = 0, fixedAuto = 0;
    double all = 0, automated = 0, manual = 0;
    int byRung[v1::RepairRung_ARRAYSIZE] = {};
    for (const HandoffRepair& r : repairs) {
        const v1::RepairCase& c = r.repairCase;
        const bool open = isOpenRepairCase(c);
        const bool closedInPeriod = !open && c.closed_unix_ms() >= fleetFrom;
        if (c.opened_unix_ms() >= fleetFrom) ++opened;
        if (open || closedInPeriod || c.opened_unix_ms() >= fleetFrom) shown.push_back(&r);
        if (!closedInPeriod) continue;
        if (c.state() == v1::REPAIR_CASE_STATE_RMA) {
            ++rma;
            continue;
        }
        ++fixed;
        const double took = double(c.closed_unix_ms() - c.opened_unix_ms()) / 1000.0;
        all += took;
        (c.automated() ? automated : manual) += took;
        fixedAuto += c.automated() ? 1 : 0;
        if (c.fixed_by() >= 0 && c.fixed_by() < v1::RepairRung_ARRAYSIZE) ++byRung[c.fixed_by()];
    }
    const auto mean = [](double sum, int n) { return formatRepairDuration(n > 0 ? sum / n : RepairSummary::kNaN); };
    QString md = QStringLiteral("## Repairs (%1 opened, %2 closed in the period)\n\n").arg(opened).arg(fixed + rma);
    if (shown.empty()) return md + QStringLiteral("None.\n\n");
    md += QStringLiteral(
              "Fixed %1 (MTTR %2; automated %3 in %4, manual %5 in %6) · sent to RMA %7 · "
              "fixed by reset %8, reboot %9, power cycle %10, diagnostics only %11\n\n")
              .arg(fixed)
              .arg(mean(all, fixed), mean(automated, fixedAuto))
              .arg(fixedAuto)
              .arg(mean(manual, fixed - fixedAuto))
              .arg(fixed - fixedAuto)
              .arg(rma)
              .arg(byRung[v1::REPAIR_RUNG_RESET_GPU])
              .arg(byRung[v1::REPAIR_RUNG_REBOOT])
              .arg(byRung[v1::REPAIR_RUNG_POWER_CYCLE])
              .arg(byRung[v1::REPAIR_RUNG_DIAGNOSTICS]);
    std::sort(shown.begin(), shown.end(), [](const HandoffRepair* a, const HandoffRepair* b) {
        return a->repairCase.opened_unix_ms() != b->repairCase.opened_unix_ms()
                   ? a->repairCase.opened_unix_ms() < b->repairCase.opened_unix_ms()
                   : a->repairCase.id() < b->repairCase.id();
    });
    md += header({"Case", "Tray", "Fault", "State", "Step", "Opened", "Open for / took", "Owner"});
    for (const HandoffRepair* r : shown) {
        const v1::RepairCase& c = r->repairCase;
        const std::int64_t end = isOpenRepairCase(c) ? fleetNow : c.closed_unix_ms();
        const QString id =
            r->endpoint.isEmpty() ? QString::number(c.id()) : QStringLiteral("%1/%2").arg(r->endpoint).arg(c.id());
        md += row({id, QString::fromStdString(c.node_name()), QString::fromStdString(c.fault()),
                   repairCaseStateLabel(c.state()) + (c.automated() ? QStringLiteral(" (auto)") : QString()),
                   repairCaseStepText(c), utc(c.opened_unix_ms()), duration(end - c.opened_unix_ms()),
                   repairCaseOwnerText(c)});
    }
    return md + QStringLiteral("\n");
}

QString postedSection(const std::vector<PostedHandoff>& posted, std::int64_t wallFrom) {
    std::vector<const PostedHandoff*> shown;
    for (const PostedHandoff& p : posted)
        if (!p.acknowledged() || p.handoff.posted_unix_ms() >= wallFrom) shown.push_back(&p);
    QString md = QStringLiteral("## Handoff notes in fleetd (%1)\n\n").arg(shown.size());
    if (shown.empty()) return md + QStringLiteral("None posted.\n\n");
    for (const PostedHandoff* p : shown) {
        const v1::ShiftHandoff& h = p->handoff;
        md += QStringLiteral("- **%1%2** posted %3 UTC by %4, covering %5 – %6 UTC: %7\n")
                  .arg(p->endpointName.isEmpty() ? QString() : QString(p->endpointName + QLatin1Char(' ')),
                       QString::fromStdString(h.id()), utc(h.posted_unix_ms()), QString::fromStdString(h.author()),
                       utc(h.period_start_unix_ms()), utc(h.period_end_unix_ms()),
                       p->acknowledged() ? handoffAcknowledgement(h)
                                         : QStringLiteral("**%1**").arg(handoffAcknowledgement(h)));
        md += QStringLiteral("  > %1\n").arg(QString::fromStdString(h.note()));
        if (!h.acknowledge_note().empty())
            md += QStringLiteral("  >\n  > %1: %2\n")
                      .arg(QString::fromStdString(h.acknowledged_by()), QString::fromStdString(h.acknowledge_note()));
    }
    return md + QStringLiteral("\n");
}

}  // namespace

std::vector<PostedHandoff> postedHandoffs(const FleetStore& store) {
    std::vector<PostedHandoff> posted;
    for (int e = 0; e < store.endpointCount(); ++e) {
        const QString name = store.endpointCount() > 1 ? store.endpointDisplayName(e) : QString();
        for (const v1::ShiftHandoff* handoff : store.endpointFleet(e).handoffs()) posted.push_back({e, name, *handoff});
    }
    std::stable_sort(posted.begin(), posted.end(), [](const PostedHandoff& a, const PostedHandoff& b) {
        return a.handoff.posted_unix_ms() > b.handoff.posted_unix_ms();
    });
    return posted;
}

const PostedHandoff* awaitingAcknowledgement(const std::vector<PostedHandoff>& posted) {
    const auto it =
        std::find_if(posted.begin(), posted.end(), [](const PostedHandoff& p) { return !p.acknowledged(); });
    return it == posted.end() ? nullptr : &*it;
}

QString handoffNoteLine(const QString& note) {
    QStringList lines;
    for (QString line : note.split(QRegularExpression(QStringLiteral("[\\r\\n\\x{2028}\\x{2029}]")))) {
        line.replace(QLatin1Char('\t'), QLatin1Char(' '));
        if (!line.trimmed().isEmpty()) lines << line.trimmed();
    }
    return lines.join(QStringLiteral(" / "));
}

QString handoffAcknowledgement(const v1::ShiftHandoff& handoff) {
    const QString acknowledged = actionPastTense(v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF);
    if (handoff.acknowledged_by().empty()) return QStringLiteral("not %1 yet").arg(acknowledged);
    return QStringLiteral("%1 by %2 at %3 UTC")
        .arg(acknowledged, QString::fromStdString(handoff.acknowledged_by()), utc(handoff.acknowledged_unix_ms()));
}

HandoffInput collectHandoff(const FleetStore& store, const QVector<QPointer<ControlClient>>& controls, int periodHours,
                            const QString& note) {
    HandoffInput in;
    in.periodHours = periodHours;
    in.note = note;
    in.wallNowUnixMs = QDateTime::currentMSecsSinceEpoch();
    QStringList fleets;
    for (int e = 0; e < store.endpointCount(); ++e) {
        const EndpointFleet& fleet = store.endpointFleet(e);
        fleets << store.endpointFleetName(e);
        in.fleetNowUnixMs = std::max(in.fleetNowUnixMs, fleet.serverTimeUnixMs());
        const QString endpoint = store.endpointCount() > 1 ? store.endpointDisplayName(e) : QString();
        for (const auto& [id, incident] : fleet.incidents()) in.incidents.push_back({endpoint, incident});
        for (const auto& [id, repairCase] : fleet.repairCases()) in.repairs.push_back({endpoint, repairCase});
        for (const auto& [id, window] : fleet.maintenanceWindows()) {
            if (window.state() != v1::MAINTENANCE_STATE_ACTIVE) continue;
            const QString why = QStringLiteral("maintenance until %1 (%2)")
                                    .arg(utc(window.end_unix_ms()), QString::fromStdString(window.reason()));
            for (std::uint32_t rack : window.rack_indexes())
                in.racksOut.push_back({store.name(EntityId{quint16(e), rack}), why});
        }
    }
    in.fleet = fleets.join(QStringLiteral(" + "));
    for (int row = 0; row < store.rackCount(); ++row) {
        const EntityId rack = store.rackAt(row);
        const EntityStatus status = store.status(rack);
        if (status.rackState == v1::RACK_STATE_ISOLATED)
            in.racksOut.push_back({store.name(rack), QStringLiteral("isolated since %1").arg(utc(status.sinceUnixMs))});
    }
    std::sort(in.racksOut.begin(), in.racksOut.end(), [](const HandoffRack& a, const HandoffRack& b) {
        return a.name != b.name ? a.name < b.name : a.why < b.why;
    });
    for (int row = 0; row < store.jobCount(); ++row) {
        const v1::Job* job = store.job(row);
        if (!job) continue;
        in.jobs.push_back({store.name(store.jobAt(row)), job->state(), job->gpu_count(), job->goodput_ratio(),
                           job->goodput_sliding_1h_ratio(), job->no_step_telemetry(), jobIsStarting(*job)});
    }
    for (const auto& control : controls) {
        if (!control) continue;
        if (in.author.isEmpty()) in.author = control->principal();
        for (const v1::Operation& op : control->operations()) in.operations.push_back(op);
    }
    std::sort(in.operations.begin(), in.operations.end(),
              [](const v1::Operation& a, const v1::Operation& b) { return a.created_unix_ms() > b.created_unix_ms(); });
    in.posted = postedHandoffs(store);
    return in;
}

QString handoffMarkdown(const HandoffInput& in) {
    const std::int64_t fleetFrom = in.fleetNowUnixMs - in.periodHours * kHourMs;
    const std::int64_t wallFrom = in.wallNowUnixMs - in.periodHours * kHourMs;
    QString md = QStringLiteral("# Shift handoff — %1\n\n").arg(in.fleet);
    md += QStringLiteral("Last %1 h: %2 – %3 UTC (fleet time; operator actions by fleetd's wall clock)")
              .arg(in.periodHours)
              .arg(utc(fleetFrom), utc(in.fleetNowUnixMs));
    md += in.author.isEmpty() ? QStringLiteral("\n\n") : QStringLiteral(" · handed off by %1\n\n").arg(in.author);

    md += QStringLiteral("## Note for the next shift\n\n");
    // Every line of the note quoted, so a blank line in it does not end the quote.
    md += in.note.trimmed().isEmpty()
              ? QStringLiteral("_No note._\n\n")
              : QStringLiteral("> %1\n\n").arg(in.note.trimmed().split(u'\n').join(QStringLiteral("\n> ")));
    md += postedSection(in.posted, wallFrom);

    std::vector<const HandoffIncident*> open;
    std::vector<const HandoffIncident*> resolved;
    for (const HandoffIncident& i : in.incidents) {
        if (i.incident.state() != v1::INCIDENT_STATE_RESOLVED)
            open.push_back(&i);
        else if (i.incident.resolved_unix_ms() >= fleetFrom)
            resolved.push_back(&i);
    }
    auto newestFirst = [](const HandoffIncident* a, const HandoffIncident* b) {
        return a->incident.started_unix_ms() != b->incident.started_unix_ms()
                   ? a->incident.started_unix_ms() > b->incident.started_unix_ms()
                   : a->incident.id() > b->incident.id();
    };
    std::sort(open.begin(), open.end(), newestFirst);
    std::sort(resolved.begin(), resolved.end(), newestFirst);

    md += QStringLiteral("## Open incidents (%1)\n\n").arg(open.size());
    if (open.empty()) {
        md += QStringLiteral("None.\n\n");
    } else {
        md += header({"Incident", "Root cause", "State", "Owner", "Opened", "Alerts (active)", "Cost GPU-h"});
        for (const HandoffIncident* i : open) {
            const v1::Incident& x = i->incident;
            md += row({incidentId(*i), QString::fromStdString(x.root_cause().summary()), stateName(x.state()),
                       QString::fromStdString(x.owner()), utc(x.started_unix_ms()),
                       QStringLiteral("%1 (%2)").arg(x.member_count()).arg(x.active_members()),
                       QString::number(x.goodput_cost_gpu_hours(), 'f', 1)});
        }
        md += notesOf(open, fleetFrom) + QStringLiteral("\n");
    }

    md += QStringLiteral("## Resolved in the period (%1)\n\n").arg(resolved.size());
    if (resolved.empty()) {
        md += QStringLiteral("None.\n\n");
    } else {
        md += header({"Incident", "Root cause", "Owner", "Resolved", "By", "Lasted", "Cost GPU-h"});
        for (const HandoffIncident* i : resolved) {
            const v1::Incident& x = i->incident;
            md += row({incidentId(*i), QString::fromStdString(x.root_cause().summary()),
                       QString::fromStdString(x.owner()), utc(x.resolved_unix_ms()),
                       x.resolved_by().empty() ? QStringLiteral("fleetd (hold time)")
                                               : QString::fromStdString(x.resolved_by()),
                       duration(x.resolved_unix_ms() - x.started_unix_ms()),
                       QString::number(x.goodput_cost_gpu_hours(), 'f', 1)});
        }
        md += notesOf(resolved, fleetFrom) + QStringLiteral("\n");
    }

    std::vector<const v1::Operation*> ops;
    for (const v1::Operation& op : in.operations)
        if (op.created_unix_ms() >= wallFrom) ops.push_back(&op);
    std::reverse(ops.begin(), ops.end());  // oldest first, as a log reads
    md += QStringLiteral("## Operator actions (%1)\n\n").arg(ops.size());
    if (ops.empty()) {
        md += QStringLiteral("None.\n\n");
    } else {
        md += header({"Time", "Who", "Action", "Target", "Outcome", "Reason"});
        for (const v1::Operation* op : ops)
            md += row({utc(op->created_unix_ms()), QString::fromStdString(op->principal()),
                       actionName(op->request().type()), QString::fromStdString(op->preview().target_name()),
                       enumWords(v1::OperationState_Name(op->state()), "OPERATION_STATE_"),
                       QString::fromStdString(op->request().reason())});
        md += QStringLiteral("\n");
    }

    md += repairsSection(in.repairs, fleetFrom, in.fleetNowUnixMs);

    md += QStringLiteral("## Goodput per job (%1)\n\n").arg(in.jobs.size());
    if (in.jobs.empty()) {
        md += QStringLiteral("None.\n\n");
    } else {
        md += header({"Job", "State", "GPUs", "Goodput", "Goodput, last hour"});
        // fleetd's 0 % for a job with no productive step yet would read as a broken job.
        const auto ratio = [](const HandoffJob& job, double value) {
            if (job.noStepTelemetry) return QStringLiteral("no step telemetry");
            return job.starting ? QStringLiteral("starting") : percent(value);
        };
        for (const HandoffJob& job : in.jobs)
            md += row({job.name, enumWords(v1::JobState_Name(job.state), "JOB_STATE_"), QString::number(job.gpus),
                       ratio(job, job.goodputRatio), ratio(job, job.goodput1hRatio)});
        md += QStringLiteral("\n");
    }

    md += QStringLiteral("## Racks isolated or in maintenance (%1)\n\n").arg(in.racksOut.size());
    if (in.racksOut.empty()) md += QStringLiteral("None.\n");
    for (const HandoffRack& rack : in.racksOut) md += QStringLiteral("- **%1**: %2\n").arg(rack.name, rack.why);
    return md;
}

}  // namespace watchfloor::client
