#pragma once
// Client side of the end-to-end control tests against a real fleetd (testbeds/FleetdProcess):
// tokens for four principals, ControlService calls with a bearer token, action builders, the
// audit file as JSON records, and a Subscribe watcher for node states and rack telemetry.

#include "FleetdProcess.h"
#include "SanitizerBuild.h"
#include "watchfloor/v1/control.grpc.pb.h"
#include "watchfloor/v1/fleet.grpc.pb.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QTemporaryDir>

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace fleetd_control_test {

namespace v1 = watchfloor::v1;
using namespace std::chrono_literals;

inline constexpr const char* kViewer = "viewer-token-000000001";  // principal val
inline constexpr const char* kAlice = "operator-token-00000002";  // operator
inline constexpr const char* kBob = "operator-token-00000003";    // operator
inline constexpr const char* kCarol = "admin-token-00000000004";  // admin

// Writes the tokens file (mode 0600, as fleetd insists) and returns its path.
inline QString writeTokens(const QTemporaryDir& dir) {
    const QString path = dir.filePath(QStringLiteral("tokens"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(QByteArray("token ") + kViewer + " principal=val role=viewer\n" + "token " + kAlice +
               " principal=alice role=operator\n" + "token " + kBob + " principal=bob role=operator\n" + "token " +
               kCarol + " principal=carol role=admin\n");
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return path;
}

inline std::shared_ptr<grpc::Channel> newChannel(const std::string& target,
                                                 std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr,
                                                 grpc::ChannelArguments args = {}) {
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection of its own
    args.SetMaxReceiveMessageSize(512 << 20);
    return grpc::CreateCustomChannel(target, credentials ? credentials : grpc::InsecureChannelCredentials(), args);
}

// ControlService calls as one console: the token is chosen per call (nullptr = none).
class ControlConnection {
public:
    explicit ControlConnection(std::shared_ptr<grpc::Channel> channel)
        : channel_(std::move(channel)), stub_(v1::ControlService::NewStub(channel_)) {}
    explicit ControlConnection(const std::string& target) : ControlConnection(newChannel(target)) {}

    static std::unique_ptr<grpc::ClientContext> context(const char* token, std::chrono::milliseconds deadline = 15s) {
        auto context = std::make_unique<grpc::ClientContext>();
        if (token) context->AddMetadata("authorization", std::string("Bearer ") + token);
        context->set_deadline(std::chrono::system_clock::now() + deadline);
        return context;
    }

    grpc::Status whoAmI(const char* token, v1::WhoAmIResponse* out) {
        return stub_->WhoAmI(context(token).get(), {}, out);
    }
    grpc::Status preview(const char* token, const v1::ActionRequest& action, v1::ActionPreview* out) {
        v1::PreviewActionRequest request;
        *request.mutable_action() = action;
        return stub_->PreviewAction(context(token).get(), request, out);
    }
    grpc::Status execute(const char* token, const v1::ActionRequest& action, v1::Operation* out) {
        v1::ExecuteActionRequest request;
        *request.mutable_action() = action;
        return stub_->ExecuteAction(context(token).get(), request, out);
    }
    grpc::Status approve(const char* token, const std::string& operationId, const std::string& reason,
                         v1::Operation* out) {
        v1::ApproveOperationRequest request;
        request.set_operation_id(operationId);
        request.set_reason(reason);
        return stub_->ApproveOperation(context(token).get(), request, out);
    }
    grpc::Status get(const char* token, const std::string& operationId, const std::string& requestId,
                     v1::Operation* out) {
        v1::GetOperationRequest request;
        request.set_operation_id(operationId);
        request.set_request_id(requestId);
        return stub_->GetOperation(context(token).get(), request, out);
    }
    grpc::Status list(const char* token, v1::ListOperationsResponse* out, std::uint32_t pageSize = 1000) {
        v1::ListOperationsRequest request;
        request.set_page_size(pageSize);
        return stub_->ListOperations(context(token).get(), request, out);
    }
    grpc::Status audit(const char* token, std::uint64_t beforeSeq, std::uint32_t pageSize,
                       v1::ListAuditEntriesResponse* out) {
        v1::ListAuditEntriesRequest request;
        request.set_before_seq(beforeSeq);
        request.set_page_size(pageSize);
        return stub_->ListAuditEntries(context(token).get(), request, out);
    }

    // Preview, then execute with the previewed state version, as a console does. On a refusal the
    // operation is empty and `why` says what refused it.
    v1::Operation previewThenExecute(const char* token, v1::ActionRequest request,
                                     v1::ActionPreview* previewed = nullptr, std::string* why = nullptr) {
        v1::ActionPreview preview;
        v1::Operation op;
        std::string refusal;
        if (auto status = this->preview(token, request, &preview); !status.ok())
            refusal = "preview: " + status.error_message();
        else if (!preview.allowed())
            refusal = "preview refused: " + preview.refusal();
        else if (request.set_expected_state_version(preview.state_version());
                 !(status = execute(token, request, &op)).ok())
            refusal = "execute: " + status.error_message();
        if (previewed) *previewed = preview;
        if (why) *why = refusal;
        return op;
    }

    // Polls GetOperation until `done` holds (or the deadline); the last state seen.
    std::optional<v1::Operation> waitFor(const char* token, const std::string& operationId,
                                         const std::function<bool(const v1::Operation&)>& done,
                                         std::chrono::milliseconds timeout = 20s) {
        const auto until = std::chrono::steady_clock::now() + timeout;
        v1::Operation op;
        while (std::chrono::steady_clock::now() < until) {
            if (get(token, operationId, {}, &op).ok() && done(op)) return op;
            std::this_thread::sleep_for(50ms);
        }
        return std::nullopt;
    }

    // previewThenExecute, then waitFor the operation to finish (as `token`): the operation as it
    // ended, or as accepted when it did not end in time; empty when refused (`why` says why).
    v1::Operation runToEnd(const char* token, const v1::ActionRequest& request, v1::ActionPreview* previewed,
                           std::string* why, std::chrono::milliseconds timeout);

    v1::ControlService::Stub& stub() { return *stub_; }

private:
    std::shared_ptr<grpc::Channel> channel_;
    std::unique_ptr<v1::ControlService::Stub> stub_;
};

inline bool isFinished(const v1::Operation& op) {
    return op.state() == v1::OPERATION_STATE_SUCCEEDED || op.state() == v1::OPERATION_STATE_FAILED ||
           op.state() == v1::OPERATION_STATE_CANCELLED;
}

inline v1::Operation ControlConnection::runToEnd(const char* token, const v1::ActionRequest& request,
                                                 v1::ActionPreview* previewed, std::string* why,
                                                 std::chrono::milliseconds timeout) {
    const v1::Operation op = previewThenExecute(token, request, previewed, why);
    if (op.id().empty()) return op;
    const auto done = waitFor(token, op.id(), isFinished, timeout);
    return done ? *done : op;
}

inline v1::ActionRequest action(v1::ActionType type, const std::string& requestId, const std::string& reason) {
    v1::ActionRequest request;
    request.set_request_id(requestId);
    request.set_type(type);
    request.set_reason(reason);
    return request;
}
inline v1::ActionRequest drainNode(const std::string& node, const std::string& requestId,
                                   const std::string& reason = "fan noisy") {
    auto request = action(v1::ACTION_TYPE_DRAIN_NODE, requestId, reason);
    request.set_node_name(node);
    return request;
}
inline v1::ActionRequest resumeNode(const std::string& node, const std::string& requestId) {
    auto request = action(v1::ACTION_TYPE_RESUME_NODE, requestId, "fan replaced");
    request.set_node_name(node);
    return request;
}
inline v1::ActionRequest isolateRack(const std::string& rack, const std::string& requestId) {
    auto request = action(v1::ACTION_TYPE_ISOLATE_RACK, requestId, "coolant smell at the manifold");
    request.set_rack_name(rack);
    request.set_confirm_rack_name(rack);
    return request;
}
inline v1::ActionRequest restoreRack(const std::string& rack, const std::string& requestId) {
    auto request = action(v1::ACTION_TYPE_RESTORE_RACK, requestId, "manifold dry again");
    request.set_rack_name(rack);
    return request;
}

// Every record of the audit log (one JSON object per line).
inline QList<QJsonObject> auditRecords(const QString& path) {
    QList<QJsonObject> records;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return records;
    for (const QByteArray& line : file.readAll().split('\n'))
        if (!line.isEmpty()) records.append(QJsonDocument::fromJson(line).object());
    return records;
}

inline int countAudit(const QString& path, const std::function<bool(const QJsonObject&)>& matches) {
    int n = 0;
    for (const QJsonObject& record : auditRecords(path)) n += matches(record) ? 1 : 0;
    return n;
}

inline std::function<bool(const QJsonObject&)> auditOf(const std::string& requestId, const char* decision) {
    return [requestId, decision](const QJsonObject& record) {
        return record.value("request_id").toString().toStdString() == requestId &&
               record.value("decision").toString() == QLatin1String(decision);
    };
}

// A Subscribe stream read until a condition on what it carries holds.
class FleetWatch {
public:
    explicit FleetWatch(const std::string& target, std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr,
                        grpc::ChannelArguments args = {})
        : channel_(newChannel(target, std::move(credentials), std::move(args))),
          stub_(v1::TelemetryService::NewStub(channel_)) {
        context_.set_deadline(std::chrono::system_clock::now() + 120s * watchfloor::testing::kSanitizerSlowdown);
        reader_ = stub_->Subscribe(&context_, v1::SubscribeRequest{});
    }
    ~FleetWatch() {
        context_.TryCancel();
        v1::SubscribeResponse drain;
        while (reader_->Read(&drain)) {}
        reader_->Finish();
    }
    // Reads the snapshot; false when the stream failed.
    bool ready() {
        v1::SubscribeResponse response;
        if (!reader_->Read(&response) || !response.has_snapshot()) return false;
        topology_ = response.snapshot().topology();
        for (const auto& state : response.snapshot().states()) states_[state.entity_index()] = state;
        for (const auto& job : response.snapshot().jobs()) jobs_[job.name()] = job;
        if (response.snapshot().has_automation()) automation_ = response.snapshot().automation();
        for (const auto& handoff : response.snapshot().handoffs()) handoffs_[handoff.id()] = handoff;
        for (const auto& repairCase : response.snapshot().repair_cases()) repairCases_[repairCase.id()] = repairCase;
        for (const auto& link : response.snapshot().link_health()) links_[link.name()] = link;
        if (response.snapshot().has_fleet()) fleet_ = response.snapshot().fleet();
        for (const auto& event : response.snapshot().recent_events()) newestEvent_ = std::max(newestEvent_, event.id());
        return true;
    }
    // Reads deltas until fleetd has published an event with id >= `id` (the snapshot's included):
    // a test that acknowledges event N must not race the twin's first events (slow under ASan).
    bool waitForEvent(std::uint64_t id, std::chrono::milliseconds timeout) {
        if (newestEvent_ >= id) return true;
        return readUntil(timeout, [&](const v1::Delta& delta) {
            for (const auto& event : delta.events()) newestEvent_ = std::max(newestEvent_, event.id());
            return newestEvent_ >= id;
        });
    }
    // Reads deltas until fleetd's AutomationStatus (the snapshot's included) satisfies `wanted`.
    bool waitForAutomation(const std::function<bool(const v1::AutomationStatus&)>& wanted,
                           std::chrono::milliseconds timeout, v1::AutomationStatus* seen = nullptr) {
        if (automation_ && wanted(*automation_)) {
            if (seen) *seen = *automation_;
            return true;
        }
        return readUntil(timeout, [&](const v1::Delta& delta) {
            if (!delta.has_automation()) return false;
            automation_ = delta.automation();
            if (seen) *seen = delta.automation();
            return wanted(delta.automation());
        });
    }
    // Reads deltas until a shift handoff (the snapshot's included) satisfies `wanted`.
    bool waitForHandoff(const std::function<bool(const v1::ShiftHandoff&)>& wanted, std::chrono::milliseconds timeout,
                        v1::ShiftHandoff* seen = nullptr) {
        auto found = [&] {
            for (const auto& [id, handoff] : handoffs_)
                if (wanted(handoff)) {
                    if (seen) *seen = handoff;
                    return true;
                }
            return false;
        };
        if (found()) return true;
        return readUntil(timeout, [&](const v1::Delta& delta) {
            for (const auto& handoff : delta.handoffs()) handoffs_[handoff.id()] = handoff;
            return !delta.handoffs().empty() && found();
        });
    }
    const std::map<std::string, v1::ShiftHandoff>& handoffs() const { return handoffs_; }  // as read so far, by id
    // Reads deltas until a repair case (the snapshot's and every delta's read so far included)
    // satisfies `wanted`.
    bool waitForRepairCase(const std::function<bool(const v1::RepairCase&)>& wanted, std::chrono::milliseconds timeout,
                           v1::RepairCase* seen = nullptr) {
        auto found = [&] {
            for (const auto& [id, repairCase] : repairCases_)
                if (wanted(repairCase)) {
                    if (seen) *seen = repairCase;
                    return true;
                }
            return false;
        };
        return found() ||
               readUntil(timeout, [&](const v1::Delta& delta) { return !delta.repair_cases().empty() && found(); });
    }
    const std::map<std::uint64_t, v1::RepairCase>& repairCases() const { return repairCases_; }
    // Reads deltas until the listed LinkHealth of `name` (the snapshot's and every delta's read so
    // far included) satisfies `wanted`; a retired record is no longer listed.
    bool waitForLink(const std::string& name, const std::function<bool(const v1::LinkHealth&)>& wanted,
                     std::chrono::milliseconds timeout, v1::LinkHealth* seen = nullptr) {
        auto found = [&] {
            const auto link = links_.find(name);
            if (link == links_.end() || link->second.retired() || !wanted(link->second)) return false;
            if (seen) *seen = link->second;
            return true;
        };
        return found() ||
               readUntil(timeout, [&](const v1::Delta& delta) { return !delta.link_health().empty() && found(); });
    }
    // The newest fleet numbers read (snapshot or delta).
    const std::optional<v1::FleetGoodput>& fleet() const { return fleet_; }
    const v1::Topology& topology() const { return topology_; }
    std::optional<std::uint32_t> nodeIndex(const std::string& name) const {
        for (const auto& node : topology_.nodes())
            if (node.name() == name) return node.index();
        return std::nullopt;
    }
    std::optional<std::uint32_t> loopOfRack(const std::string& rack) const {
        for (const auto& r : topology_.racks())
            if (r.name() == rack)
                for (const auto& loop : topology_.cooling_loops())
                    if (loop.rack_index() == r.index()) return loop.index();
        return std::nullopt;
    }
    // Reads deltas until `state` holds for some EntityState of `entity` (the snapshot's included).
    bool waitForState(std::uint32_t entity, const std::function<bool(const v1::EntityState&)>& wanted,
                      std::chrono::milliseconds timeout, v1::EntityState* seen = nullptr) {
        if (auto known = states_.find(entity); known != states_.end() && wanted(known->second)) {
            if (seen) *seen = known->second;
            return true;
        }
        return readUntil(timeout, [&](const v1::Delta& delta) {
            for (const auto& state : delta.states()) {
                states_[state.entity_index()] = state;
                if (state.entity_index() == entity && wanted(state)) {
                    if (seen) *seen = state;
                    return true;
                }
            }
            return false;
        });
    }
    // Reads deltas until the job (by name) is in `state`.
    bool waitForJob(const std::string& name, v1::JobState state, std::chrono::milliseconds timeout) {
        return waitForJobWhere(
            name, [state](const v1::Job& job) { return job.state() == state; }, timeout);
    }
    // Reads deltas until `wanted` holds for the job (by name; the snapshot's included).
    bool waitForJobWhere(const std::string& name, const std::function<bool(const v1::Job&)>& wanted,
                         std::chrono::milliseconds timeout, v1::Job* seen = nullptr) {
        if (auto known = jobs_.find(name); known != jobs_.end() && wanted(known->second)) {
            if (seen) *seen = known->second;
            return true;
        }
        return readUntil(timeout, [&](const v1::Delta& delta) {
            bool reached = false;
            for (const auto& job : delta.jobs()) {
                jobs_[job.name()] = job;
                if (job.name() == name && wanted(job)) {
                    reached = true;
                    if (seen) *seen = job;
                }
            }
            return reached;
        });
    }
    // Reads deltas until fleetd's fleet numbers satisfy `wanted`.
    bool waitForFleet(const std::function<bool(const v1::FleetGoodput&)>& wanted, std::chrono::milliseconds timeout,
                      v1::FleetGoodput* seen = nullptr) {
        return readUntil(timeout, [&](const v1::Delta& delta) {
            if (!delta.has_fleet() || !wanted(delta.fleet())) return false;
            if (seen) *seen = delta.fleet();
            return true;
        });
    }
    // Reads deltas until a sample of (entity, metric) satisfies `wanted`.
    bool waitForSample(std::uint32_t entity, v1::Metric metric, const std::function<bool(float)>& wanted,
                       std::chrono::milliseconds timeout, float* seen = nullptr) {
        return readUntil(timeout, [&](const v1::Delta& delta) {
            for (const auto& block : delta.samples()) {
                if (block.metric() != metric) continue;
                for (int i = 0; i < block.entity_indexes_size(); ++i)
                    if (block.entity_indexes(i) == entity && wanted(block.values(i))) {
                        if (seen) *seen = block.values(i);
                        return true;
                    }
            }
            return false;
        });
    }

private:
    // `timeout` is in the twin's pace at full speed; a TSan-built fleetd runs its ticks that much slower.
    bool readUntil(std::chrono::milliseconds timeout, const std::function<bool(const v1::Delta&)>& done) {
        const auto until = std::chrono::steady_clock::now() + timeout * watchfloor::testing::kSanitizerSlowdown;
        v1::SubscribeResponse response;
        while (std::chrono::steady_clock::now() < until && reader_->Read(&response)) {
            if (!response.has_delta()) continue;
            // Kept whatever the wait is for, so a later wait finds what an earlier one read past.
            for (const auto& repairCase : response.delta().repair_cases()) repairCases_[repairCase.id()] = repairCase;
            for (const auto& link : response.delta().link_health()) links_[link.name()] = link;
            for (const auto& state : response.delta().states()) states_[state.entity_index()] = state;
            if (response.delta().has_fleet()) fleet_ = response.delta().fleet();
            if (done(response.delta())) return true;
        }
        return false;
    }

    std::shared_ptr<grpc::Channel> channel_;
    std::unique_ptr<v1::TelemetryService::Stub> stub_;
    grpc::ClientContext context_;
    std::unique_ptr<grpc::ClientReader<v1::SubscribeResponse>> reader_;
    v1::Topology topology_;
    std::map<std::uint32_t, v1::EntityState> states_;
    std::map<std::string, v1::ShiftHandoff> handoffs_;
    std::map<std::string, v1::Job> jobs_;
    std::uint64_t newestEvent_ = 0;
    std::optional<v1::AutomationStatus> automation_;
    std::map<std::uint64_t, v1::RepairCase> repairCases_;
    std::map<std::string, v1::LinkHealth> links_;
    std::optional<v1::FleetGoodput> fleet_;
};

}  // namespace fleetd_control_test
