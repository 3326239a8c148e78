#include "CurlTransfer.h"

#include "OneLine.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace watchfloor::server::prom::detail {

namespace {

std::string secondsText(std::chrono::milliseconds timeout) {
    char text[32];
    if (timeout.count() % 1000 == 0)
        std::snprintf(text, sizeof text, "%lld s", static_cast<long long>(timeout.count() / 1000));
    else
        std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(timeout.count()) / 1000.0);
    return text;
}

bool isTlsFailure(CURLcode code) {
    switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT: return true;
    default: return false;
    }
}

std::string lowered(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return out;
}

bool startsWithIgnoringCase(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && lowered(text.substr(0, prefix.size())) == prefix;
}

std::string_view trimmedLine(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == '\r' || text.back() == '\n' || text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

// `location` read against `base` (relative references resolved, as libcurl will follow them):
// the absolute URL and its host, lower-cased; empty when either is not a URL libcurl accepts.
std::pair<std::string, std::string> resolvedLocation(const char* base, std::string_view location) {
    std::pair<std::string, std::string> out;
    CURLU* url = curl_url();
    if (!url) return out;
    const std::string target(location);
    if (curl_url_set(url, CURLUPART_URL, base, 0) == CURLUE_OK &&
        curl_url_set(url, CURLUPART_URL, target.c_str(), 0) == CURLUE_OK) {
        char* text = nullptr;
        if (curl_url_get(url, CURLUPART_URL, &text, 0) == CURLUE_OK) out.first = text;
        curl_free(text);
        text = nullptr;
        if (curl_url_get(url, CURLUPART_HOST, &text, 0) == CURLUE_OK) out.second = lowered(text);
        curl_free(text);
    }
    curl_url_cleanup(url);
    return out;
}

}  // namespace

std::string withoutCredentials(std::string_view url) {
    const auto scheme = url.find("://");
    if (scheme == std::string_view::npos) return std::string(url);
    const auto hostStart = scheme + 3;
    const auto pathStart = std::min(url.find('/', hostStart), url.size());
    const auto at = url.substr(0, pathStart).rfind('@');
    if (at == std::string_view::npos || at < hostStart) return std::string(url);
    return std::string(url.substr(0, hostStart)) + std::string(url.substr(at + 1));
}

CurlTransfer::CurlTransfer() : easy_(curl_easy_init()) {
    if (!easy_) throw std::runtime_error("curl_easy_init failed");
}

CurlTransfer::~CurlTransfer() { curl_easy_cleanup(easy_); }

void CurlTransfer::prepare(const Request& request, const RequestAuth& auth, const StoreOptions& options,
                           std::size_t tag) {
    curl_easy_reset(easy_);
    tag_ = tag;
    endpoint_ = withoutCredentials(request.endpoint);  // what messages name; url_ keeps any user:password@
    form_ = request.form;
    body_.clear();
    overCap_ = false;
    cap_ = options.maxResponseBytes;
    stayOnHost_ = options.redirectsStayOnHost && options.maxRedirects > 0;
    answerStatus_ = 0;
    encoding_.clear();
    refusedRedirect_.clear();
    host_.clear();
    errorBuffer_[0] = '\0';
    started_ = std::chrono::steady_clock::now();

    if (request.post) {
        url_ = request.endpoint;
        curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, form_.c_str());
        curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(form_.size()));
    } else {
        url_ = form_.empty() ? request.endpoint : request.endpoint + "?" + form_;
        curl_easy_setopt(easy_, CURLOPT_HTTPGET, 1L);
    }
    if (request.method) curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, request.method);
    curl_easy_setopt(easy_, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(easy_, CURLOPT_PRIVATE, this);
    curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, errorBuffer_);
    curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy_, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy_, CURLOPT_USERAGENT, "watchfloor-fleetd");
    curl_easy_setopt(easy_, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
    const auto connectTimeout =
        options.connectTimeout.count() > 0 ? std::min(options.connectTimeout, options.timeout) : options.timeout;
    curl_easy_setopt(easy_, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connectTimeout.count()));
    curl_easy_setopt(easy_, CURLOPT_TCP_KEEPALIVE, 1L);
    // The write callback sees decoded bytes, so the size cap bounds memory, not wire bytes.
    curl_easy_setopt(easy_, CURLOPT_ACCEPT_ENCODING, options.acceptEncoding.c_str());
    curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, &CurlTransfer::onData);
    curl_easy_setopt(easy_, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(easy_, CURLOPT_HEADERFUNCTION, &CurlTransfer::onHeader);
    curl_easy_setopt(easy_, CURLOPT_HEADERDATA, this);
    if (auth.headers) curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, auth.headers);
    if (!auth.basicUser.empty()) {
        curl_easy_setopt(easy_, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
        curl_easy_setopt(easy_, CURLOPT_USERNAME, auth.basicUser.c_str());
        curl_easy_setopt(easy_, CURLOPT_PASSWORD, auth.basicPassword.c_str());
    }
    if (options.maxRedirects > 0) {
        // A store behind a proxy that moved it; POST stays POST so long queries survive, and
        // libcurl does not carry credentials to another host.
        curl_easy_setopt(easy_, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(easy_, CURLOPT_MAXREDIRS, static_cast<long>(options.maxRedirects));
        curl_easy_setopt(easy_, CURLOPT_POSTREDIR, static_cast<long>(CURL_REDIR_POST_ALL));
        curl_easy_setopt(easy_, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    }
    if (stayOnHost_) host_ = resolvedLocation(url_.c_str(), url_).second;
    if (!options.caFile.empty()) curl_easy_setopt(easy_, CURLOPT_CAINFO, options.caFile.c_str());
    if (!options.clientCertFile.empty()) curl_easy_setopt(easy_, CURLOPT_SSLCERT, options.clientCertFile.c_str());
    if (!options.clientKeyFile.empty()) curl_easy_setopt(easy_, CURLOPT_SSLKEY, options.clientKeyFile.c_str());
}

std::string_view CurlTransfer::contentType() const {
    const char* type = nullptr;
    curl_easy_getinfo(easy_, CURLINFO_CONTENT_TYPE, &type);
    return type ? std::string_view(type) : std::string_view();
}

int CurlTransfer::httpStatus() const {
    long status = 0;
    curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
    return static_cast<int>(status);
}

std::size_t CurlTransfer::onData(char* data, std::size_t size, std::size_t count, void* self) {
    return static_cast<CurlTransfer*>(self)->append(data, size * count);
}

std::size_t CurlTransfer::onHeader(char* data, std::size_t size, std::size_t count, void* self) {
    const std::size_t bytes = size * count;
    return static_cast<CurlTransfer*>(self)->acceptHeader(std::string_view(data, bytes)) ? bytes : 0;
}

bool CurlTransfer::acceptHeader(std::string_view line) {
    line = trimmedLine(line);
    if (line.substr(0, 5) == "HTTP/") {  // a new answer: a redirect's, or the last one's
        const auto blank = line.find(' ');
        answerStatus_ = blank == std::string_view::npos ? 0 : std::atoi(std::string(line.substr(blank + 1, 3)).c_str());
        encoding_.clear();
        return true;
    }
    if (startsWithIgnoringCase(line, "content-encoding:")) {
        encoding_ = oneLine(trimmedLine(line.substr(17)), 40);
        return true;
    }
    if (!stayOnHost_ || answerStatus_ < 300 || answerStatus_ >= 400 || !startsWithIgnoringCase(line, "location:"))
        return true;
    const char* current = nullptr;
    curl_easy_getinfo(easy_, CURLINFO_EFFECTIVE_URL, &current);
    const auto [target, host] = resolvedLocation(current ? current : url_.c_str(), trimmedLine(line.substr(9)));
    if (!host.empty() && host == host_) return true;
    refusedRedirect_ = target.empty() ? oneLine(trimmedLine(line.substr(9)), 200) : withoutCredentials(target);
    return false;  // aborts the transfer (CURLE_WRITE_ERROR) before libcurl follows it
}

std::size_t CurlTransfer::append(const char* data, std::size_t bytes) {
    if (bytes > cap_ - std::min(cap_, body_.size())) {
        overCap_ = true;
        return 0;  // anything but `bytes` aborts the transfer with CURLE_WRITE_ERROR
    }
    const std::size_t needed = body_.size() + bytes + kJsonPadding;
    if (body_.capacity() < needed) {
        std::size_t reserve = std::max(needed, body_.capacity() * 2);
        if (body_.empty()) {
            curl_off_t announced = -1;
            curl_easy_getinfo(easy_, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
            if (announced > 0 && static_cast<std::size_t>(announced) <= cap_)
                reserve = std::max(reserve, static_cast<std::size_t>(announced) + kJsonPadding);
        }
        body_.reserve(reserve);
    }
    body_.append(data, bytes);
    return bytes;
}

void CurlTransfer::releaseLargeBuffer(std::size_t keptBytes) {
    if (body_.capacity() > keptBytes) std::string().swap(body_);
}

std::string CurlTransfer::describeFailure(CURLcode code, const StoreOptions& options) const {
    const std::string detail = oneLine(errorBuffer_[0] ? errorBuffer_ : curl_easy_strerror(code), kMaxMessageChars);
    long osErrno = 0;
    curl_easy_getinfo(easy_, CURLINFO_OS_ERRNO, &osErrno);
    if (code == CURLE_WRITE_ERROR && overCap_)
        return "answer from " + endpoint_ + " exceeds " + std::to_string(options.maxResponseBytes) + " bytes" +
               (encoding_.empty() ? std::string() : " once its " + encoding_ + " encoding is undone") + " (" +
               options.maxResponseBytesName + "); refused";
    if (code == CURLE_WRITE_ERROR && !refusedRedirect_.empty())
        return endpoint_ + " redirects to another host (" + refusedRedirect_ +
               "); refused: its page would be read as this host's";
    if (code == CURLE_OPERATION_TIMEDOUT) {
        curl_off_t connectedUs = 0;
        curl_easy_getinfo(easy_, CURLINFO_CONNECT_TIME_T, &connectedUs);
        if (connectedUs == 0 && options.connectTimeout.count() > 0 && options.connectTimeout < options.timeout)
            return "no connection within " + secondsText(options.connectTimeout) + " to " + endpoint_;
        return "timeout after " + secondsText(options.timeout) + " waiting for " + endpoint_;
    }
    if (code == CURLE_COULDNT_CONNECT && osErrno == ECONNREFUSED) return "connection refused by " + endpoint_;
    if (code == CURLE_COULDNT_CONNECT) return "cannot connect to " + endpoint_ + ": " + detail;
    if (code == CURLE_COULDNT_RESOLVE_HOST) return "cannot resolve the host of " + endpoint_ + ": " + detail;
    if (code == CURLE_TOO_MANY_REDIRECTS)
        return "more than " + std::to_string(options.maxRedirects) + " redirects from " + endpoint_;
    if (isTlsFailure(code)) return "TLS failure with " + endpoint_ + ": " + detail;
    return std::string(curl_easy_strerror(code)) + " with " + endpoint_ + ": " + detail;
}

}  // namespace watchfloor::server::prom::detail
