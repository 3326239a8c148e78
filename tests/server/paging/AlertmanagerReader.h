#pragma once
// The test side of a real Alertmanager on loopback: its config, and what its API v2 says
// (GET /api/v2/alerts, /api/v2/silences) read with a client of its own (cpp-httplib, Qt's JSON),
// not the pager's, so the pager is checked against Alertmanager rather than against itself.

#include "LoopbackStore.h"

#include <httplib.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace watchfloor::test {

// One route to a receiver that notifies nobody: the tests read Alertmanager's state, not mail.
inline const char* const kAlertmanagerConfig =
    "route:\n"
    "  receiver: nobody\n"
    "  group_by: ['incident']\n"
    "  group_wait: 1s\n"
    "  group_interval: 1s\n"
    "receivers:\n"
    "  - name: nobody\n";

inline std::unique_ptr<LoopbackStore> startAlertmanager(std::string& error) {
    LoopbackStore::Options options;
    options.kind = StoreKind::Alertmanager;
    options.config = kAlertmanagerConfig;
    return LoopbackStore::start(options, error);
}

class AlertmanagerReader {
public:
    explicit AlertmanagerReader(int port) : client_("127.0.0.1", port) {
        client_.set_connection_timeout(std::chrono::seconds(2));
        client_.set_read_timeout(std::chrono::seconds(5));
    }
    // Alertmanager lists active, silenced and inhibited alerts; resolved ones are not listed.
    QJsonArray alerts() { return array("/api/v2/alerts"); }
    QJsonArray silences() { return array("/api/v2/silences"); }

    // The alert whose `incident` label is `id`; empty when Alertmanager lists none.
    QJsonObject alertOfIncident(const QString& id) {
        for (const auto& a : alerts())
            if (a.toObject()["labels"].toObject()["incident"].toString() == id) return a.toObject();
        return {};
    }
    QJsonObject silence(const QString& id) {
        for (const auto& s : silences())
            if (s.toObject()["id"].toString() == id) return s.toObject();
        return {};
    }

private:
    QJsonArray array(const char* path) {
        const auto answer = client_.Get(path);
        if (!answer || answer->status != 200) return {};
        return QJsonDocument::fromJson(QByteArray::fromStdString(answer->body)).array();
    }
    httplib::Client client_;
};

// Polls `condition` every 100 ms until it holds or `timeout` passes.
inline bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (condition()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return condition();
}

}  // namespace watchfloor::test
