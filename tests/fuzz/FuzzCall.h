#pragma once
// How a request fuzz target reads its input: the first byte chooses the method of the service
// (low 4 bits, modulo the method count) and the caller (high 4 bits, modulo kCallers); the rest
// is the request message exactly as a client would put it on the wire. encode_seed writes seeds
// in this format from protobuf text files; the targets decode it.

#include <google/protobuf/descriptor.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace watchfloor::fuzz {

// Who calls: no token, then the principals of control_test::kTestTokens.
enum class Caller : std::uint8_t { Anonymous, Viewer, Alice, Bob, Admin };
inline constexpr unsigned kCallers = 5;
const char* callerName(Caller caller);   // "anonymous", "val", "alice", "bob", "carol"
const char* callerToken(Caller caller);  // nullptr for Anonymous
bool callerFromName(std::string_view name, Caller* caller);

struct FuzzCall {
    const google::protobuf::MethodDescriptor* method = nullptr;
    Caller caller = Caller::Anonymous;
    std::string_view request;
};

const google::protobuf::ServiceDescriptor& serviceNamed(const std::string& fullName);
// Nothing for an empty input.
bool decodeCall(const google::protobuf::ServiceDescriptor& service, const std::uint8_t* data, std::size_t size,
                FuzzCall* call);
std::uint8_t selectorByte(const google::protobuf::MethodDescriptor& method, Caller caller);

}  // namespace watchfloor::fuzz
