// ActionCatalog against control.proto: every ActionType fleetd's proto declares has exactly one
// row, named as the proto names it, whose target field is a real field of ActionRequest; and the
// checks that read the row (role, target fields, who executes) answer as the rows say.
#include "ActionCatalog.h"
#include "BlastRadius.h"
#include "ControlTestFleet.h"
#include "IncidentActions.h"
#include "LinkLadderActions.h"

#include <google/protobuf/descriptor.h>

#include <QTest>

#include <set>
#include <string>

using namespace watchfloor::server::control;
namespace v1 = watchfloor::v1;

class TestCatalog : public QObject {
    Q_OBJECT
private slots:
    void everyProtoActionHasOneRow() {
        const auto* types = v1::ActionType_descriptor();
        std::set<int> declared;
        for (int i = 0; i < types->value_count(); ++i) {
            const auto* value = types->value(i);
            if (value->number() == v1::ACTION_TYPE_UNSPECIFIED) continue;
            declared.insert(value->number());
            const ActionTraits* row = actionTraits(static_cast<v1::ActionType>(value->number()));
            QVERIFY2(row, qPrintable(QString::fromStdString(value->name()) + " has no row in ActionCatalog"));
            QCOMPARE("ACTION_TYPE_" + std::string(row->name), value->name());
        }
        std::set<int> rows;
        for (const ActionTraits& row : allActionTraits()) QVERIFY2(rows.insert(row.type).second, "a type twice");
        QCOMPARE(rows, declared);
        QVERIFY(!actionTraits(v1::ACTION_TYPE_UNSPECIFIED));
        QVERIFY(!actionTraits(static_cast<v1::ActionType>(9999)));
        QCOMPARE(actionName(static_cast<v1::ActionType>(9999)), std::string("UNKNOWN"));
    }

    void targetFieldsAreRequestFields() {
        const auto* request = v1::ActionRequest::descriptor();
        for (const ActionTraits& row : allActionTraits()) {
            if (row.target == ActionTarget::Nothing) {
                QVERIFY(row.targetField.empty());
                continue;
            }
            std::string fields(row.targetField);
            for (std::size_t at = 0; at != std::string::npos;) {
                const std::size_t next = fields.find(" and ", at);
                const std::string field = fields.substr(at, next == std::string::npos ? next : next - at);
                QVERIFY2(request->FindFieldByName(field),
                         qPrintable(QString::fromStdString(std::string(row.name) + ": no field " + field)));
                at = next == std::string::npos ? next : next + 5;
            }
        }
    }

    void rolesFollowTheRows() {
        for (const ActionTraits& row : allActionTraits()) {
            QVERIFY(!roleAllows(v1::ROLE_UNSPECIFIED, row.type));
            QVERIFY(!roleAllows(v1::ROLE_VIEWER, row.type));
            QVERIFY(!roleAllows(v1::Role(9), row.type));  // a role from a newer contract covers nothing
            QCOMPARE(roleAllows(v1::ROLE_OPERATOR, row.type), row.minimumRole != v1::ROLE_ADMIN);
            QVERIFY(roleAllows(v1::ROLE_ADMIN, row.type));
        }
    }

    void incidentBookTakesItsRowsOnly() {
        for (const ActionTraits& row : allActionTraits())
            QCOMPARE(IncidentActions::handles(row.type), row.handler == ActionHandler::IncidentBook);
    }

    void linkLadderTakesItsRowsOnly() {
        for (const ActionTraits& row : allActionTraits())
            QCOMPARE(LinkLadderActions::handles(row.type), row.handler == ActionHandler::LinkLadder);
    }

    // Every fleet action names its own field when it is missing, and is described by its target.
    void fleetActionsNameTheirTarget() {
        const control_test::TestFleet fleet(1);
        watchfloor::server::LinkLadderBook book(0, {});
        control_test::RecordingActuator actuator("");
        LinkLadderActions links(book, fleet, actuator, {});
        for (const ActionTraits& row : allActionTraits()) {
            if (row.handler == ActionHandler::IncidentBook || row.target == ActionTarget::Nothing) continue;
            v1::ActionRequest request;
            request.set_type(row.type);
            if (row.type == v1::ACTION_TYPE_SET_LIFECYCLE) request.set_lifecycle(v1::TRAY_LIFECYCLE_TRIAGE);
            const PreviewResult result = row.handler == ActionHandler::LinkLadder
                                             ? links.preview(request, control_test::kAlice, 0)
                                             : computeBlastRadius(fleet, request, {});
            QCOMPARE(result.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
            QVERIFY2(result.status.error_message().find(std::string(row.targetField)) != std::string::npos,
                     result.status.error_message().c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestCatalog)
#include "tst_control_catalog.moc"
