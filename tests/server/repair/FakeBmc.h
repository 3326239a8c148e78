#pragma once
// A small Redfish BMC for tst_repair_redfish_reset (cpp-httplib): one system laid out as bmcweb
// lays its own out, with knobs for each answer the client must handle.

#include "RedfishReset.h"

#include <httplib.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace redfish_reset_test {

using namespace watchfloor::server::repair;

constexpr const char* kSystem = "/redfish/v1/Systems/system";

std::string redfishError(const std::string& id, const std::string& message) {
    return R"({"error":{"code":"Base.1.18.)" + id + R"(","message":")" + message +
           R"(","@Message.ExtendedInfo":[{"MessageId":"Base.1.18.)" + id + R"(","Message":")" + message +
           R"(","Severity":"Critical","Resolution":"None."}]}})";
}

// One BMC; every knob is read under the mutex by the server's threads.
class FakeBmc {
public:
    enum class Answer { Ok200, NoContent204, Task202, Error500 };
    enum class TaskEnd { Completed, Exception, Never };

    std::vector<std::string> allowed{"On",         "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart",
                                     "PowerCycle", "Nmi"};
    bool viaActionInfo = false;
    Answer answer = Answer::Ok200;
    TaskEnd taskEnd = TaskEnd::Completed;
    int taskPollsToEnd = 2;
    int offReads = 2;  // GETs of the system reading Off after a reset, then On
    std::string password = "s3cret";

    bool start() {
        server_.Get("/redfish/v1/Systems", [this](const httplib::Request& request, httplib::Response& response) {
            if (!authorised(request, response)) return;
            reply(
                response,
                R"({"@odata.id":"/redfish/v1/Systems","Members":[{"@odata.id":"/redfish/v1/Systems/system"}],"Members@odata.count":1})");
        });
        server_.Get(kSystem, [this](const httplib::Request& request, httplib::Response& response) {
            if (!authorised(request, response)) return;
            std::lock_guard lock(mutex_);
            std::string power = "On";
            if (posts_ > 0 && offLeft_ > 0) {
                --offLeft_;
                power = "Off";
            }
            std::string values;
            for (const auto& value : allowed) values += (values.empty() ? "\"" : ",\"") + value + "\"";
            const std::string reset = viaActionInfo
                                          ? R"("@Redfish.ActionInfo":"/redfish/v1/Systems/system/ResetActionInfo")"
                                          : R"("ResetType@Redfish.AllowableValues":[)" + values + "]";
            reply(
                response,
                R"({"@odata.id":"/redfish/v1/Systems/system","@odata.type":"#ComputerSystem.v1_22_0.ComputerSystem","Id":"system","PowerState":")" +
                    power +
                    R"(","Actions":{"#ComputerSystem.Reset":{"target":"/redfish/v1/Systems/system/Actions/ComputerSystem.Reset",)" +
                    reset + "}}}");
        });
        server_.Get("/redfish/v1/Systems/system/ResetActionInfo", [this](const httplib::Request& request,
                                                                         httplib::Response& response) {
            if (!authorised(request, response)) return;
            std::lock_guard lock(mutex_);
            std::string values;
            for (const auto& value : allowed) values += (values.empty() ? "\"" : ",\"") + value + "\"";
            reply(
                response,
                R"({"@odata.id":"/redfish/v1/Systems/system/ResetActionInfo","@odata.type":"#ActionInfo.v1_1_2.ActionInfo","Id":"ResetActionInfo","Parameters":[{"Name":"ResetType","Required":true,"DataType":"String","AllowableValues":[)" +
                    values + "]}]}");
        });
        server_.Post("/redfish/v1/Systems/system/Actions/ComputerSystem.Reset",
                     [this](const httplib::Request& request, httplib::Response& response) {
                         if (!authorised(request, response)) return;
                         std::lock_guard lock(mutex_);
                         ++posts_;
                         lastBody_ = request.body;
                         offLeft_ = offReads;
                         taskPolls_ = 0;
                         switch (answer) {
                         case Answer::Ok200:
                             response.set_content(redfishError("Success", "The request completed successfully."),
                                                  "application/json");
                             break;
                         case Answer::NoContent204: response.status = 204; break;
                         case Answer::Task202:
                             response.status = 202;
                             response.set_header("Location", "/redfish/v1/TaskService/Tasks/0/Monitor");
                             response.set_content(task("Running"), "application/json");
                             break;
                         case Answer::Error500:
                             response.status = 500;
                             response.set_content(
                                 redfishError("InternalError", "The request failed due to an internal service error."),
                                 "application/json");
                         }
                     });
        server_.Get("/redfish/v1/TaskService/Tasks/0",
                    [this](const httplib::Request& request, httplib::Response& response) {
                        if (!authorised(request, response)) return;
                        std::lock_guard lock(mutex_);
                        ++taskPolls_;
                        std::string state = "Running";
                        if (taskPolls_ >= taskPollsToEnd && taskEnd == TaskEnd::Completed) state = "Completed";
                        if (taskPolls_ >= taskPollsToEnd && taskEnd == TaskEnd::Exception) state = "Exception";
                        response.set_content(task(state), "application/json");
                    });
        port_ = server_.bind_to_any_port("127.0.0.1");
        if (port_ <= 0) return false;
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        // A stop() before the loop runs would be lost and the join below would never return.
        while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return true;
    }
    ~FakeBmc() {
        server_.stop();
        if (thread_.joinable()) thread_.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    int posts() const {
        std::lock_guard lock(mutex_);
        return posts_;
    }
    std::string lastBody() const {
        std::lock_guard lock(mutex_);
        return lastBody_;
    }

private:
    static void reply(httplib::Response& response, const std::string& json) {
        response.set_content(json, "application/json");
    }
    std::string task(const std::string& state) const {
        const bool bad = state == "Exception";
        return R"({"@odata.id":"/redfish/v1/TaskService/Tasks/0","@odata.type":"#Task.v1_4_3.Task","Id":"0","TaskState":")" +
               state + R"(","TaskStatus":")" + (bad ? "Critical" : "OK") +
               R"(","TaskMonitor":"/redfish/v1/TaskService/Tasks/0/Monitor","Messages":[)" +
               (bad ? R"({"MessageId":"TaskEvent.1.0.3.TaskAborted","Message":"The task with Id '0' has completed with errors."},{"Message":"Host power sequencer fault."})"
                    : "") +
               "]}";
    }
    bool authorised(const httplib::Request& request, httplib::Response& response) {
        const std::string expected = httplib::make_basic_authentication_header("root", password).second;
        if (request.get_header_value("Authorization") == expected) return true;
        response.status = 401;
        response.set_content(redfishError("InsufficientPrivilege",
                                          "There are insufficient privileges for the account or credentials associated "
                                          "with the current session to perform the requested operation."),
                             "application/json");
        return false;
    }

    httplib::Server server_;
    std::thread thread_;
    int port_ = 0;
    mutable std::mutex mutex_;
    int posts_ = 0, offLeft_ = 0, taskPolls_ = 0;
    std::string lastBody_;
};

BmcEndpoint endpoint(const std::string& url, const std::string& password = "s3cret") {
    BmcEndpoint bmc;
    bmc.url = url;
    bmc.credentials = {"root", password};
    bmc.timeout = std::chrono::milliseconds(3000);
    return bmc;
}

RedfishResetSettings quick() {
    RedfishResetSettings settings;
    settings.taskTimeout = std::chrono::seconds(30);
    settings.powerOnTimeout = std::chrono::seconds(30);
    settings.settle = std::chrono::seconds(30);
    return settings;
}

// Polls until finished (at most `polls`).
ResetProgress follow(RedfishReset& reset, const std::string& handle, int polls = 20) {
    ResetProgress progress;
    for (int i = 0; i < polls; ++i) {
        progress = reset.poll(handle);
        if (progress.finished) return progress;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return progress;
}

}  // namespace redfish_reset_test
