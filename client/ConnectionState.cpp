#include "ConnectionState.h"

#include "Freshness.h"

namespace watchfloor::client {

QString displayName(ConnectionState s) {
    switch (s) {
    case ConnectionState::Disconnected: return QStringLiteral("Disconnected");
    case ConnectionState::Connecting: return QStringLiteral("Connecting");
    case ConnectionState::Live: return QStringLiteral("Live");
    case ConnectionState::Stale: return QStringLiteral("Stale");
    case ConnectionState::Reconnecting: return QStringLiteral("Reconnecting");
    case ConnectionState::Incompatible: return QStringLiteral("Incompatible");
    }
    return QStringLiteral("Unknown");
}

QString displayName(Freshness f) {
    switch (f) {
    case Freshness::Fresh: return QStringLiteral("Fresh");
    case Freshness::Stale: return QStringLiteral("Stale");
    case Freshness::Missing: return QStringLiteral("Missing");
    case Freshness::Blank: return QStringLiteral("Blank");
    case Freshness::Silent: return QStringLiteral("Source silent");
    }
    return QStringLiteral("Unknown");
}

}  // namespace watchfloor::client
