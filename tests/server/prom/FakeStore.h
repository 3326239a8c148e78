#pragma once
// An in-process HTTP server on 127.0.0.1 standing in for a Prometheus-compatible store: each test
// sets how it answers and reads back what arrived (method, path, headers, parameters).

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

class FakeStore {
public:
    struct Seen {
        std::string method, path, body;
        httplib::Headers headers;
        httplib::Params params;
        int remotePort = 0;
    };
    using Answer = std::function<void(const httplib::Request&, httplib::Response&)>;

    // `threads`: connections served at once (httplib gives each kept-alive connection a thread;
    // a scraper keeps one per target).
    explicit FakeStore(std::size_t threads = 8) {
        server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
        const auto handler = [this](const httplib::Request& request, httplib::Response& response) {
            Answer answer;
            {
                std::lock_guard lock(mutex_);
                seen_.push_back(
                    {request.method, request.path, request.body, request.headers, request.params, request.remote_port});
                answer = answer_;
            }
            if (answer) answer(request, response);
        };
        server_.set_keep_alive_max_count(1000);  // httplib closes after 5 requests by default
        server_.Get(".*", handler);
        server_.Post(".*", handler);
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        // stop() only works on a running server; the socket already listens, so this is short.
        for (int i = 0; i < 500 && !server_.is_running(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ~FakeStore() {
        stopping_ = true;
        server_.stop();
        thread_.join();
    }

    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    int port() const { return port_; }
    void answer(Answer answer) {
        std::lock_guard lock(mutex_);
        answer_ = std::move(answer);
    }
    void answerJson(int status, std::string body) {
        answer([status, body = std::move(body)](const httplib::Request&, httplib::Response& response) {
            response.status = status;
            response.set_content(body, "application/json");
        });
    }
    std::vector<Seen> seen() const {
        std::lock_guard lock(mutex_);
        return seen_;
    }
    Seen last() const {
        std::lock_guard lock(mutex_);
        return seen_.empty() ? Seen{} : seen_.back();
    }
    // Handlers that stall check this so the server can stop.
    bool stopping() const { return stopping_; }

private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
    mutable std::mutex mutex_;
    Answer answer_;
    std::vector<Seen> seen_;
    std::atomic<bool> stopping_{false};
};
