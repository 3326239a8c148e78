#include "BmcSession.h"

#include "OneLine.h"
#include "TransferPool.h"

#include <simdjson.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace watchfloor::server::repair {

namespace detail = prom::detail;

std::optional<BmcCredentials> readBmcCredentials(const std::string& path, std::string* error) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        *error = "cannot read BMC credentials file " + path + ": " + std::strerror(errno);
        return std::nullopt;
    }
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
        *error = "BMC credentials file " + path + " is accessible by group or other users (mode " + mode +
                 "); run: chmod 600 " + path;
        return std::nullopt;
    }
    std::ifstream in(path);
    if (!in) {
        *error = "cannot read BMC credentials file " + path + ": " + std::strerror(errno);
        return std::nullopt;
    }
    std::stringstream text;
    text << in.rdbuf();
    std::string line = text.str();
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
    const auto colon = line.find(':');
    if (line.find('\n') != std::string::npos || colon == std::string::npos || colon == 0 || colon + 1 == line.size()) {
        *error = "BMC credentials file " + path + ": expected one line USER:PASSWORD";
        return std::nullopt;
    }
    return BmcCredentials{line.substr(0, colon), line.substr(colon + 1)};
}

std::string redfishErrorText(const std::string& body) {
    if (body.empty()) return {};
    simdjson::dom::parser parser;
    simdjson::dom::object error;
    if (parser.parse(body).get_object()["error"].get_object().get(error) != simdjson::SUCCESS)
        return prom::oneLine(body, 200);
    std::string text;
    std::string_view value;
    if (error["message"].get_string().get(value) == simdjson::SUCCESS) text = std::string(value);
    simdjson::dom::array details;
    if (error["@Message.ExtendedInfo"].get_array().get(details) == simdjson::SUCCESS)
        for (simdjson::dom::element detail : details) {
            std::string_view message;
            if (detail["Message"].get_string().get(message) != simdjson::SUCCESS || message == text) continue;
            text += (text.empty() ? "" : " ") + std::string(message);
            break;  // the first detail is the one a BMC puts its reason in
        }
    return prom::oneLine(text.empty() ? body : text, 300);
}

class BmcSession::Impl {
public:
    explicit Impl(const BmcEndpoint& endpoint) : pool_(1, 1) {
        auth_.headers = curl_slist_append(auth_.headers, "Accept: application/json");
        auth_.headers = curl_slist_append(auth_.headers, "Content-Type: application/json");
        auth_.headers = curl_slist_append(auth_.headers, "OData-Version: 4.0");
        auth_.basicUser = endpoint.credentials.user;
        auth_.basicPassword = endpoint.credentials.password;
        options_.timeout = endpoint.timeout;
        options_.connectTimeout = std::min(endpoint.timeout, std::chrono::milliseconds(3000));
        options_.maxResponseBytes = std::size_t(1) << 20;
        options_.maxRedirects = 0;
        options_.caFile = endpoint.caFile;
    }
    ~Impl() { curl_slist_free_all(auth_.headers); }

    BmcAnswer exchange(const std::string& url, const std::string* json) {
        detail::Request request;
        request.endpoint = url;
        if (json) {
            request.post = true;
            request.form = *json;
        }
        BmcAnswer answer;
        pool_.start(request, auth_, options_, 0);
        while (pool_.active() > 0)
            pool_.perform(std::chrono::milliseconds(50), [&](detail::CurlTransfer& transfer, CURLcode code) {
                if (code != CURLE_OK) {
                    answer.error = transfer.describeFailure(code, options_);
                    return;
                }
                answer.reached = true;
                answer.status = transfer.httpStatus();
                answer.body.assign(transfer.body());
                curl_header* location = nullptr;
                if (curl_easy_header(transfer.handle(), "Location", 0, CURLH_HEADER, -1, &location) == CURLHE_OK)
                    answer.location = location->value;
            });
        return answer;
    }

private:
    detail::TransferPool pool_;
    detail::RequestAuth auth_;
    prom::StoreOptions options_;
};

BmcSession::BmcSession(BmcEndpoint endpoint)
    : endpoint_(std::move(endpoint)), impl_(std::make_unique<Impl>(endpoint_)) {}
BmcSession::~BmcSession() = default;

BmcAnswer BmcSession::exchange(const std::string& path, const std::string* json) {
    return impl_->exchange(endpoint_.url + path, json);
}

BmcAnswer BmcSession::get(const std::string& path) { return exchange(path, nullptr); }
BmcAnswer BmcSession::post(const std::string& path, const std::string& json) { return exchange(path, &json); }

}  // namespace watchfloor::server::repair
