#pragma once
// HTTP to one tray's BMC, one short request at a time, on server/prom's libcurl transfer layer
// (the same CurlTransfer the Redfish cooling source and the store client use): Basic auth, JSON
// in and out, a per-request timeout, no redirects (a POST must not land on another host), the
// Location header kept (a 202's task monitor). Used from one thread at a time.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace watchfloor::server::repair {

struct BmcCredentials {
    std::string user, password;
};

// A BMC credentials file: one line "USER:PASSWORD" (the password may hold ':'), readable by its
// owner only, as the tokens file is. nullopt and `error` naming the file otherwise.
std::optional<BmcCredentials> readBmcCredentials(const std::string& path, std::string* error);

struct BmcEndpoint {
    std::string url;  // http(s)://HOST[:PORT]: the BMC's Redfish service, without /redfish/v1
    BmcCredentials credentials;
    std::string caFile;  // https: the BMC's CA; empty: the system's
    std::chrono::milliseconds timeout{10000};
};

struct BmcAnswer {
    bool reached = false;  // an HTTP answer came back (any status)
    int status = 0;
    std::string body;
    std::string location;  // the Location header, when there was one
    std::string error;     // !reached: one line naming the URL (refused, timed out, TLS ...)
};

class BmcSession {
public:
    explicit BmcSession(BmcEndpoint endpoint);
    ~BmcSession();
    BmcSession(const BmcSession&) = delete;
    BmcSession& operator=(const BmcSession&) = delete;

    BmcAnswer get(const std::string& path);
    BmcAnswer post(const std::string& path, const std::string& json);
    const BmcEndpoint& endpoint() const { return endpoint_; }

private:
    class Impl;
    BmcAnswer exchange(const std::string& path, const std::string* json);
    BmcEndpoint endpoint_;
    std::unique_ptr<Impl> impl_;
};

// A Redfish error body ({"error": {"message", "@Message.ExtendedInfo": [{"Message"}]}}) as one
// line in the BMC's words; the start of the body when it is not one; "" for an empty body.
std::string redfishErrorText(const std::string& body);

}  // namespace watchfloor::server::repair
