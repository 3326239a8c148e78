#include "FuzzCall.h"

#include "ControlTestFleet.h"
#include "FuzzSupport.h"

#include "watchfloor/v1/control.pb.h"
#include "watchfloor/v1/fleet.pb.h"

namespace watchfloor::fuzz {

namespace {
constexpr const char* kNames[kCallers] = {"anonymous", "val", "alice", "bob", "carol"};

// A principal's secret, from the token file the in-process fleetd loads
// ("token <secret> principal=<name> role=<role>" per line).
std::string secretOf(std::string_view principal) {
    const std::string_view tokens = control_test::kTestTokens;
    const std::string needle = " principal=" + std::string(principal) + " ";
    const auto at = tokens.find(needle);
    FUZZ_CHECK(at != std::string_view::npos, "no token for " + std::string(principal));
    const auto lineStart = tokens.rfind('\n', at) == std::string_view::npos ? 0 : tokens.rfind('\n', at) + 1;
    const auto secretStart = tokens.find(' ', lineStart) + 1;
    return std::string(tokens.substr(secretStart, at - secretStart));
}
}  // namespace

const char* callerName(Caller caller) { return kNames[unsigned(caller)]; }

const char* callerToken(Caller caller) {
    static const std::string secrets[kCallers] = {"", secretOf(kNames[1]), secretOf(kNames[2]), secretOf(kNames[3]),
                                                  secretOf(kNames[4])};
    return caller == Caller::Anonymous ? nullptr : secrets[unsigned(caller)].c_str();
}

bool callerFromName(std::string_view name, Caller* caller) {
    for (unsigned i = 0; i < kCallers; ++i)
        if (name == kNames[i]) return *caller = Caller(i), true;
    return false;
}

const google::protobuf::ServiceDescriptor& serviceNamed(const std::string& fullName) {
    // Naming a message of each proto file links its generated code, which registers the file
    // (and its services) in the generated pool; a program that never names one has neither.
    (void)watchfloor::v1::SubscribeRequest::descriptor();
    (void)watchfloor::v1::WhoAmIRequest::descriptor();
    const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(fullName);
    FUZZ_CHECK(service != nullptr && service->method_count() <= 16, "service " + fullName);
    return *service;
}

bool decodeCall(const google::protobuf::ServiceDescriptor& service, const std::uint8_t* data, std::size_t size,
                FuzzCall* call) {
    if (size == 0) return false;
    call->method = service.method((data[0] & 0x0f) % service.method_count());
    call->caller = Caller((data[0] >> 4) % kCallers);
    call->request = std::string_view(reinterpret_cast<const char*>(data + 1), size - 1);
    return true;
}

std::uint8_t selectorByte(const google::protobuf::MethodDescriptor& method, Caller caller) {
    return std::uint8_t(method.index() | (unsigned(caller) << 4));
}

}  // namespace watchfloor::fuzz
