#pragma once
// The console's transport security from its command line: reads the bearer token from
// --token-file and checks the TLS files, before anything is dialled.
//
// Decision: a token file readable by group or others is an ERROR (exit 2), not a warning — the
// token lets its holder drain nodes and isolate racks, and fleetd refuses its own --tokens file in
// the same case. So is a token that would travel in plaintext to a fleetd on another machine.

#include "ConsoleCommandLine.h"

#include "ChannelSecurity.h"

#include <QString>
#include <QStringList>

namespace watchfloor::app {

struct ChannelSecurityOutcome {
    client::ChannelSecurity security;
    QString error;  // operator words naming the flag and the file; empty when usable
};

// Reads the token (first non-empty line that is not a '#' comment, trimmed; no spaces inside) and
// checks the PEM files are readable, then applies client::securityProblem() to every endpoint.
ChannelSecurityOutcome loadChannelSecurity(const LaunchOptions& options, const QStringList& endpoints);

}  // namespace watchfloor::app
