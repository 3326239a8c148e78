// The console's table of operator actions (client/ActionWords) against control.proto and fleetd:
// every ActionType the proto declares has its own row with every word filled in, each target kind
// names a real ActionRequest field and reads back what it wrote, the least role and the target
// field agree with fleetd's own table (server/control/ActionCatalog), and the sentences built from
// the rows read as the dialog, the menus, the Operations dock and the error texts show them.

#include "ActionWords.h"
#include "ControlErrorText.h"

#include "ActionCatalog.h"

#include <google/protobuf/descriptor.h>

#include <QTest>

#include <set>

using namespace watchfloor::client;
namespace v1 = watchfloor::v1;
namespace control = watchfloor::server::control;

namespace {

v1::ActionRequest request(v1::ActionType type) {
    v1::ActionRequest r;
    r.set_type(type);
    return r;
}

v1::ActionRequest named(v1::ActionType type, const char* name) {
    v1::ActionRequest r = request(type);
    if (!setActionTargetName(&r, QString::fromLatin1(name))) qFatal("%s takes no name", name);
    return r;
}

}  // namespace

class TestActionWords : public QObject {
    Q_OBJECT
private slots:
    void everyProtoTypeHasItsOwnRowAndEveryWord() {
        const auto* types = v1::ActionType_descriptor();
        std::set<int> declared;
        for (int i = 0; i < types->value_count(); ++i) {
            const auto type = v1::ActionType(types->value(i)->number());
            declared.insert(type);
            const ActionWords& row = actionWords(type);
            const QByteArray what = QByteArray::fromStdString(types->value(i)->name());
            QVERIFY2(row.type == type, what + " has no row in ActionWords");
            for (const char* word : {row.title, row.verb, row.name, row.pastTense, row.permission})
                QVERIFY2(word && *word, what + ": a word is empty");
            QVERIFY2(*targetWords(row.target).noun, what + ": its target has no noun");
            QVERIFY2(targetWords(row.target).kind == row.target, what + ": its target kind has no row");
            const ActionInputs& inputs = row.inputs;
            if (inputs.note == NoteInput::Optional || inputs.note == NoteInput::Required)
                QVERIFY2(*inputs.notePrompt, what + ": a note without a prompt");
            if (inputs.typeTargetName) {
                QVERIFY2(*inputs.typeNameWhy, what + ": a typed confirmation without a why");
                QVERIFY2(targetWords(row.target).setName, what + ": a typed confirmation of a target without a name");
            }
        }
        std::set<int> rows;
        for (const ActionWords& row : allActionWords()) QVERIFY2(rows.insert(row.type).second, "a type twice");
        QCOMPARE(rows, declared);
        std::set<ActionTargetKind> kinds;
        for (const ActionTargetWords& target : allTargetWords()) QVERIFY(kinds.insert(target.kind).second);
    }

    void anUnknownTypeReadsAsUnknown() {
        const auto unknown = v1::ActionType(99);
        QCOMPARE(actionWords(unknown).type, v1::ACTION_TYPE_UNSPECIFIED);
        QCOMPARE(actionHeading(request(unknown)), QStringLiteral("Unknown action"));
        QCOMPARE(actionConfirmText(request(unknown)), QStringLiteral("Execute"));
        QCOMPARE(actionTargetPhrase(request(unknown)), QStringLiteral("the target"));
        QCOMPARE(actionPermission(unknown), QStringLiteral("act"));
        QVERIFY(!roleMayRun(v1::ROLE_ADMIN, unknown));
        QVERIFY(!roleMayRun(v1::ROLE_ADMIN, v1::ACTION_TYPE_UNSPECIFIED));
    }

    void targetsAreRequestFieldsAndReadBackWhatTheyWrite() {
        const auto* fields = v1::ActionRequest::descriptor();
        for (const ActionTargetWords& target : allTargetWords()) {
            if (!*target.field) {
                QVERIFY(!target.setName);
                continue;
            }
            const auto* field = fields->FindFieldByName(target.field);
            QVERIFY2(field, target.field);
            if (!target.setName) continue;
            QCOMPARE(field->type(), google::protobuf::FieldDescriptor::TYPE_STRING);
            v1::ActionRequest r;
            target.setName(&r, "x-7");
            QCOMPARE(r.GetReflection()->GetString(r, field), std::string("x-7"));
            QCOMPARE(target.name(r), QStringLiteral("x-7"));
        }
    }

    // The console offers what fleetd allows and names the field fleetd reads.
    void rolesAndTargetFieldsAgreeWithFleetd() {
        for (const ActionWords& row : allActionWords()) {
            const control::ActionTraits* fleetd = control::actionTraits(row.type);
            if (row.type == v1::ACTION_TYPE_UNSPECIFIED) {
                QVERIFY(!fleetd);
                continue;
            }
            QVERIFY2(fleetd, row.name);
            QCOMPARE(row.minimumRole, fleetd->minimumRole);
            for (v1::Role role : {v1::ROLE_UNSPECIFIED, v1::ROLE_VIEWER, v1::ROLE_OPERATOR, v1::ROLE_ADMIN})
                QCOMPARE(roleMayRun(role, row.type), control::roleAllows(role, row.type));
            const std::string_view field = targetWords(row.target).field;
            QVERIFY2(field.empty() ? fleetd->targetField.empty() : fleetd->targetField.starts_with(field), row.name);
            QCOMPARE(row.inputs.note == NoteInput::Required || row.inputs.note == NoteInput::Shown,
                     fleetd->noteIsContent);
            QCOMPARE(recordedActionName(fleetd->name), QString::fromUtf8(row.name));
        }
    }

    void sentencesReadAsTheConsoleShowsThem() {
        const v1::ActionRequest drain = named(v1::ACTION_TYPE_DRAIN_NODE, "r01-n03");
        QCOMPARE(actionHeading(drain), QStringLiteral("Drain node r01-n03"));
        QCOMPARE(actionConfirmText(drain), QStringLiteral("Drain r01-n03"));
        QCOMPARE(actionSentence(drain), QStringLiteral("drain node r01-n03"));
        QCOMPARE(actionTargetPhrase(drain), QStringLiteral("node r01-n03"));
        QCOMPARE(actionName(v1::ACTION_TYPE_DRAIN_NODE), QStringLiteral("drain node"));
        QCOMPARE(actionPastTense(v1::ACTION_TYPE_DRAIN_NODE), QStringLiteral("drained"));

        v1::ActionRequest ack = request(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT);
        ack.set_event_id(1234);
        QCOMPARE(actionHeading(ack), QStringLiteral("Acknowledge event 1234"));
        QCOMPARE(actionConfirmText(ack), QStringLiteral("Acknowledge event 1234"));
        QCOMPARE(actionTargetPhrase(ack), QStringLiteral("event 1234"));
        QVERIFY(!setActionTargetName(&ack, QStringLiteral("1234")));

        v1::ActionRequest mitigate = request(v1::ACTION_TYPE_MITIGATE_INCIDENT);
        mitigate.set_incident_id(7);
        QCOMPARE(actionHeading(mitigate), QStringLiteral("Mark incident mitigated 7"));
        QCOMPARE(actionConfirmText(mitigate), QStringLiteral("Mark mitigated incident 7"));
        QCOMPARE(actionSentence(mitigate), QStringLiteral("mark incident mitigated 7"));

        const v1::ActionRequest breaker = request(v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER);
        QCOMPARE(actionHeading(breaker), QStringLiteral("Reset automation breaker"));
        QCOMPARE(actionConfirmText(breaker), QStringLiteral("Reset automation breaker"));
        QCOMPARE(actionTargetPhrase(breaker), QStringLiteral("the automation circuit breaker"));

        const v1::ActionRequest post = request(v1::ACTION_TYPE_POST_HANDOFF);
        QCOMPARE(actionHeading(post), QStringLiteral("Post shift handoff"));
        QCOMPARE(actionConfirmText(post), QStringLiteral("Post to fleetd"));
        QCOMPARE(actionTargetPhrase(post), QStringLiteral("the shift handoff"));

        v1::ActionRequest schedule = request(v1::ACTION_TYPE_SCHEDULE_MAINTENANCE);
        schedule.mutable_maintenance()->set_scope_name("r07");
        QCOMPARE(actionTargetPhrase(schedule), QStringLiteral("maintenance of r07"));
        QCOMPARE(actionTargetPhrase(named(v1::ACTION_TYPE_CANCEL_MAINTENANCE, "mw-3")),
                 QStringLiteral("maintenance window mw-3"));
        QCOMPARE(actionConfirmText(named(v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF, "ho-2a")),
                 QStringLiteral("Acknowledge ho-2a"));
        QCOMPARE(actionHeading(named(v1::ACTION_TYPE_SET_LIFECYCLE, "r01-n03")),
                 QStringLiteral("Set lifecycle of r01-n03"));
        QCOMPARE(actionTargetPhrase(named(v1::ACTION_TYPE_RESTART_JOB, "llm-405b")), QStringLiteral("job llm-405b"));

        QCOMPARE(recordedActionName("RESET_CIRCUIT_BREAKER"), QStringLiteral("reset automation breaker"));
        QCOMPARE(recordedActionName("APPROVE"), QStringLiteral("approve"));        // an audit record's, no action type
        QCOMPARE(recordedActionName("SPLIT_RACK"), QStringLiteral("split rack"));  // a newer fleetd's
        QVERIFY(!actionWordsNamed("UNSPECIFIED"));
    }

    // ControlErrorText builds its refusals from the same rows.
    void refusalsNameTheActionAndItsTarget() {
        const v1::ActionRequest isolate = named(v1::ACTION_TYPE_ISOLATE_RACK, "r07");
        ControlFailure failure;
        failure.target = "h:1";
        failure.rpcName = "ExecuteAction";
        failure.callerRole = v1::ROLE_VIEWER;
        failure.action = &isolate;
        failure.code = grpc::StatusCode::PERMISSION_DENIED;
        QCOMPARE(describeControlFailure(failure), QStringLiteral("Your role (viewer) cannot isolate racks."));
        failure.code = grpc::StatusCode::ABORTED;
        failure.serverMessage = QStringLiteral("r07 changed");
        QCOMPARE(describeControlFailure(failure),
                 QStringLiteral("Refused: rack r07 changed since the preview (r07 changed). Preview again."));
        v1::ActionRequest ack = request(v1::ACTION_TYPE_ACKNOWLEDGE_EVENT);
        ack.set_event_id(12);
        failure.action = &ack;
        QCOMPARE(describeControlFailure(failure),
                 QStringLiteral("Refused: event 12 changed since the preview (r07 changed). Preview again."));
        failure.code = grpc::StatusCode::PERMISSION_DENIED;
        const v1::ActionRequest breaker = request(v1::ACTION_TYPE_RESET_CIRCUIT_BREAKER);
        failure.action = &breaker;
        failure.callerRole = v1::ROLE_OPERATOR;
        QCOMPARE(describeControlFailure(failure),
                 QStringLiteral("Your role (operator) cannot reset the automation circuit breaker."));
    }
};

QTEST_APPLESS_MAIN(TestActionWords)
#include "tst_actionwords.moc"
