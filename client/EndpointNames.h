#pragma once
// Short, readable names for the endpoints of a merged console, unique among them. They qualify an
// entity name that exists on several endpoints ("eu-fleet/r01") and name the endpoint in the status
// bar, banner and Fleet page. A "127.0.0.1:50552/r01" label is elided to "127.0.0.…" on a rack tile;
// the shortest thing that tells endpoints apart is not.

#include <QSet>
#include <QString>
#include <QStringList>

#include <vector>

namespace watchfloor::client {

struct EndpointIdentity {
    QString label;      // given by whoever configured the endpoint; empty: none given
    QString target;     // "host:port"; empty for a data source without a connection
    QString fleetName;  // the topology's fleet name; empty before the first snapshot
};

namespace detail {

// "host:port", "[::1]:port" or "unix:/path": the host part and the port (empty when none).
inline std::pair<QString, QString> splitTarget(const QString& target) {
    const int colon = target.lastIndexOf(u':');
    if (colon <= 0 || target.startsWith(QStringLiteral("unix:")) || target.mid(colon + 1).toInt() <= 0) {
        return {target, {}};
    }
    QString host = target.left(colon);
    if (host.startsWith(u'[') && host.endsWith(u']')) host = host.mid(1, host.size() - 2);
    return {host, target.mid(colon + 1)};
}

template <typename Key>
int countOf(const std::vector<EndpointIdentity>& endpoints, Key key, const QString& value) {
    int n = 0;
    for (const EndpointIdentity& e : endpoints) n += key(e).compare(value, Qt::CaseInsensitive) == 0 ? 1 : 0;
    return n;
}

}  // namespace detail

// For each endpoint, in order: its given label; else its fleet name when no other endpoint has that
// name; else its host when no other endpoint is on that host; else ":<port>"; else its target.
// A name another endpoint already uses is never returned twice (the later one gets "#<n>").
inline QStringList shortEndpointNames(const std::vector<EndpointIdentity>& endpoints) {
    auto fleetOf = [](const EndpointIdentity& e) { return e.fleetName; };
    auto hostOf = [](const EndpointIdentity& e) { return detail::splitTarget(e.target).first; };
    QStringList names;
    QSet<QString> taken;
    for (const EndpointIdentity& e : endpoints) {
        const auto [host, port] = detail::splitTarget(e.target);
        QString name;
        if (!e.label.isEmpty()) {
            name = e.label;
        } else if (!e.fleetName.isEmpty() && detail::countOf(endpoints, fleetOf, e.fleetName) == 1) {
            name = e.fleetName;
        } else if (!host.isEmpty() && detail::countOf(endpoints, hostOf, host) == 1) {
            name = host;
        } else if (!port.isEmpty()) {
            name = QLatin1Char(':') + port;
        } else {
            name = e.target;
        }
        if (name.isEmpty()) name = QStringLiteral("#%1").arg(names.size() + 1);
        if (taken.contains(name.toLower())) name += QStringLiteral("#%1").arg(names.size() + 1);
        taken.insert(name.toLower());
        names << name;
    }
    return names;
}

}  // namespace watchfloor::client
