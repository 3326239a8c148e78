#include "InProcessFleetd.h"

#include "ControlPlane.h"
#include "ControlTestFleet.h"
#include "DigitalTwin.h"
#include "EventAcknowledgementBook.h"
#include "FleetdServer.h"
#include "TwinControlAdapter.h"

#include <grpcpp/impl/codegen/client_unary_call.h>
#include <grpcpp/impl/codegen/sync_stream.h>

#include <sys/stat.h>

#include <filesystem>

namespace watchfloor::fuzz {

namespace server = watchfloor::server;

namespace {
constexpr double kSpeed = 50;
constexpr std::uintmax_t kMostAuditBytes = 64u << 20;
// fleetd's own plane->tick() period is 1 s of wall time; here time runs 50x.
constexpr std::chrono::milliseconds kControlTickPeriod{20};
// Far past anything a request should take (an action waits for one 20 ms tick); a call that
// reaches it is a handler that hung.
constexpr std::chrono::seconds kCallDeadline{20};
constexpr std::chrono::seconds kTwinActionTimeout{5};

grpc::ByteBuffer bytesOf(std::string_view text) {
    grpc::Slice slice(text.data(), text.size());
    return grpc::ByteBuffer(&slice, 1);
}

std::string textOf(const grpc::ByteBuffer& buffer) {
    grpc::Slice slice;
    FUZZ_CHECK(buffer.DumpToSingleSlice(&slice).ok(), "unreadable response buffer");
    return std::string(reinterpret_cast<const char*>(slice.begin()), slice.size());
}
}  // namespace

// LeakSanitizer off: libFuzzer's leak check after an input scans the whole heap, and in a process
// whose gRPC and tick threads allocate across inputs it costs ~100 ms each time and flags what is
// in flight, not lost. A smaller quarantine keeps the fleetd's steady RSS well under the 2.5 GB
// limit of the runs; use-after-free within it is still caught.
extern "C" const char* __asan_default_options() { return "detect_leaks=0:quarantine_size_mb=64"; }

InProcessFleetd& InProcessFleetd::instance() {
    // Never destroyed: libFuzzer may exit from any thread, and gRPC's threads must not meet a
    // half-destroyed server. Its scratch folder (audit log, tokens) is removed at exit all the same.
    static InProcessFleetd* fleetd = [] {
        auto* created = new InProcessFleetd();
        static const std::string folder = created->scratch_.path();
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(folder, ignored);
        });
        return created;
    }();
    return *fleetd;
}

InProcessFleetd::InProcessFleetd() { start(); }
InProcessFleetd::~InProcessFleetd() { stop(); }

void InProcessFleetd::start() {
    const std::string tokens = scratch_.write("tokens", control_test::kTestTokens);
    ::chmod(tokens.c_str(), 0600);
    const std::string audit = scratch_.file("audit.jsonl");
    std::filesystem::remove(audit);

    server::sim::SimConfig config;
    config.regions = 1;
    config.racks = 2;
    server::ConfigError configError;
    twin_ = server::sim::DigitalTwin::create(config, &configError);
    FUZZ_CHECK(twin_ != nullptr, configError.toString());

    acknowledgements_ = std::make_unique<server::fleetd::EventAcknowledgementBook>();
    auto* acknowledgements = acknowledgements_.get();
    twinControl_ = std::make_unique<server::sim::TwinControlAdapter>(
        *twin_, kTwinActionTimeout, [acknowledgements](std::uint64_t id) { return acknowledgements->facts(id); });

    server::control::ControlOptions options;
    options.tokensFile = tokens;
    options.auditLogFile = audit;
    options.isolateRackNeedsApproval = true;
    options.autoDrain = server::control::CircuitBreakerConfig{5, std::chrono::hours(1)};
    auto created = server::control::ControlPlane::create(
        options, {*twinControl_, twinControl_.get(), acknowledgements_.get(), [](const std::string&) {}});
    FUZZ_CHECK(created.plane != nullptr, created.error);
    plane_ = std::move(created.plane);

    server::service::FleetdOptions fleetd;
    fleetd.listenAddress = "127.0.0.1:0";
    fleetd.speed = kSpeed;
    fleetd.serverVersion = "fleetd (fuzz)";
    fleetd.credentials = plane_->credentials();
    fleetd.extraServices.push_back(&plane_->service());
    fleetd.eventTap = [acknowledgements](const watchfloor::v1::Event& event) {
        acknowledgements->noteJournaled(event.id());
    };
    fleetd.beforeShutdown = [plane = plane_.get()] { plane->service().stopStreams(); };
    std::string error;
    server_ = server::service::FleetdServer::start(*twin_, fleetd, &error);
    FUZZ_CHECK(server_ != nullptr, error);

    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(-1);
    channel_ = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(server_->port()),
                                         grpc::InsecureChannelCredentials(), arguments);
    lastTick_ = std::chrono::steady_clock::now();
}

void InProcessFleetd::stop() {
    channel_.reset();
    if (server_) server_->shutdown();
    server_.reset();
    plane_.reset();
    twinControl_.reset();
    acknowledgements_.reset();
    twin_.reset();
}

void InProcessFleetd::housekeeping() {
    const auto now = std::chrono::steady_clock::now();
    if (now - lastTick_ >= kControlTickPeriod) {
        plane_->tick();
        lastTick_ = now;
    }
    std::error_code ec;
    if (std::filesystem::file_size(scratch_.file("audit.jsonl"), ec) > kMostAuditBytes && !ec) {
        stop();
        start();
    }
}

InProcessFleetd::Answer InProcessFleetd::call(const FuzzCall& call) {
    housekeeping();
    const auto began = std::chrono::steady_clock::now();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    if (const char* token = callerToken(call.caller))
        context.AddMetadata("authorization", std::string("Bearer ") + token);
    // Generated stubs make these same calls, with the message types where we send bytes.
    const std::string path = "/" + call.method->service()->full_name() + "/" + call.method->name();
    const grpc::ByteBuffer request = bytesOf(call.request);
    Answer answer;
    if (!call.method->server_streaming()) {
        const grpc::internal::RpcMethod method(path.c_str(), grpc::internal::RpcMethod::NORMAL_RPC);
        grpc::ByteBuffer response;
        answer.status = grpc::internal::BlockingUnaryCall(channel_.get(), method, &context, request, &response);
        if (answer.status.ok()) answer.firstMessage = textOf(response), answer.gotMessage = true;
        answer.took = std::chrono::steady_clock::now() - began;
        return answer;
    }
    const grpc::internal::RpcMethod method(path.c_str(), grpc::internal::RpcMethod::SERVER_STREAMING);
    std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader(
        grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(channel_.get(), method, &context, request));
    reader->WaitForInitialMetadata();
    // Subscribe starts with a snapshot; WatchOperations says nothing until an operation changes.
    if (call.method->name() == "Subscribe") {
        grpc::ByteBuffer first;
        if (reader->Read(&first)) answer.firstMessage = textOf(first), answer.gotMessage = true;
    }
    context.TryCancel();
    answer.status = reader->Finish();
    answer.took = std::chrono::steady_clock::now() - began;
    return answer;
}

}  // namespace watchfloor::fuzz

namespace watchfloor::fuzz {

namespace {
// Error messages quote at most 64 bytes of a name (server/control/README.md); a message this long
// echoes a request field.
constexpr std::size_t kMostMessageBytes = 1024;
}  // namespace

void checkAnswer(const FuzzCall& call, const InProcessFleetd::Answer& answer) {
    const auto code = answer.status.error_code();
    const std::string where = call.method->full_name() + " as " + callerName(call.caller) + ": ";
    const std::string said = std::to_string(int(code)) + " \"" + answer.status.error_message().substr(0, 300) + "\"";
    explain(where + said +
            (answer.gotMessage ? ", " + std::to_string(answer.firstMessage.size()) + "-byte answer" : "") + ", " +
            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(answer.took).count()) + " ms");
    FUZZ_CHECK(code != grpc::StatusCode::UNKNOWN && code != grpc::StatusCode::INTERNAL &&
                   code != grpc::StatusCode::UNIMPLEMENTED && code != grpc::StatusCode::DATA_LOSS,
               where + said);
    FUZZ_CHECK(code != grpc::StatusCode::DEADLINE_EXCEEDED, where + "no answer within the deadline");
    // A stream is cancelled by the harness after its first message.
    const bool cancelledByUs = call.method->server_streaming() && code == grpc::StatusCode::CANCELLED;
    if (!answer.status.ok() && !cancelledByUs)
        FUZZ_CHECK(!answer.status.error_message().empty(), where + said + " without a message");
    FUZZ_CHECK(answer.status.error_message().size() <= kMostMessageBytes,
               where + std::to_string(answer.status.error_message().size()) + "-byte message: " + said);
    if (answer.gotMessage) {
        const auto* prototype =
            google::protobuf::MessageFactory::generated_factory()->GetPrototype(call.method->output_type());
        std::unique_ptr<google::protobuf::Message> response(prototype->New());
        FUZZ_CHECK(response->ParseFromString(answer.firstMessage), where + "answer does not parse");
    }
}

}  // namespace watchfloor::fuzz
