#pragma once
// A site's fleet file, written to a temporary folder and read as fleetd reads it (readFleetFile,
// FleetModel): the topology the real sources map telemetry onto, and its entities by name.

#include "FleetModel.h"
#include "FleetSpec.h"

#include <QTemporaryDir>
#include <QtGlobal>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

namespace watchfloor::testing {

class SiteFleet {
public:
    explicit SiteFleet(const std::string& text) {
        const std::string path = dir_.filePath("site.fleet").toStdString();
        std::ofstream(path) << text;
        server::ConfigError error;
        auto spec = server::readFleetFile(path, &error);
        if (!spec) qFatal("%s", error.toString().c_str());
        model_ = std::make_unique<server::FleetModel>(*spec, 0);
    }
    const watchfloor::v1::Topology& topology() const { return model_->topology(); }
    // A tray's, GPU's or NIC port's entity index by its name ("r01-n03", "r01-n03-g1", "r01-n03-ib0").
    std::uint32_t entity(const std::string& name) const {
        for (const auto& n : topology().nodes())
            if (n.name() == name) return n.index();
        for (const auto& g : topology().gpus())
            if (g.name() == name) return g.index();
        for (const auto& p : topology().nic_ports())
            if (p.name() == name) return p.index();
        qFatal("no entity %s", name.c_str());
    }

private:
    QTemporaryDir dir_;
    std::unique_ptr<server::FleetModel> model_;
};

}  // namespace watchfloor::testing
