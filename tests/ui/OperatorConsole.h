#pragma once
// The console as an operator runs it against one real fleetd: the store, the telemetry
// connection, the control client with the operator's bearer token, and the main window over them
// (1600 x 1000, shown). start() connects both and waits for the racks and the right to act.

#include "MainWindow.h"

#include "ControlClient.h"
#include "EndpointConnection.h"
#include "FleetStore.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace watchfloor::testing {

// A file only its owner may read, in `dir`: fleetd refuses a token table others can read.
inline QString writePrivateFile(const QTemporaryDir& dir, const char* name, const QByteArray& text) {
    QFile file(dir.filePath(QLatin1String(name)));
    if (!file.open(QIODevice::WriteOnly)) qFatal("cannot write %s", name);
    file.write(text);
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return file.fileName();
}

struct OperatorConsole {
    client::FleetStore store;
    client::EndpointConnection connection;
    client::ControlClient control;
    ui::PageContext context;
    ui::MainWindow window;

    // `detail`: what the console subscribes to (watchfloor subscribes at FULL outside the war room).
    OperatorConsole(const QString& target, const QString& token,
                    watchfloor::v1::DetailLevel detail = watchfloor::v1::DETAIL_LEVEL_UNSPECIFIED)
        : connection(endpointConfig(target, detail)),
          control(target, bearer(token)),
          context(pageContext()),
          window(context, ui::MainWindowOptions{}) {
        store.attach(&connection);
        window.resize(1600, 1000);
        window.show();
    }

    void start() {
        connection.start();
        control.start();
    }
    // fleetd's racks arrived and this operator may act (QTRY_VERIFY it after start()).
    bool ready() const { return store.rackCount() > 0 && control.canAct(); }

private:
    static client::EndpointConfig endpointConfig(const QString& target, watchfloor::v1::DetailLevel detail) {
        client::EndpointConfig config;
        config.target = target;
        if (detail != watchfloor::v1::DETAIL_LEVEL_UNSPECIFIED) config.detail = detail;
        return config;
    }
    static client::ChannelSecurity bearer(const QString& token) {
        client::ChannelSecurity security;
        security.bearerToken = token;
        return security;
    }
    ui::PageContext pageContext() {
        ui::PageContext c;
        c.store = &store;
        c.connections = {&connection};
        c.controls = {&control};
        return c;
    }
};

}  // namespace watchfloor::testing
