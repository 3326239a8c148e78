#pragma once
// One HTTP exchange with a store on a reusable libcurl easy handle: the request's options, the
// answer buffered with simdjson's padding and cut off at the size cap (counted after gzip is
// undone), and a one-line description of whatever went wrong on the wire.

#include "PromClient.h"

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace watchfloor::server::prom::detail {

struct Request {
    std::string endpoint;  // base + API path, without the query: also what messages name
    std::string form;      // url-encoded parameters; empty: the endpoint is fetched as it is
    bool post = false;
    // Another verb than GET/POST (the pager's DELETE of a silence); sent without a body.
    const char* method = nullptr;
};

// Headers and credentials shared by every request of one call.
struct RequestAuth {
    curl_slist* headers = nullptr;
    std::string basicUser, basicPassword;
};

class CurlTransfer {
public:
    CurlTransfer();
    ~CurlTransfer();
    CurlTransfer(const CurlTransfer&) = delete;
    CurlTransfer& operator=(const CurlTransfer&) = delete;

    CURL* handle() const { return easy_; }
    void prepare(const Request& request, const RequestAuth& auth, const StoreOptions& options, std::size_t tag);
    std::size_t tag() const { return tag_; }
    std::chrono::steady_clock::time_point started() const { return started_; }
    int httpStatus() const;
    // The answer's Content-Type header, empty when it had none.
    std::string_view contentType() const;
    // The answer; kJsonPadding bytes after its end are allocated.
    std::string_view body() const { return body_; }
    // One line for a transfer that ended with `code`, naming the endpoint.
    std::string describeFailure(CURLcode code, const StoreOptions& options) const;
    const std::string& endpoint() const { return endpoint_; }
    // Large buffers are not kept between polls: an unusual answer should not pin its memory.
    void releaseLargeBuffer(std::size_t keptBytes = kKeptBufferBytes);
    static constexpr std::size_t kKeptBufferBytes = std::size_t(64) << 20;

private:
    static std::size_t onData(char* data, std::size_t size, std::size_t count, void* self);
    static std::size_t onHeader(char* data, std::size_t size, std::size_t count, void* self);
    std::size_t append(const char* data, std::size_t bytes);
    bool acceptHeader(std::string_view line);  // false: refuse the answer (a redirect off the host)

    CURL* easy_ = nullptr;
    std::string body_;
    std::string form_;
    std::string endpoint_;
    std::string url_;
    std::size_t cap_ = 0;
    bool overCap_ = false;
    bool stayOnHost_ = false;
    std::string host_;             // the request's host, lower-cased (redirectsStayOnHost)
    int answerStatus_ = 0;         // of the answer whose headers arrive (each redirect has its own)
    std::string encoding_;         // its Content-Encoding, when any
    std::string refusedRedirect_;  // where an off-host redirect pointed
    std::size_t tag_ = 0;
    std::chrono::steady_clock::time_point started_;
    char errorBuffer_[CURL_ERROR_SIZE] = {};
};

// "http://user:secret@host/x" as "http://host/x": messages and logs never carry credentials.
std::string withoutCredentials(std::string_view url);

}  // namespace watchfloor::server::prom::detail
