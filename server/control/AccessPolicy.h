#pragma once
// Who may do what: bearer tokens from a local file map to (principal, role); a fixed role x
// action matrix says what each role may do. Every refusal is written to the audit log.

#include "ActionCatalog.h"
#include "AuditLog.h"
#include "TokenBucket.h"
#include "watchfloor/v1/control.pb.h"

#include <grpcpp/support/status.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace watchfloor::server::control {

// The authenticated caller of an action. Automation acts as the reserved principal "auto".
struct Caller {
    std::string principal;
    watchfloor::v1::Role role = watchfloor::v1::ROLE_UNSPECIFIED;
    bool automated = false;
    std::string peer;
    // A repair case's own lifecycle moves (TRIAGE on its fault, BURN_IN, PRODUCTION): bookkeeping
    // that follows steps already taken, not an action on the fleet, so it spends no slot of the
    // automation circuit breaker. The engine honours it for SET_LIFECYCLE only.
    bool repairCaseBookkeeping = false;

    static Caller automation();
    static Caller repairCase();  // "auto", for the repair case's lifecycle moves
};

std::string roleName(watchfloor::v1::Role role);  // "viewer", "operator", "admin"
std::optional<watchfloor::v1::Role> roleFromName(std::string_view name);
// actionName and roleAllows: ActionCatalog.h (each action's least role is in its row).

// Tokens may only travel over TLS, or in plaintext to a loopback peer (gRPC peer strings such as
// "ipv4:127.0.0.1:5000", "ipv6:[::1]:5000", "unix:/run/fleetd.sock"). "" when acceptable.
std::string tokenTransportError(std::string_view peer, bool channelIsSecure);

// The token of an "authorization" metadata value "Bearer <token>" (scheme name in any case).
std::optional<std::string_view> bearerToken(std::string_view authorization);

// Compares without an early exit, so the time taken does not reveal how much of a token matched.
bool constantTimeEquals(std::string_view a, std::string_view b);

struct TokenTableLoad;

class TokenTable {
public:
    struct Entry {
        std::string secret;
        std::string principal;
        watchfloor::v1::Role role;
    };
    using LoadResult = TokenTableLoad;
    // Lines: "token <secret> principal=<name> role=viewer|operator|admin"; '#' comments.
    // The file must not be readable by group or others.
    static LoadResult load(const std::string& path);
    static LoadResult parse(std::string_view text, const std::string& sourceName);

    // Checks every entry, whatever matches, so lookups take the same time for any token.
    std::optional<Caller> find(std::string_view secret) const;
    std::size_t size() const { return entries_.size(); }

private:
    std::vector<Entry> entries_;
};

struct TokenTableLoad {
    std::optional<TokenTable> table;
    std::string error;  // "<file>:<line>: ..." or a permission problem, when table is empty
};

class AccessPolicy {
public:
    struct Decision {
        grpc::Status status;  // OK, UNAUTHENTICATED or PERMISSION_DENIED
        Caller caller;        // valid when status is OK
    };
    struct Request {
        std::optional<std::string_view> authorization;  // the "authorization" metadata value
        std::string peer;
        bool channelIsSecure = false;
        std::string actionName;  // for the audit record
        std::string target;
        std::string requestId;
    };

    // Unauthenticated refusals cost the caller nothing: each is audited up to a burst, then at a
    // steady rate; the rest are counted and the count audited (flushSuppressed).
    struct AnonymousAuditLimit {
        double burst = 50;
        double perSecond = 10;
    };
    AccessPolicy(TokenTable tokens, AuditLog& audit) : AccessPolicy(std::move(tokens), audit, AnonymousAuditLimit{}) {}
    AccessPolicy(TokenTable tokens, AuditLog& audit, AnonymousAuditLimit limit)
        : tokens_(std::move(tokens)), audit_(audit), anonymousAudit_(limit.burst, limit.perSecond) {}

    // Audits how many unauthenticated refusals were not audited one by one since the last call
    // ("UNAUTHENTICATED_SUPPRESSED", result "N ..."); nothing when there were none. Call
    // periodically (fleetd: every second).
    void flushSuppressed() const;

    // Who is calling: UNAUTHENTICATED (audited) for a missing, malformed or unknown token, or a
    // token sent in plaintext to a non-loopback peer.
    Decision authenticate(const Request& request) const;
    // authenticate() plus the role check for an action: PERMISSION_DENIED (audited).
    Decision authorize(const Request& request, watchfloor::v1::ActionType action) const;
    // authenticate() plus a minimum role to read something sensitive (`what`, e.g. "read the audit
    // trail"): PERMISSION_DENIED (audited) below it.
    Decision authorizeRead(const Request& request, watchfloor::v1::Role minimum, const std::string& what) const;

private:
    Decision deny(const Request& request, const Caller* caller, grpc::StatusCode code, std::string message) const;

    TokenTable tokens_;
    AuditLog& audit_;
    mutable TokenBucket anonymousAudit_;
};

}  // namespace watchfloor::server::control
