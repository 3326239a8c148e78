#pragma once
// A digital twin built from a fleet file (racks mapped to CDUs, connectors and leak detectors)
// feeding a fleet store the test ticks by hand, with the twin's Redfish tree answered over HTTP
// on a loopback port by a server whose answers a test can spoil path by path (an HTTP error,
// garbage, an endless body, a slow answer): the real tree everywhere else.

#include "CoolingMap.h"
#include "DigitalTwin.h"
#include "FakeStore.h"
#include "FleetSpec.h"
#include "FleetStateStore.h"
#include "RedfishTestFleet.h"
#include "RedfishTree.h"

#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace watchfloor::testing {

class TwinRedfishHarness {
public:
    // Answers the path itself when it returns true (the fault), else the tree answers.
    using Fault = std::function<bool(const httplib::Request&, httplib::Response&)>;

    bool start(const QString& scenario = {}) {
        if (!dir_.isValid()) return fail("no temporary directory");
        const QString fleet = write("site.fleet", kRedfishFleet);
        server::sim::SimConfig config;
        config.seed = 11;
        config.fleetFile = fleet.toStdString();
        if (!scenario.isEmpty()) config.scenarioFile = write("site.scn", scenario).toStdString();
        server::ConfigError error;
        spec_ = server::readFleetFile(config.fleetFile, &error);
        if (!spec_) return fail(QString::fromStdString(error.toString()));
        twin_ = server::sim::DigitalTwin::create(config, &error);
        if (!twin_) return fail(QString::fromStdString(error.toString()));
        store_ = std::make_unique<server::service::FleetStateStore>(twin_->topology());
        tree_ = std::make_unique<server::exporters::RedfishTree>(*store_, map());
        http_.answer([this](const httplib::Request& request, httplib::Response& response) {
            Fault fault;
            {
                std::lock_guard lock(mutex_);
                fault = fault_;
            }
            if (fault && fault(request, response)) return;
            auto answer = tree_->get(request.path);
            response.status = answer.status;
            response.set_content(answer.body, std::string(server::exporters::kJsonContentType));
        });
        return true;
    }

    void tick(int seconds = 1) {
        for (int i = 0; i < seconds; ++i) {
            server::FleetChanges changes;
            twin_->advanceTo(twin_->now() + std::chrono::seconds(1), changes);
            store_->apply(changes);
        }
    }

    void spoil(Fault fault) {
        std::lock_guard lock(mutex_);
        fault_ = std::move(fault);
    }

    server::redfish::CoolingMap map() const { return server::redfish::CoolingMap(twin_->topology(), &*spec_); }
    std::string url() const { return http_.url(); }
    const server::service::FleetStateStore& store() const { return *store_; }
    const watchfloor::v1::Topology& topology() const { return twin_->topology(); }
    QString error() const { return error_; }
    std::uint32_t loopOf(const std::string& rack) const { return entity(rack + "-loop"); }
    std::uint32_t entity(const std::string& name) const { return store_->findEntity(name).value_or(UINT32_MAX); }
    double latest(std::uint32_t entity, watchfloor::v1::Metric metric) const {
        const auto value = store_->latest(entity, metric);
        return value ? value->value : std::nan("");
    }

private:
    QString write(const QString& name, const QString& text) {
        QFile file(dir_.filePath(name));
        if (file.open(QIODevice::WriteOnly)) file.write(text.toUtf8());
        return file.fileName();
    }
    bool fail(const QString& why) {
        error_ = why;
        return false;
    }

    QTemporaryDir dir_;
    std::optional<server::FleetSpec> spec_;
    std::unique_ptr<server::sim::DigitalTwin> twin_;
    std::unique_ptr<server::service::FleetStateStore> store_;
    std::unique_ptr<server::exporters::RedfishTree> tree_;
    FakeStore http_;
    std::mutex mutex_;
    Fault fault_;
    QString error_;
};

}  // namespace watchfloor::testing
