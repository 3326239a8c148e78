// The shift handoff report's Markdown (client/ShiftHandoff.h) for a fixed fixture, checked
// exactly: what is in the period and what is not (an incident resolved before it, an operation
// older than it), the two clocks, owners and notes, escaped table cells, jobs without step
// telemetry, racks out of service, the handoffs stored in fleetd with their acknowledgement
// (an unacknowledged one from before the period still listed); the note folded to the one line
// fleetd stores; the handoff an incoming shift is shown.

#include "ShiftHandoff.h"

#include <QTest>

using namespace watchfloor;
namespace v1 = watchfloor::v1;

namespace {

constexpr std::int64_t kFleetNow = 1'780'000'000'000;  // 2026-05-28 20:26:40 UTC
constexpr std::int64_t kWallNow = 1'780'100'000'000;   // 2026-05-30 00:13:20 UTC
constexpr std::int64_t kMin = 60'000;

v1::Incident incident(std::uint64_t id, v1::IncidentState state, const char* cause, std::int64_t startedMs) {
    v1::Incident i;
    i.set_id(id);
    i.set_state(state);
    i.mutable_root_cause()->set_summary(cause);
    i.set_started_unix_ms(startedMs);
    return i;
}

void note(v1::Incident* i, std::int64_t atMs, const char* who, const char* text) {
    v1::IncidentTimelineEntry* e = i->add_timeline();
    e->set_kind(v1::TIMELINE_ENTRY_KIND_NOTE);
    e->set_time_unix_ms(atMs);
    e->set_principal(who);
    e->set_text(text);
}

v1::Operation operation(const char* who, v1::ActionType type, const char* target, const char* reason,
                        std::int64_t atMs) {
    v1::Operation op;
    op.set_principal(who);
    op.mutable_request()->set_type(type);
    op.mutable_request()->set_reason(reason);
    op.mutable_preview()->set_target_name(target);
    op.set_state(v1::OPERATION_STATE_SUCCEEDED);
    op.set_created_unix_ms(atMs);
    return op;
}

v1::ShiftHandoff handoff(const char* id, const char* author, const char* note, std::int64_t postedMs,
                         std::int64_t fromMs, std::int64_t toMs) {
    v1::ShiftHandoff h;
    h.set_id(id);
    h.set_author(author);
    h.set_note(note);
    h.set_posted_unix_ms(postedMs);
    h.set_period_start_unix_ms(fromMs);
    h.set_period_end_unix_ms(toMs);
    return h;
}

std::vector<client::PostedHandoff> postedFixture() {
    v1::ShiftHandoff read = handoff("ho-b2", "bob", "r03 isolated | facilities at 06:00", kWallNow - 60 * kMin,
                                    kWallNow - 9 * 60 * kMin, kWallNow - 60 * kMin);
    read.set_acknowledged_by("alice");
    read.set_acknowledged_unix_ms(kWallNow - 50 * kMin);
    read.set_acknowledge_note("read, r03 stays isolated");
    const v1::ShiftHandoff waiting = handoff("ho-a1", "carol", "r05 pump swap tomorrow", kWallNow - 10 * 60 * kMin,
                                             kWallNow - 18 * 60 * kMin, kWallNow - 10 * 60 * kMin);
    v1::ShiftHandoff old = handoff("ho-c3", "dave", "an acknowledged one from before the period",
                                   kWallNow - 20 * 60 * kMin, kWallNow - 28 * 60 * kMin, kWallNow - 20 * 60 * kMin);
    old.set_acknowledged_by("carol");
    old.set_acknowledged_unix_ms(kWallNow - 19 * 60 * kMin);
    return {{0, {}, read}, {0, {}, waiting}, {0, {}, old}};
}

client::HandoffInput fixture() {
    client::HandoffInput in;
    in.fleet = QStringLiteral("demo");
    in.author = QStringLiteral("alice");
    in.periodHours = 8;
    in.fleetNowUnixMs = kFleetNow;
    in.wallNowUnixMs = kWallNow;
    in.note = QStringLiteral("r07 valve: vendor at 09:00, keep it isolated");

    v1::Incident valve =
        incident(7, v1::INCIDENT_STATE_ACKNOWLEDGED, "r07-loop: control valve fault", kFleetNow - 90 * kMin);
    valve.set_owner("alice");
    valve.set_member_count(137);
    valve.set_active_members(12);
    valve.set_goodput_cost_gpu_hours(84.25);
    note(&valve, kFleetNow - 80 * kMin, "alice", "valve stuck at 12 % | facilities called");
    note(&valve, kFleetNow - 10 * 60 * kMin, "bob", "a note from before the period");
    v1::Incident xid = incident(9, v1::INCIDENT_STATE_OPEN, "r02-n07: GPU hard fault | Xid 79", kFleetNow - 20 * kMin);
    xid.set_member_count(1);
    xid.set_active_members(1);
    v1::Incident leak = incident(3, v1::INCIDENT_STATE_RESOLVED, "r03-loop: coolant leak", kFleetNow - 5 * 60 * kMin);
    leak.set_owner("bob");
    leak.set_resolved_unix_ms(kFleetNow - 3 * 60 * kMin);
    leak.set_resolved_by("bob");
    leak.set_goodput_cost_gpu_hours(310);
    note(&leak, kFleetNow - 4 * 60 * kMin, "bob", "drip tray replaced");
    v1::Incident old = incident(1, v1::INCIDENT_STATE_RESOLVED, "r01: power shelf", kFleetNow - 20 * 60 * kMin);
    old.set_resolved_unix_ms(kFleetNow - 9 * 60 * kMin);  // before the period: not in the report
    in.incidents = {{{}, valve}, {{}, xid}, {{}, leak}, {{}, old}};

    in.operations = {
        operation("alice", v1::ACTION_TYPE_ACKNOWLEDGE_INCIDENT, "incident 7", "alice: mine", kWallNow - 30 * kMin),
        operation("bob", v1::ACTION_TYPE_ISOLATE_RACK, "rack r03", "bob: leak under r03", kWallNow - 5 * 60 * kMin),
        operation("auto", v1::ACTION_TYPE_DRAIN_NODE, "r05-n01", "auto: Xid 48", kWallNow - 9 * 60 * kMin)};
    in.jobs = {{QStringLiteral("llm-405b-pretrain"), v1::JOB_STATE_RUNNING, 288, 0.8712, 0.9034, false},
               {QStringLiteral("slurm-4711"), v1::JOB_STATE_RUNNING, 16, 0, 0, true},
               {QStringLiteral("llm-8b-sweep"), v1::JOB_STATE_PENDING, 64, 0, 0, false, true}};
    in.racksOut = {{QStringLiteral("r03"), QStringLiteral("isolated since 2026-05-28 15:30")},
                   {QStringLiteral("r05"), QStringLiteral("maintenance until 2026-05-28 22:00 (carol: pump swap)")}};
    in.posted = postedFixture();
    return in;
}

}  // namespace

class TestShiftHandoff : public QObject {
    Q_OBJECT
private slots:
    void markdownOfAFixture() {
        const QString expected = QStringLiteral(
            "# Shift handoff — demo\n"
            "\n"
            "Last 8 h: 2026-05-28 12:26 – 2026-05-28 20:26 UTC (fleet time; operator actions by fleetd's wall clock) · "
            "handed off by alice\n"
            "\n"
            "## Note for the next shift\n"
            "\n"
            "> r07 valve: vendor at 09:00, keep it isolated\n"
            "\n"
            "## Handoff notes in fleetd (2)\n"
            "\n"
            "- **ho-b2** posted 2026-05-29 23:13 UTC by bob, covering 2026-05-29 15:13 – 2026-05-29 23:13 UTC: "
            "acknowledged by alice at 2026-05-29 23:23 UTC\n"
            "  > r03 isolated | facilities at 06:00\n"
            "  >\n"
            "  > alice: read, r03 stays isolated\n"
            "- **ho-a1** posted 2026-05-29 14:13 UTC by carol, covering 2026-05-29 06:13 – 2026-05-29 14:13 UTC: "
            "**not acknowledged yet**\n"
            "  > r05 pump swap tomorrow\n"
            "\n"
            "## Open incidents (2)\n"
            "\n"
            "| Incident | Root cause | State | Owner | Opened | Alerts (active) | Cost GPU-h |\n"
            "|---|---|---|---|---|---|---|\n"
            "| #9 | r02-n07: GPU hard fault \\| Xid 79 | open | — | 2026-05-28 20:06 | 1 (1) | 0.0 |\n"
            "| #7 | r07-loop: control valve fault | acknowledged | alice | 2026-05-28 18:56 | 137 (12) | 84.3 |\n"
            "\n"
            "Notes:\n"
            "\n"
            "- **#7** 2026-05-28 19:06 alice: valve stuck at 12 % | facilities called\n"
            "\n"
            "## Resolved in the period (1)\n"
            "\n"
            "| Incident | Root cause | Owner | Resolved | By | Lasted | Cost GPU-h |\n"
            "|---|---|---|---|---|---|---|\n"
            "| #3 | r03-loop: coolant leak | bob | 2026-05-28 17:26 | bob | 2 h 00 min | 310.0 |\n"
            "\n"
            "Notes:\n"
            "\n"
            "- **#3** 2026-05-28 16:26 bob: drip tray replaced\n"
            "\n"
            "## Operator actions (2)\n"
            "\n"
            "| Time | Who | Action | Target | Outcome | Reason |\n"
            "|---|---|---|---|---|---|\n"
            "| 2026-05-29 19:13 | bob | isolate rack | rack r03 | succeeded | bob: leak under r03 |\n"
            "| 2026-05-29 23:43 | alice | acknowledge incident | incident 7 | succeeded | alice: mine |\n"
            "\n"
            "## Repairs (0 opened, 0 closed in the period)\n"
            "\n"
            "None.\n"
            "\n"
            "## Goodput per job (3)\n"
            "\n"
            "| Job | State | GPUs | Goodput | Goodput, last hour |\n"
            "|---|---|---|---|---|\n"
            "| llm-405b-pretrain | running | 288 | 87.1 % | 90.3 % |\n"
            "| slurm-4711 | running | 16 | no step telemetry | no step telemetry |\n"
            "| llm-8b-sweep | pending | 64 | starting | starting |\n"
            "\n"
            "## Racks isolated or in maintenance (2)\n"
            "\n"
            "- **r03**: isolated since 2026-05-28 15:30\n"
            "- **r05**: maintenance until 2026-05-28 22:00 (carol: pump swap)\n");
        const QString actual = client::handoffMarkdown(fixture());
        if (actual != expected) {
            const QStringList a = actual.split(u'\n');
            const QStringList e = expected.split(u'\n');
            for (qsizetype i = 0; i < std::max(a.size(), e.size()); ++i)
                if (a.value(i) != e.value(i))
                    QFAIL(qPrintable(QStringLiteral("line %1:\n actual:   %2\n expected: %3")
                                         .arg(i + 1)
                                         .arg(a.value(i), e.value(i))));
        }
        QCOMPARE(actual, expected);
    }

    void anEmptyShiftSaysNone() {
        client::HandoffInput in;
        in.fleet = QStringLiteral("demo");
        in.fleetNowUnixMs = kFleetNow;
        in.wallNowUnixMs = kWallNow;
        const QString md = client::handoffMarkdown(in);
        QVERIFY(md.contains(QStringLiteral("_No note._")));
        QCOMPARE(md.count(QStringLiteral("None.")), 6);
        QVERIFY(!md.contains(QStringLiteral("handed off by")));
        QVERIFY(md.contains(QStringLiteral("## Handoff notes in fleetd (0)\n\nNone posted.\n")));
    }

    void theNoteIsFoldedToTheOneLineFleetdStores() {
        QCOMPARE(client::handoffNoteLine(QStringLiteral("  r03 leak\n\n\tcall facilities \r\nkeep r03 isolated\n")),
                 QStringLiteral("r03 leak / call facilities / keep r03 isolated"));
        QCOMPARE(client::handoffNoteLine(QStringLiteral("one\u2029two\u2028three")),
                 QStringLiteral("one / two / three"));
        QCOMPARE(client::handoffNoteLine(QStringLiteral(" \n \t\n")), QString());
    }

    void theIncomingShiftSeesTheNewestUnacknowledged() {
        std::vector<client::PostedHandoff> posted = postedFixture();
        const client::PostedHandoff* waiting = client::awaitingAcknowledgement(posted);
        QVERIFY(waiting);
        QCOMPARE(waiting->handoff.id(), std::string("ho-a1"));
        QCOMPARE(client::handoffAcknowledgement(posted[0].handoff),
                 QStringLiteral("acknowledged by alice at 2026-05-29 23:23 UTC"));
        QCOMPARE(client::handoffAcknowledgement(waiting->handoff), QStringLiteral("not acknowledged yet"));
        posted[1].handoff.set_acknowledged_by("bob");
        QVERIFY(!client::awaitingAcknowledgement(posted));
    }
};

QTEST_GUILESS_MAIN(TestShiftHandoff)
#include "tst_shifthandoff.moc"
