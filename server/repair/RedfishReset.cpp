#include "RedfishReset.h"

#include "OneLine.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <sstream>

namespace watchfloor::server::repair {

namespace dom = simdjson::dom;

namespace {

constexpr std::string_view kSystems = "/redfish/v1/Systems";

std::string text(dom::object object, std::string_view key) {
    std::string_view value;
    return object[key].get_string().get(value) == simdjson::SUCCESS ? std::string(value) : std::string();
}

std::vector<std::string> strings(dom::object object, std::string_view key) {
    std::vector<std::string> out;
    dom::array values;
    if (object[key].get_array().get(values) != simdjson::SUCCESS) return out;
    for (dom::element value : values) {
        std::string_view item;
        if (value.get_string().get(item) == simdjson::SUCCESS) out.emplace_back(item);
    }
    return out;
}

std::string joined(const std::vector<std::string>& values) {
    std::string out;
    for (const std::string& value : values) out += (out.empty() ? "" : ", ") + value;
    return out.empty() ? "none" : out;
}

bool allows(const std::vector<std::string>& allowed, std::string_view type) {
    return std::find(allowed.begin(), allowed.end(), type) != allowed.end();
}

std::string statusText(const BmcAnswer& answer) {
    const std::string words = redfishErrorText(answer.body);
    return "HTTP " + std::to_string(answer.status) + (words.empty() ? std::string() : ": " + words);
}

bool isSuccess(int status) { return status >= 200 && status < 300; }

}  // namespace

std::int64_t redfishNowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

ResetAction readResetAction(std::string_view json) {
    ResetAction out;
    dom::parser parser;
    dom::object system;
    if (parser.parse(json.data(), json.size()).get_object().get(system) != simdjson::SUCCESS) {
        out.error = "not a JSON object: " + prom::oneLine(json, 120);
        return out;
    }
    out.powerState = text(system, "PowerState");
    dom::object reset;
    if (system["Actions"]["#ComputerSystem.Reset"].get_object().get(reset) != simdjson::SUCCESS) {
        out.error = "the system " + text(system, "@odata.id") + " has no #ComputerSystem.Reset action";
        return out;
    }
    out.target = text(reset, "target");
    out.allowed = strings(reset, "ResetType@Redfish.AllowableValues");
    out.actionInfo = text(reset, "@Redfish.ActionInfo");
    if (out.target.empty()) out.error = "the #ComputerSystem.Reset action has no target";
    return out;
}

std::vector<std::string> readActionInfo(std::string_view json, std::string* error) {
    dom::parser parser;
    dom::array parameters;
    if (parser.parse(json.data(), json.size()).get_object()["Parameters"].get_array().get(parameters) !=
        simdjson::SUCCESS) {
        *error = "the ActionInfo has no Parameters";
        return {};
    }
    for (dom::element parameter : parameters) {
        dom::object object;
        if (parameter.get_object().get(object) == simdjson::SUCCESS && text(object, "Name") == "ResetType")
            return strings(object, "AllowableValues");
    }
    *error = "the ActionInfo has no ResetType parameter";
    return {};
}

std::vector<std::string> readMembers(std::string_view json) {
    std::vector<std::string> out;
    dom::parser parser;
    dom::array members;
    if (parser.parse(json.data(), json.size()).get_object()["Members"].get_array().get(members) != simdjson::SUCCESS)
        return out;
    for (dom::element member : members) {
        dom::object object;
        if (member.get_object().get(object) == simdjson::SUCCESS) out.push_back(text(object, "@odata.id"));
    }
    return out;
}

ResetChoice chooseResetType(ResetKind kind, const std::vector<std::string>& allowed, bool allowForceRestart) {
    if (kind == ResetKind::PowerCycle) {
        if (allows(allowed, "PowerCycle")) return {"PowerCycle", {}};
        return {{}, "the BMC does not offer PowerCycle (it allows " + joined(allowed) + ")"};
    }
    if (allows(allowed, "GracefulRestart")) return {"GracefulRestart", {}};
    if (allowForceRestart && allows(allowed, "ForceRestart")) return {"ForceRestart", {}};
    return {{},
            "the BMC does not offer GracefulRestart" +
                std::string(allowForceRestart ? " or ForceRestart" : " (ForceRestart is not chosen for a reboot)") +
                " (it allows " + joined(allowed) + ")"};
}

TaskReading readTask(std::string_view json) {
    TaskReading out;
    dom::parser parser;
    dom::object task;
    if (parser.parse(json.data(), json.size()).get_object().get(task) != simdjson::SUCCESS) return out;
    out.state = text(task, "TaskState");
    out.isTask = !out.state.empty();
    out.status = text(task, "TaskStatus");
    std::int64_t percent = 0;
    if (task["PercentComplete"].get_int64().get(percent) == simdjson::SUCCESS) out.percent = int(percent);
    dom::array messages;
    if (task["Messages"].get_array().get(messages) == simdjson::SUCCESS)
        for (dom::element message : messages) {
            std::string_view words;
            if (message["Message"].get_string().get(words) == simdjson::SUCCESS)
                out.messages += (out.messages.empty() ? "" : " ") + std::string(words);
        }
    out.messages = prom::oneLine(out.messages, 300);
    return out;
}

// "<ResetType> posted@<unix ms> <system path>[ task <monitor>]": what the operation keeps.
struct RedfishReset::Handle {
    std::string resetType, system, monitor;
    std::int64_t postedMs = 0;

    std::string text() const {
        return resetType + " posted@" + std::to_string(postedMs) + " " + system +
               (monitor.empty() ? "" : " task " + monitor);
    }
    static std::optional<Handle> parse(const std::string& handle) {
        std::istringstream words(handle);
        Handle out;
        std::string posted, task;
        if (!(words >> out.resetType >> posted >> out.system) || !posted.starts_with("posted@") ||
            !out.system.starts_with("/redfish/v1/"))
            return std::nullopt;
        const std::string_view ms = std::string_view(posted).substr(7);
        if (std::from_chars(ms.data(), ms.data() + ms.size(), out.postedMs).ec != std::errc()) return std::nullopt;
        if (words >> task && (task != "task" || !(words >> out.monitor))) return std::nullopt;
        return out;
    }
};

RedfishReset::RedfishReset(BmcEndpoint bmc, RedfishResetSettings settings)
    : session_(std::move(bmc)), settings_(std::move(settings)) {}

ResetProgress RedfishReset::refused(std::string message) const {
    ResetProgress progress;
    progress.finished = true;
    progress.message = std::move(message);
    return progress;
}

std::string RedfishReset::unreached(const BmcAnswer& answer, const std::string& what) const {
    if (!answer.reached) return "BMC " + session_.endpoint().url + " unreachable: " + answer.error;
    if (answer.status == 401 || answer.status == 403)
        return "BMC " + session_.endpoint().url + " refused the credentials of user '" +
               session_.endpoint().credentials.user + "' (" + statusText(answer) + ")";
    return "BMC " + session_.endpoint().url + " answered " + what + " with " + statusText(answer);
}

std::string RedfishReset::systemPath(std::string* error) {
    if (!settings_.systemId.empty()) return std::string(kSystems) + "/" + settings_.systemId;
    const BmcAnswer systems = session_.get(std::string(kSystems));
    if (!systems.reached || !isSuccess(systems.status)) {
        *error = unreached(systems, "GET " + std::string(kSystems));
        return {};
    }
    const std::vector<std::string> members = readMembers(systems.body);
    if (members.size() != 1) {
        *error = "BMC " + session_.endpoint().url + " lists " + std::to_string(members.size()) +
                 " systems; name the tray's with the BMC's system id";
        return {};
    }
    return members.front();
}

ResetProgress RedfishReset::start(ResetKind kind, const std::string& tray) {
    std::string error;
    const std::string system = systemPath(&error);
    if (system.empty()) return refused(error);
    const BmcAnswer read = session_.get(system);
    if (!read.reached || !isSuccess(read.status)) return refused(unreached(read, "GET " + system));
    ResetAction action = readResetAction(read.body);
    if (!action.error.empty()) return refused("BMC " + session_.endpoint().url + ": " + action.error);
    if (action.allowed.empty() && !action.actionInfo.empty()) {
        const BmcAnswer info = session_.get(action.actionInfo);
        if (!info.reached || !isSuccess(info.status)) return refused(unreached(info, "GET " + action.actionInfo));
        action.allowed = readActionInfo(info.body, &error);
        if (!error.empty()) return refused("BMC " + session_.endpoint().url + ": " + error);
    }
    const ResetChoice choice = chooseResetType(kind, action.allowed, settings_.allowForceRestart);
    if (choice.resetType.empty()) {
        ResetProgress out = refused("nothing sent to " + tray + "'s BMC: " + choice.refusal);
        out.powerState = action.powerState;
        return out;
    }

    Handle handle{choice.resetType, system, {}, redfishNowMs()};
    const BmcAnswer posted = session_.post(action.target, "{\"ResetType\":\"" + choice.resetType + "\"}");
    if (!posted.reached || !isSuccess(posted.status)) {
        // An answer lost on the wire may hide a reset the BMC did start: say so rather than retry.
        ResetProgress out = refused(
            unreached(posted, "POST " + action.target + " (" + choice.resetType + ")") +
            (posted.reached ? std::string() : "; the BMC may have started the reset: check the tray before repeating"));
        out.powerState = action.powerState;
        out.resetType = choice.resetType;
        return out;
    }
    if (posted.status == 202) {
        // DSP0266: the Location header names the task monitor; bmcweb also returns the Task itself.
        handle.monitor = posted.location;
        dom::parser parser;
        std::string_view id, type;
        const auto task = parser.parse(posted.body).get_object();
        if (task["@odata.id"].get_string().get(id) == simdjson::SUCCESS &&
            task["@odata.type"].get_string().get(type) == simdjson::SUCCESS &&
            type.find("#Task.") != std::string_view::npos)
            handle.monitor = std::string(id);
        if (const auto scheme = handle.monitor.find("://"); scheme != std::string::npos)
            handle.monitor =
                handle.monitor.substr(std::min(handle.monitor.find('/', scheme + 3), handle.monitor.size()));
    }
    ResetProgress progress;
    progress.handle = handle.text();
    progress.resetType = choice.resetType;
    progress.powerState = action.powerState;
    progress.message = tray + "'s BMC accepted " + choice.resetType + " (HTTP " + std::to_string(posted.status) +
                       (handle.monitor.empty() ? std::string(")") : ", task " + handle.monitor + ")");
    followed_[progress.handle] = {handle.monitor.empty(), false};
    return progress;
}

ResetProgress RedfishReset::poll(const std::string& text) {
    const auto handle = Handle::parse(text);
    if (!handle) return refused("not a Redfish reset handle: '" + text + "'");
    Followed& followed = followed_.try_emplace(text, Followed{handle->monitor.empty(), false}).first->second;
    ResetProgress progress;
    progress.handle = text;
    progress.resetType = handle->resetType;
    const double elapsedS = double(redfishNowMs() - handle->postedMs) / 1000.0;
    const auto finish = [&](bool succeeded, std::string message) {
        followed_.erase(text);
        progress.finished = true;
        progress.succeeded = succeeded;
        progress.message = std::move(message);
        return progress;
    };

    if (!followed.taskEnded) {
        const BmcAnswer answer = session_.get(handle->monitor);
        const TaskReading task = answer.reached ? readTask(answer.body) : TaskReading{};
        const bool gone = answer.reached && answer.status == 404;  // a monitor deleted once read complete
        const bool running = answer.reached &&
                             (answer.status == 202 ||
                              (isSuccess(answer.status) && task.isTask &&
                               (task.state == "New" || task.state == "Starting" || task.state == "Running" ||
                                task.state == "Pending" || task.state == "Stopping" || task.state == "Suspended" ||
                                task.state == "Interrupted" || task.state == "Service" || task.state == "Cancelling")));
        if (answer.reached && isSuccess(answer.status) && task.isTask &&
            (task.state == "Exception" || task.state == "Killed" || task.state == "Cancelled"))
            return finish(false, "the BMC's task " + handle->monitor + " for " + handle->resetType + " ended " +
                                     task.state + (task.status.empty() ? "" : " (" + task.status + ")") +
                                     (task.messages.empty() ? "" : ": " + task.messages));
        if (answer.reached && !running && !gone && !isSuccess(answer.status))
            return finish(false, unreached(answer, "GET " + handle->monitor));
        if (running || !answer.reached) {
            if (elapsedS > double(settings_.taskTimeout.count()))
                return finish(false, "the BMC's task " + handle->monitor + " for " + handle->resetType +
                                         " did not complete within " + std::to_string(settings_.taskTimeout.count()) +
                                         " s (" +
                                         (answer.reached ? "last TaskState " + (task.state.empty() ? "202" : task.state)
                                                         : answer.error) +
                                         ")");
            progress.ratio = task.percent >= 0 ? 0.8 * task.percent / 100.0 : 0.3;
            progress.message = answer.reached ? handle->resetType + " running on the BMC (task " + handle->monitor +
                                                    (task.state.empty() ? "" : ": " + task.state) + ")"
                                              : "waiting for the BMC: " + answer.error;
            return progress;
        }
        followed.taskEnded = true;  // Completed, a final answer of the monitor, or a monitor gone
        progress.ratio = 0.8;
        progress.message = handle->resetType + " completed on the BMC; reading PowerState";
        return progress;
    }

    const BmcAnswer read = session_.get(handle->system);
    if (!read.reached || !isSuccess(read.status)) {
        // A BMC busy resetting its host may drop a request: only the deadline ends the wait.
        if (elapsedS > double(settings_.powerOnTimeout.count()))
            return finish(false, unreached(read, "GET " + handle->system) + "; PowerState not read back On within " +
                                     std::to_string(settings_.powerOnTimeout.count()) + " s of " + handle->resetType);
        progress.message = "waiting for the BMC: " + (read.reached ? statusText(read) : read.error);
        progress.ratio = 0.5;
        return progress;
    }
    progress.powerState = readResetAction(read.body).powerState;
    if (progress.powerState != "On") followed.sawOff = true;
    const bool back = progress.powerState == "On" &&
                      (followed.sawOff || !handle->monitor.empty() || elapsedS >= double(settings_.settle.count()));
    if (back)
        return finish(true, handle->resetType + " done: PowerState On" + (followed.sawOff ? " again" : "") + " after " +
                                std::to_string(std::int64_t(elapsedS)) + " s");
    if (elapsedS > double(settings_.powerOnTimeout.count()))
        return finish(false, handle->resetType + " sent, but PowerState is " +
                                 (progress.powerState.empty() ? std::string("not reported") : progress.powerState) +
                                 " " + std::to_string(std::int64_t(elapsedS)) + " s later (limit " +
                                 std::to_string(settings_.powerOnTimeout.count()) + " s)");
    progress.ratio = 0.6;
    progress.message = handle->resetType + " in progress: PowerState " +
                       (progress.powerState.empty() ? std::string("not reported") : progress.powerState);
    return progress;
}

}  // namespace watchfloor::server::repair
