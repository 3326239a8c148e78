#include "AccessPolicy.h"

#include <arpa/inet.h>
#include <sys/stat.h>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace watchfloor::server::control {
namespace v1 = watchfloor::v1;

namespace {

constexpr std::size_t kMinimumSecretLength = 16;

bool isLoopbackPeer(std::string_view peer) {
    if (peer.starts_with("unix:") || peer.starts_with("unix-abstract:")) return true;
    std::string host;
    if (peer.starts_with("ipv4:")) {
        const auto rest = peer.substr(5);
        host = std::string(rest.substr(0, rest.rfind(':')));
        in_addr address{};
        return inet_pton(AF_INET, host.c_str(), &address) == 1 && (ntohl(address.s_addr) >> 24) == 127;
    }
    if (peer.starts_with("ipv6:[")) {
        const auto rest = peer.substr(6);
        host = std::string(rest.substr(0, rest.find(']')));
        in6_addr address{};
        if (inet_pton(AF_INET6, host.c_str(), &address) != 1) return false;
        if (IN6_IS_ADDR_LOOPBACK(&address)) return true;
        // IPv4-mapped 127.0.0.0/8 (::ffff:127.x.y.z).
        return IN6_IS_ADDR_V4MAPPED(&address) && address.s6_addr[12] == 127;
    }
    return false;
}

}  // namespace

std::optional<std::string_view> bearerToken(std::string_view authorization) {
    // RFC 7235: the scheme name is case-insensitive; clients send "bearer" as well as "Bearer".
    constexpr std::string_view scheme = "bearer ";
    if (authorization.size() <= scheme.size()) return std::nullopt;
    for (std::size_t i = 0; i < scheme.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i]) return std::nullopt;
    return authorization.substr(scheme.size());
}

Caller Caller::automation() { return Caller{"auto", v1::ROLE_OPERATOR, true, "in-process"}; }

Caller Caller::repairCase() {
    Caller caller = automation();
    caller.repairCaseBookkeeping = true;
    return caller;
}

std::optional<v1::Role> roleFromName(std::string_view name) {
    if (name == "viewer") return v1::ROLE_VIEWER;
    if (name == "operator") return v1::ROLE_OPERATOR;
    if (name == "admin") return v1::ROLE_ADMIN;
    return std::nullopt;
}

std::string roleName(v1::Role role) {
    switch (role) {
    case v1::ROLE_VIEWER: return "viewer";
    case v1::ROLE_OPERATOR: return "operator";
    case v1::ROLE_ADMIN: return "admin";
    default: return "";
    }
}

std::string tokenTransportError(std::string_view peer, bool channelIsSecure) {
    if (channelIsSecure || isLoopbackPeer(peer)) return {};
    return "bearer token refused: it was sent without TLS from " + std::string(peer) +
           "; use TLS (--tls-cert/--tls-key) or connect over loopback";
}

bool constantTimeEquals(std::string_view a, std::string_view b) {
    // Walk the longer length in full; a length mismatch alone decides, but only after the walk.
    const std::size_t length = std::max(a.size(), b.size());
    unsigned difference = a.size() == b.size() ? 0u : 1u;
    for (std::size_t i = 0; i < length; ++i) {
        const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
        const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
        difference |= static_cast<unsigned>(x ^ y);
    }
    return difference == 0;
}

TokenTable::LoadResult TokenTable::load(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
        return {std::nullopt, "cannot read tokens file " + path + ": " + std::strerror(errno)};
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
        return {std::nullopt, "tokens file " + path + " is accessible by group or other users (mode " + mode +
                                  "); run: chmod 600 " + path};
    }
    std::ifstream file(path);
    if (!file) return {std::nullopt, "cannot read tokens file " + path + ": " + std::strerror(errno)};
    std::stringstream text;
    text << file.rdbuf();
    return parse(text.str(), path);
}

TokenTable::LoadResult TokenTable::parse(std::string_view text, const std::string& sourceName) {
    TokenTable table;
    std::istringstream lines{std::string(text)};
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        const auto where = sourceName + ":" + std::to_string(number) + ": ";
        std::istringstream words(line);
        std::string keyword;
        if (!(words >> keyword) || keyword.starts_with('#')) continue;
        if (keyword != "token")
            return {std::nullopt, where + "expected 'token <secret> principal=<name> role=viewer|operator|admin'"};
        Entry entry;
        std::string word;
        std::optional<v1::Role> role;
        if (!(words >> entry.secret)) return {std::nullopt, where + "missing the token secret"};
        while (words >> word) {
            if (word.starts_with("principal=")) {
                entry.principal = word.substr(10);
            } else if (word.starts_with("role=")) {
                role = roleFromName(word.substr(5));
                if (!role)
                    return {std::nullopt, where + "unknown role '" + word.substr(5) + "' (viewer, operator, admin)"};
            } else {
                return {std::nullopt, where + "unexpected '" + word + "'"};
            }
        }
        if (entry.principal.empty()) return {std::nullopt, where + "missing principal=<name>"};
        if (!role) return {std::nullopt, where + "missing role=viewer|operator|admin"};
        if (entry.principal == Caller::automation().principal)
            return {std::nullopt, where + "principal 'auto' is reserved for fleetd's own automation"};
        if (entry.secret.size() < kMinimumSecretLength)
            return {std::nullopt, where + "token for " + entry.principal + " is shorter than " +
                                      std::to_string(kMinimumSecretLength) + " characters"};
        for (const Entry& other : table.entries_)
            if (other.secret == entry.secret) return {std::nullopt, where + "the same token is listed twice"};
        entry.role = *role;
        table.entries_.push_back(std::move(entry));
    }
    return {std::move(table), {}};
}

std::optional<Caller> TokenTable::find(std::string_view secret) const {
    const Entry* match = nullptr;
    for (const Entry& entry : entries_)
        if (constantTimeEquals(entry.secret, secret) && match == nullptr) match = &entry;
    if (!match) return std::nullopt;
    return Caller{match->principal, match->role, false, {}};
}

void AccessPolicy::flushSuppressed() const {
    const std::uint64_t suppressed = anonymousAudit_.takeDropped();
    if (suppressed == 0) return;
    AuditRecord record;
    record.time = std::chrono::system_clock::now();
    record.action = "UNAUTHENTICATED_SUPPRESSED";
    record.decision = "deny";
    record.result = std::to_string(suppressed) +
                    " unauthenticated calls were refused without a record each (rate limit for callers without a "
                    "valid token)";
    if (auto error = audit_.append(record); !error.empty())
        std::fprintf(stderr, "fleetd: control: %s (%s)\n", record.result.c_str(), error.c_str());
}

AccessPolicy::Decision AccessPolicy::deny(const Request& request, const Caller* caller, grpc::StatusCode code,
                                          std::string message) const {
    // Anyone can send calls without a valid token as fast as the network allows; auditing each
    // would let them fill the disk with fsync'ed records.
    if (!caller && !anonymousAudit_.admit()) return {grpc::Status(code, message), {}};
    AuditRecord record;
    record.time = std::chrono::system_clock::now();
    record.principal = caller ? caller->principal : "";
    record.role = caller ? roleName(caller->role) : "";
    record.action = request.actionName;
    record.target = request.target;
    record.requestId = request.requestId;
    record.decision = "deny";
    record.result = (code == grpc::StatusCode::UNAUTHENTICATED ? "UNAUTHENTICATED: " : "PERMISSION_DENIED: ") + message;
    record.peer = request.peer;
    if (auto error = audit_.append(record); !error.empty())
        message += " (and the refusal could not be audited: " + error + ")";
    return {grpc::Status(code, message), {}};
}

AccessPolicy::Decision AccessPolicy::authenticate(const Request& request) const {
    if (!request.authorization || request.authorization->empty())
        return deny(request, nullptr, grpc::StatusCode::UNAUTHENTICATED,
                    "no bearer token: send 'authorization: Bearer <token>' (fleetd --tokens lists them)");
    const auto token = bearerToken(*request.authorization);
    if (!token)
        return deny(request, nullptr, grpc::StatusCode::UNAUTHENTICATED,
                    "the authorization metadata is not 'Bearer <token>'");
    if (auto error = tokenTransportError(request.peer, request.channelIsSecure); !error.empty())
        return deny(request, nullptr, grpc::StatusCode::UNAUTHENTICATED, error);
    auto caller = tokens_.find(*token);
    if (!caller) return deny(request, nullptr, grpc::StatusCode::UNAUTHENTICATED, "unknown bearer token");
    caller->peer = request.peer;
    return {grpc::Status::OK, std::move(*caller)};
}

AccessPolicy::Decision AccessPolicy::authorize(const Request& request, v1::ActionType action) const {
    Decision decision = authenticate(request);
    if (!decision.status.ok()) return decision;
    if (!roleAllows(decision.caller.role, action))
        return deny(request, &decision.caller, grpc::StatusCode::PERMISSION_DENIED,
                    decision.caller.principal + " has role " + roleName(decision.caller.role) + ", which may not " +
                        actionName(action));
    return decision;
}

AccessPolicy::Decision AccessPolicy::authorizeRead(const Request& request, v1::Role minimum,
                                                   const std::string& what) const {
    Decision decision = authenticate(request);
    if (!decision.status.ok()) return decision;
    // Roles are ordered viewer < operator < admin in the enum.
    if (decision.caller.role < minimum)
        return deny(request, &decision.caller, grpc::StatusCode::PERMISSION_DENIED,
                    decision.caller.principal + " has role " + roleName(decision.caller.role) + ", which may not " +
                        what + " (" + roleName(minimum) + " or above)");
    return decision;
}

}  // namespace watchfloor::server::control
