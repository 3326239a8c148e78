#include "TrayBmcs.h"

#include "JsonWriter.h"

#include <httplib.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace watchfloor::server::exporters {
namespace v1 = watchfloor::v1;

namespace {

const std::string kRoot(kRedfishRoot);
const std::string kTasks = kRoot + "/TaskService/Tasks";

std::string systemPath(const std::string& tray) { return kRoot + "/Systems/" + tray; }

std::string nowIso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S+00:00", &utc);
    return text;
}

RedfishAnswer notFound(std::string_view path) {
    return {404, redfishError("Base.1.19.ResourceNotFound", "There is no resource at " + std::string(path) + ".")};
}

void header(JsonWriter& w, std::string_view type, const std::string& path) {
    w.key("@odata.type").string(type).key("@odata.id").string(path);
}

// The ResetType named in a POST body ({"ResetType": "..."}), by hand: the body is one flat object.
std::string resetTypeOf(std::string_view body) {
    const auto key = body.find("\"ResetType\"");
    if (key == std::string_view::npos) return {};
    const auto open = body.find('"', body.find(':', key) + 1);
    const auto close = open == std::string_view::npos ? open : body.find('"', open + 1);
    return close == std::string_view::npos ? std::string() : std::string(body.substr(open + 1, close - open - 1));
}

}  // namespace

TrayBmcs::TrayBmcs(const v1::Topology& topology, TrayBmcOptions options) : options_(std::move(options)) {
    for (const auto& node : topology.nodes()) trays_.push_back(node.name());
    std::sort(trays_.begin(), trays_.end());
    if (!options_.user.empty())
        expectedAuthorization_ = httplib::make_basic_authentication_header(options_.user, options_.password).second;
}

bool TrayBmcs::authorised(std::string_view authorization) const {
    return expectedAuthorization_.empty() || authorization == expectedAuthorization_;
}

bool TrayBmcs::isTray(std::string_view name) const {
    return std::binary_search(trays_.begin(), trays_.end(), name, std::less<>());
}

void TrayBmcs::refresh(Task& task) {
    if (task.finished) return;
    const control::RepairProgress now = options_.repairs->poll(task.step, task.handle);
    task.ratio = now.ratio;
    task.message = now.message;
    if (!now.finished) return;
    task.finished = true;
    // The reset happened either way; whether it cleared the fault is for diagnostics to tell.
    task.succeeded = true;
    task.endTime = nowIso8601();
    runningOn_.erase(task.tray);
}

std::string TrayBmcs::powerState(const std::string& tray) {
    const auto running = runningOn_.find(tray);
    if (running == runningOn_.end()) return "On";
    Task& task = tasks_.at(running->second);
    refresh(task);
    if (task.finished) return "On";
    return task.ratio < 0.5 ? "Off" : "PoweringOn";
}

std::optional<RedfishAnswer> TrayBmcs::get(const std::vector<std::string_view>& s, std::string_view path) {
    if (s.empty()) return std::nullopt;
    std::lock_guard lock(mutex_);
    if (s[0] == "Systems") {
        if (s.size() == 1) {
            JsonWriter w;
            w.beginObject();
            header(w, "#ComputerSystemCollection.ComputerSystemCollection", kRoot + "/Systems");
            w.key("Name").string("Computer System Collection");
            w.key("Members@odata.count").integer(static_cast<long long>(trays_.size()));
            w.key("Members").beginArray();
            for (const auto& tray : trays_) w.beginObject().key("@odata.id").string(systemPath(tray)).endObject();
            w.endArray().endObject();
            return RedfishAnswer{200, w.take()};
        }
        const std::string tray(s[1]);
        if (!isTray(tray)) return notFound(path);
        if (s.size() == 2) return RedfishAnswer{200, system(tray)};
        if (s.size() == 3 && s[2] == "ResetActionInfo") return RedfishAnswer{200, actionInfo(tray)};
        return notFound(path);
    }
    if (s[0] == "Chassis" && s.size() == 2 && isTray(s[1])) return RedfishAnswer{200, chassis(std::string(s[1]))};
    if (s[0] != "TaskService") return std::nullopt;
    if (s.size() == 1) return RedfishAnswer{200, taskService()};
    if (s[1] != "Tasks") return notFound(path);
    if (s.size() == 2) return RedfishAnswer{200, tasks()};
    std::uint64_t id = 0;
    const std::string idText(s[2]);
    if (std::sscanf(idText.c_str(), "%lu", &id) != 1 || std::to_string(id) != idText || !tasks_.count(id))
        return notFound(path);
    Task& found = tasks_.at(id);
    refresh(found);
    if (s.size() == 3) return RedfishAnswer{200, task(found)};
    // DSP0266's task monitor: 202 and the Task while it runs, then the action's own answer (204).
    if (s.size() == 4 && s[3] == "Monitor")
        return found.finished ? RedfishAnswer{204, {}} : RedfishAnswer{202, task(found)};
    return notFound(path);
}

TrayBmcs::Posted TrayBmcs::post(std::string_view path, std::string_view body) {
    const std::string prefix = kRoot + "/Systems/";
    constexpr std::string_view kAction = "/Actions/ComputerSystem.Reset";
    const bool reset = path.starts_with(prefix) && path.ends_with(kAction);
    const std::string tray =
        reset ? std::string(path.substr(prefix.size(), path.size() - prefix.size() - kAction.size())) : std::string();
    if (!reset || !isTray(tray))
        return {{405, redfishError("Base.1.19.OperationNotAllowed",
                                   "The twin's Redfish service takes only ComputerSystem.Reset of a tray.")},
                {}};
    const std::string type = resetTypeOf(body);
    if (std::find(std::begin(kTwinResetTypes), std::end(kTwinResetTypes), type) == std::end(kTwinResetTypes))
        return {{400, redfishError("Base.1.19.ActionParameterValueNotInList",
                                   "The value '" + type +
                                       "' for the parameter ResetType in the action ComputerSystem.Reset is not in "
                                       "the list of acceptable values.")},
                {}};
    std::lock_guard lock(mutex_);
    if (runningOn_.count(tray))
        return {{409, redfishError("Base.1.19.ResourceInUse",
                                   "The change to the requested resource failed because the resource is in use or "
                                   "in transition: " +
                                       tray + " is being reset.")},
                {}};
    Task task;
    task.id = std::to_string(nextTask_);
    task.tray = tray;
    task.resetType = type;
    task.step.type = type == "PowerCycle" ? v1::ACTION_TYPE_POWER_CYCLE_NODE : v1::ACTION_TYPE_REBOOT_NODE;
    task.step.node = tray;
    task.step.reason = "bmc: ComputerSystem.Reset " + type;
    task.step.operationId = "bmc-task-" + task.id;
    task.startTime = nowIso8601();
    const control::RepairProgress started = options_.repairs->start(task.step);
    if (started.outcome.handle().empty())
        return {{409, redfishError("Base.1.19.ResourceInUse",
                                   "The change to the requested resource failed because the resource is in use or "
                                   "in transition: " +
                                       started.message)},
                {}};
    task.handle = started.outcome.handle();
    task.message = started.message;
    const std::uint64_t id = nextTask_++;
    runningOn_[tray] = id;
    const std::string monitor = kTasks + "/" + task.id + "/Monitor";
    return {{202, this->task(tasks_.emplace(id, std::move(task)).first->second)}, monitor};
}

std::string TrayBmcs::system(const std::string& tray) {
    JsonWriter w;
    w.beginObject();
    header(w, "#ComputerSystem.v1_22_0.ComputerSystem", systemPath(tray));
    w.key("Id").string(tray).key("Name").string("Compute tray " + tray);
    w.key("SystemType").string("Physical");
    const std::string power = powerState(tray);
    w.key("PowerState").string(power);
    w.key("Status").beginObject().key("State").string(power == "On" ? "Enabled" : "StandbyOffline");
    w.key("Health").string("OK").endObject();
    w.key("Actions").beginObject().key("#ComputerSystem.Reset").beginObject();
    w.key("target").string(systemPath(tray) + "/Actions/ComputerSystem.Reset");
    w.key("@Redfish.ActionInfo").string(systemPath(tray) + "/ResetActionInfo");
    w.endObject().endObject();
    w.key("Links").beginObject().key("Chassis").beginArray();
    w.beginObject().key("@odata.id").string(kRoot + "/Chassis/" + tray).endObject();
    w.endArray().endObject();
    w.endObject();
    return w.take();
}

std::string TrayBmcs::actionInfo(const std::string& tray) const {
    JsonWriter w;
    w.beginObject();
    header(w, "#ActionInfo.v1_1_2.ActionInfo", systemPath(tray) + "/ResetActionInfo");
    w.key("Id").string("ResetActionInfo").key("Name").string("Reset Action Info");
    w.key("Parameters").beginArray().beginObject();
    w.key("Name").string("ResetType").key("Required").boolean(true).key("DataType").string("String");
    w.key("AllowableValues").beginArray();
    for (const std::string_view type : kTwinResetTypes) w.string(type);
    w.endArray().endObject().endArray();
    w.endObject();
    return w.take();
}

std::string TrayBmcs::chassis(const std::string& tray) const {
    JsonWriter w;
    w.beginObject();
    header(w, "#Chassis.v1_28_0.Chassis", kRoot + "/Chassis/" + tray);
    w.key("Id").string(tray).key("Name").string("Chassis of compute tray " + tray);
    w.key("ChassisType").string("RackMount");
    w.key("Status").beginObject().key("State").string("Enabled").key("Health").string("OK").endObject();
    w.key("Links").beginObject().key("ComputerSystems").beginArray();
    w.beginObject().key("@odata.id").string(systemPath(tray)).endObject();
    w.endArray().endObject();
    w.endObject();
    return w.take();
}

std::string TrayBmcs::taskService() const {
    JsonWriter w;
    w.beginObject();
    header(w, "#TaskService.v1_2_1.TaskService", kRoot + "/TaskService");
    w.key("Id").string("TaskService").key("Name").string("Task Service");
    w.key("ServiceEnabled").boolean(true);
    w.key("CompletedTaskOverWritePolicy").string("Oldest");
    w.key("LifeCycleEventOnTaskStateChange").boolean(false);
    w.key("Status").beginObject().key("State").string("Enabled").key("Health").string("OK").endObject();
    w.link("Tasks", kTasks);
    w.endObject();
    return w.take();
}

std::string TrayBmcs::tasks() const {
    JsonWriter w;
    w.beginObject();
    header(w, "#TaskCollection.TaskCollection", kTasks);
    w.key("Name").string("Task Collection");
    w.key("Members@odata.count").integer(static_cast<long long>(tasks_.size()));
    w.key("Members").beginArray();
    for (const auto& [id, task] : tasks_)
        w.beginObject().key("@odata.id").string(kTasks + "/" + std::to_string(id)).endObject();
    w.endArray().endObject();
    return w.take();
}

std::string TrayBmcs::task(const Task& task) const {
    JsonWriter w;
    w.beginObject();
    header(w, "#Task.v1_4_3.Task", kTasks + "/" + task.id);
    w.key("Id").string(task.id).key("Name").string("ComputerSystem.Reset " + task.resetType + " of " + task.tray);
    w.key("TaskState").string(task.finished ? "Completed" : "Running");
    if (task.finished) w.key("TaskStatus").string("OK");
    w.key("StartTime").string(task.startTime);
    if (task.finished) w.key("EndTime").string(task.endTime);
    w.key("PercentComplete").integer(task.finished ? 100 : static_cast<long long>(task.ratio * 100));
    w.key("TaskMonitor").string(kTasks + "/" + task.id + "/Monitor");
    w.key("Messages").beginArray();
    if (!task.message.empty())
        w.beginObject()
            .key("MessageId")
            .string(task.finished ? "TaskEvent.1.0.3.TaskCompletedOK" : "TaskEvent.1.0.3.TaskStarted")
            .key("Message")
            .string(task.message)
            .key("MessageArgs")
            .beginArray()
            .string(task.id)
            .endArray()
            .key("MessageSeverity")
            .string("OK")
            .endObject();
    w.endArray();
    w.endObject();
    return w.take();
}

}  // namespace watchfloor::server::exporters
