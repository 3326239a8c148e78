// Shift handoff notes through the real ControlService of a real fleetd (issue 12, item 7): alice
// posts a note for the next shift (audited, idempotent per principal, streamed in Snapshot and
// Delta), the bad inputs are refused with INVALID_ARGUMENT and audited without posting anything
// (empty, blank, oversize, control characters, line breaks, bidi controls, a missing or inverted
// or too long period, a stray target field, an owner, an oversize id), a viewer may not post or
// acknowledge, the author may not acknowledge her own, an unknown id is NOT_FOUND, bob
// acknowledges (a retry returns his operation), a second acknowledgement is FAILED_PRECONDITION
// naming bob; after a restart on the same audit log both handoffs and the acknowledgement are back.

#include "FleetdControlFixture.h"

#include <QTest>

using namespace fleetd_control_test;
using watchfloor::testing::FleetdProcess;

namespace {

constexpr std::int64_t kHourMs = 3'600'000;

v1::ActionRequest postHandoff(const std::string& requestId, const std::string& note, std::int64_t startMs,
                              std::int64_t endMs) {
    auto request = action(v1::ACTION_TYPE_POST_HANDOFF, requestId, "end of night shift");
    request.set_note(note);
    request.set_handoff_period_start_unix_ms(startMs);
    request.set_handoff_period_end_unix_ms(endMs);
    return request;
}

v1::ActionRequest acknowledgeHandoff(const std::string& requestId, const std::string& id,
                                     const std::string& note = {}) {
    auto request = action(v1::ACTION_TYPE_ACKNOWLEDGE_HANDOFF, requestId, "taking over the day shift");
    request.set_handoff_id(id);
    request.set_note(note);
    return request;
}

std::int64_t nowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

class FleetdHandoffTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString auditPath_;
    FleetdProcess fleetd_;
    std::unique_ptr<ControlConnection> control_;
    std::int64_t end_ = 0;
    std::string aliceHandoff_;
    std::string bobHandoff_;
    std::string aliceOperation_;
    std::int64_t alicePosted_ = 0;

    // The handoffs a new subscriber holds, by id: a snapshot fleetd may have built up to 3 s ago
    // for another stream (SubscriptionPump's snapshotReuse), then the deltas since.
    std::map<std::string, v1::ShiftHandoff> snapshotHandoffs() {
        FleetWatch watch(fleetd_.address());
        if (!watch.ready()) return {};
        watch.waitForHandoff([](const v1::ShiftHandoff&) { return false; }, 4s);  // reads deltas for 4 s
        return watch.handoffs();
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        auditPath_ = dir_.filePath("audit.jsonl");
        QVERIFY2(
            fleetd_.start({"--seed", "7", "--speed", "30", "--tokens", writeTokens(dir_), "--audit-log", auditPath_}),
            qPrintable(fleetd_.errorString()));
        control_ = std::make_unique<ControlConnection>(fleetd_.address());
        end_ = nowMs();
    }

    void postIsPreviewedAuditedStreamedAndIdempotent() {
        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        const std::string note = "r03 leak: facilities on site until 09:00, keep r03 isolated";
        const auto request = postHandoff("post-1", note, end_ - 8 * kHourMs, end_);

        v1::ActionPreview preview;
        QVERIFY(control_->preview(kAlice, request, &preview).ok());
        QVERIFY2(preview.allowed(), preview.refusal().c_str());
        QVERIFY2(contains(preview.effect(), "post a handoff note"), preview.effect().c_str());
        QCOMPARE(preview.target_name(), std::string("shift handoff"));

        v1::Operation op;
        const auto status = control_->execute(kAlice, request, &op);
        QVERIFY2(status.ok(), status.error_message().c_str());
        const auto done = control_->waitFor(kAlice, op.id(), isFinished);
        QVERIFY(done);
        QCOMPARE(done->state(), v1::OPERATION_STATE_SUCCEEDED);
        aliceOperation_ = op.id();
        aliceHandoff_ = "ho-" + op.id().substr(3);

        v1::ShiftHandoff seen;
        QVERIFY(watch.waitForHandoff([&](const v1::ShiftHandoff& h) { return h.id() == aliceHandoff_; }, 10s, &seen));
        QCOMPARE(seen.author(), std::string("alice"));
        QCOMPARE(seen.note(), note);
        QCOMPARE(seen.period_start_unix_ms(), end_ - 8 * kHourMs);
        QCOMPARE(seen.period_end_unix_ms(), end_);
        QCOMPARE(seen.operation_id(), op.id());
        QVERIFY(seen.posted_unix_ms() >= end_);
        alicePosted_ = seen.posted_unix_ms();
        QVERIFY(seen.acknowledged_by().empty());
        QCOMPARE(countAudit(auditPath_, auditOf("post-1", "allow")), 1);

        // The same request id again: the first operation, nothing posted twice.
        v1::Operation retry;
        QVERIFY(control_->execute(kAlice, request, &retry).ok());
        QCOMPARE(retry.id(), op.id());
        QCOMPARE(countAudit(auditPath_, auditOf("post-1", "allow")), 1);

        // The same request id from bob is bob's own request: his own handoff.
        v1::Operation bobs;
        QVERIFY(control_->execute(kBob, postHandoff("post-1", "bob's note", end_ - kHourMs, end_), &bobs).ok());
        QVERIFY(bobs.id() != op.id());
        QVERIFY(control_->waitFor(kBob, bobs.id(), isFinished));
        bobHandoff_ = "ho-" + bobs.id().substr(3);
        QVERIFY(watch.waitForHandoff([&](const v1::ShiftHandoff& h) { return h.id() == bobHandoff_; }, 10s, &seen));
        QCOMPARE(seen.author(), std::string("bob"));
        QCOMPARE(snapshotHandoffs().size(), std::size_t(2));
    }

    void badPostsAreRefusedAuditedAndPostNothing() {
        struct Case {
            const char* name;
            v1::ActionRequest request;
            const char* message;
        };
        const std::int64_t start = end_ - kHourMs;
        std::vector<Case> cases = {
            {"empty", postHandoff("bad-empty", "", start, end_), "needs a note"},
            {"blank", postHandoff("bad-blank", "   ", start, end_), "needs a note"},
            {"oversize", postHandoff("bad-long", std::string(2049, 'x'), start, end_), "at most 2048"},
            {"escape", postHandoff("bad-esc", "all fine \x1b[31mnot", start, end_), "single line of plain text"},
            {"newline", postHandoff("bad-nl", "line one\nline two", start, end_), "single line of plain text"},
            {"nul", postHandoff("bad-nul", std::string("before\0after", 12), start, end_), "single line of plain text"},
            {"bidi",
             postHandoff("bad-bidi",
                         "r03 \xe2\x80\xae"
                         "detaerc",
                         start, end_),
             "single line of plain text"},
            {"no period", postHandoff("bad-noperiod", "note", 0, 0), "needs handoff_period"},
            {"inverted", postHandoff("bad-inverted", "note", end_, start), "not after its start"},
            {"too long", postHandoff("bad-week", "note", end_ - 8 * 24 * kHourMs, end_), "at most 168 h"},
        };
        auto stray = postHandoff("bad-stray", "note", start, end_);
        stray.set_node_name("r01-n01");
        cases.push_back({"stray target", stray, "takes only"});
        auto owned = postHandoff("bad-owner", "note", start, end_);
        owned.set_owner("bob");
        cases.push_back({"owner", owned, "takes no owner"});
        cases.push_back(
            {"oversize id", acknowledgeHandoff("bad-id", std::string(257, 'h')), "handoff_id is 257 bytes"});
        for (const Case& c : cases) {
            v1::Operation op;
            const auto status = control_->execute(kAlice, c.request, &op);
            QVERIFY2(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT, c.name);
            QVERIFY2(contains(status.error_message(), c.message),
                     (std::string(c.name) + ": " + status.error_message()).c_str());
            QVERIFY2(countAudit(auditPath_, auditOf(c.request.request_id(), "deny")) == 1, c.name);
            QVERIFY2(countAudit(auditPath_, auditOf(c.request.request_id(), "allow")) == 0, c.name);
        }
        QCOMPARE(snapshotHandoffs().size(), std::size_t(2));
    }

    void acknowledgementBelongsToTheNextShift() {
        v1::Operation op;
        // A viewer reads handoffs but may neither post nor acknowledge.
        QCOMPARE(control_->execute(kViewer, postHandoff("viewer-post", "note", end_ - kHourMs, end_), &op).error_code(),
                 grpc::StatusCode::PERMISSION_DENIED);
        QCOMPARE(control_->execute(kViewer, acknowledgeHandoff("viewer-ack", aliceHandoff_), &op).error_code(),
                 grpc::StatusCode::PERMISSION_DENIED);
        QCOMPARE(countAudit(auditPath_, auditOf("viewer-ack", "deny")), 1);

        // The author cannot stand in for the next shift.
        v1::ActionPreview preview;
        QVERIFY(control_->preview(kAlice, acknowledgeHandoff("self-ack", aliceHandoff_), &preview).ok());
        QVERIFY(!preview.allowed());
        QVERIFY2(contains(preview.refusal(), "acknowledged by the next shift"), preview.refusal().c_str());
        auto status = control_->execute(kAlice, acknowledgeHandoff("self-ack", aliceHandoff_), &op);
        QCOMPARE(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(contains(status.error_message(), "alice posted"), status.error_message().c_str());

        status = control_->execute(kBob, acknowledgeHandoff("ack-unknown", "ho-0000000000000000"), &op);
        QCOMPARE(status.error_code(), grpc::StatusCode::NOT_FOUND);
        QVERIFY2(contains(status.error_message(), "no handoff ho-0000000000000000"), status.error_message().c_str());

        FleetWatch watch(fleetd_.address());
        QVERIFY(watch.ready());
        QVERIFY(control_->preview(kBob, acknowledgeHandoff("ack-1", aliceHandoff_), &preview).ok());
        QVERIFY2(preview.allowed(), preview.refusal().c_str());
        QCOMPARE(preview.state_version(), std::uint64_t(1));
        auto request = acknowledgeHandoff("ack-1", aliceHandoff_, "r03 stays isolated, called facilities");
        request.set_expected_state_version(preview.state_version());
        status = control_->execute(kBob, request, &op);
        QVERIFY2(status.ok(), status.error_message().c_str());
        const auto done = control_->waitFor(kBob, op.id(), isFinished);
        QVERIFY(done);
        QCOMPARE(done->state(), v1::OPERATION_STATE_SUCCEEDED);
        v1::ShiftHandoff seen;
        QVERIFY(watch.waitForHandoff(
            [&](const v1::ShiftHandoff& h) { return h.id() == aliceHandoff_ && !h.acknowledged_by().empty(); }, 10s,
            &seen));
        QCOMPARE(seen.acknowledged_by(), std::string("bob"));
        QVERIFY(seen.acknowledged_unix_ms() >= seen.posted_unix_ms());
        QCOMPARE(seen.acknowledge_note(), std::string("r03 stays isolated, called facilities"));

        // A retry is bob's first operation, not a refusal.
        v1::Operation retry;
        QVERIFY(control_->execute(kBob, request, &retry).ok());
        QCOMPARE(retry.id(), op.id());
        QCOMPARE(countAudit(auditPath_, auditOf("ack-1", "allow")), 1);

        // Acknowledged once: carol's is refused, naming bob.
        status = control_->execute(kCarol, acknowledgeHandoff("ack-2", aliceHandoff_), &op);
        QCOMPARE(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY2(contains(status.error_message(), "already acknowledged by bob"), status.error_message().c_str());
        // A version seen before bob's acknowledgement is stale.
        auto stale = acknowledgeHandoff("ack-3", aliceHandoff_);
        stale.set_expected_state_version(1);
        QCOMPARE(control_->execute(kCarol, stale, &op).error_code(), grpc::StatusCode::ABORTED);
    }

    void restartRestoresHandoffsAndAcknowledgements() {
        QVERIFY2(fleetd_.restart(), qPrintable(fleetd_.errorString()));
        control_ = std::make_unique<ControlConnection>(fleetd_.address());
        QVERIFY(fleetd_.waitForLog(QRegularExpression("restored 2 shift handoff\\(s\\) and 1 acknowledgement"), 5000)
                    .hasMatch());
        auto byId = snapshotHandoffs();
        QCOMPARE(byId.size(), std::size_t(2));
        QCOMPARE(byId[aliceHandoff_].acknowledged_by(), std::string("bob"));
        QCOMPARE(byId[aliceHandoff_].acknowledge_note(), std::string("r03 stays isolated, called facilities"));
        QCOMPARE(byId[aliceHandoff_].operation_id(), aliceOperation_);
        QCOMPARE(byId[aliceHandoff_].posted_unix_ms(), alicePosted_);
        QCOMPARE(byId[aliceHandoff_].note(),
                 std::string("r03 leak: facilities on site until 09:00, keep r03 isolated"));
        QVERIFY(byId[bobHandoff_].acknowledged_by().empty());

        // Still refused twice over, and still open to the next shift.
        v1::Operation op;
        QCOMPARE(control_->execute(kCarol, acknowledgeHandoff("after-1", aliceHandoff_), &op).error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
        QCOMPARE(control_->execute(kBob, acknowledgeHandoff("after-2", bobHandoff_), &op).error_code(),
                 grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY(control_->execute(kAlice, acknowledgeHandoff("after-3", bobHandoff_), &op).ok());
        const auto done = control_->waitFor(kAlice, op.id(), isFinished);
        QVERIFY(done);
        QCOMPARE(done->state(), v1::OPERATION_STATE_SUCCEEDED);
        // The post's retry after the restart is still the first operation.
        v1::Operation retry;
        QVERIFY(control_
                    ->execute(kAlice,
                              postHandoff("post-1", "r03 leak: facilities on site until 09:00, keep r03 isolated",
                                          end_ - 8 * kHourMs, end_),
                              &retry)
                    .ok());
        QCOMPARE(retry.id(), aliceOperation_);
        QCOMPARE(snapshotHandoffs().size(), std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(FleetdHandoffTest)
#include "tst_fleetd_handoff.moc"
