#pragma once
// A digital twin feeding a fleet store that the test ticks by hand (one simulated second per
// tick, nothing moves in between), with the twin's exporters served over HTTP on a free
// loopback port: pages then hold still long enough to compare a scraper's view with the store.

#include "DigitalTwin.h"
#include "ExporterServer.h"
#include "FleetStateStore.h"

#include <httplib.h>

#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace watchfloor::testing {

class TwinExporterHarness {
public:
    // `scenario`: scenario file text, may be empty. `fleet`: fleet file text (then `racks` is the
    // file's), may be empty.
    bool start(std::uint32_t racks, const QString& scenario, server::exporters::DcgmPageOptions dcgm = {},
               const QString& fleet = {}) {
        if (!dir_.isValid()) return fail("no temporary directory");
        server::sim::SimConfig config;
        config.seed = 7;
        config.racks = racks;
        config.regions = 1;
        if (!fleet.isEmpty()) {
            QFile file(dir_.filePath("twin.fleet"));
            if (!file.open(QIODevice::WriteOnly) || file.write(fleet.toUtf8()) < 0) return fail("cannot write fleet");
            config.fleetFile = file.fileName().toStdString();
        }
        if (!scenario.isEmpty()) {
            QFile file(dir_.filePath("exporters.scn"));
            if (!file.open(QIODevice::WriteOnly) || file.write(scenario.toUtf8()) < 0)
                return fail("cannot write scenario");
            config.scenarioFile = file.fileName().toStdString();
        }
        server::ConfigError configError;
        twin_ = server::sim::DigitalTwin::create(config, &configError);
        if (!twin_) return fail(QString::fromStdString(configError.toString()));
        store_ = std::make_unique<server::service::FleetStateStore>(twin_->topology());
        server::exporters::ExporterServerOptions options;
        options.dcgm = std::move(dcgm);
        std::string error;
        server_ = server::exporters::ExporterServer::start(*store_, options, &error);
        if (!server_) return fail(QString::fromStdString(error));
        return true;
    }

    void tick(int seconds = 1) {
        for (int i = 0; i < seconds; ++i) {
            server::FleetChanges changes;
            twin_->advanceTo(twin_->now() + std::chrono::seconds(1), changes);
            store_->apply(changes);
        }
    }

    // Samples applied as if the twin had reported them at its current time, e.g. a blank reading.
    void inject(const std::vector<server::Sample>& samples) {
        server::FleetChanges changes;
        changes.time = twin_->now();
        changes.samples = samples;
        store_->apply(changes);
    }

    // GET on the exporter server: status (0 when the request failed) and body.
    std::pair<int, std::string> get(const std::string& path) const {
        httplib::Client client(server_->host(), server_->port());
        client.set_connection_timeout(5, 0);
        client.set_read_timeout(10, 0);
        auto response = client.Get(path.c_str());
        return response ? std::pair{response->status, response->body} : std::pair{0, std::string()};
    }

    const server::service::FleetStateStore& store() const { return *store_; }
    server::exporters::ExporterServer& exporters() { return *server_; }
    const watchfloor::v1::Topology& topology() const { return twin_->topology(); }
    QString path(const QString& name) const { return dir_.filePath(name); }
    QString error() const { return error_; }

    std::uint32_t entity(const std::string& name) const { return store_->findEntity(name).value_or(UINT32_MAX); }
    // The store's newest value of one series; NaN when never reported.
    double latest(const std::string& entityName, watchfloor::v1::Metric metric) const {
        const auto value = store_->latest(entity(entityName), metric);
        return value ? value->value : std::nan("");
    }

private:
    bool fail(const QString& why) {
        error_ = why;
        return false;
    }

    QTemporaryDir dir_;
    std::unique_ptr<server::sim::DigitalTwin> twin_;
    std::unique_ptr<server::service::FleetStateStore> store_;
    std::unique_ptr<server::exporters::ExporterServer> server_;
    QString error_;
};

}  // namespace watchfloor::testing
