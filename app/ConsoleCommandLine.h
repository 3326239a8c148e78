#pragma once
// The `watchfloor` command line, parsed and validated without side effects so that tests can
// drive it and main() can map a bad argument to usage + exit code 2.

#include "PageId.h"

#include <QSize>
#include <QString>
#include <QStringList>
#include <QVector>

#include <chrono>
#include <optional>

namespace watchfloor::app {

struct LaunchOptions {
    QStringList endpoints;  // empty: use the saved endpoints
    std::optional<ui::PageId> page;
    QString selectEntity;                        // --select
    QString screenshotPath;                      // non-empty: headless render, then exit
    std::chrono::seconds screenshotTimeout{30};  // how long to wait for live data
    std::chrono::seconds screenshotSettle{2};    // live data then this long, so history backfills
    QSize screenshotSize{1920, 1080};            // --size WxH: e.g. 3840x2160 for a 4K wall
    bool warRoom = false;
    std::chrono::seconds rotateInterval{0};  // 0 = no rotation
    QVector<ui::PageId> rotatePages;         // --pages; empty = every page
    std::optional<int> screen;               // --screen N (0-based)
    std::optional<QString> theme;            // --theme
    QString settingsFile;                    // --settings FILE (default: the user's config)
    // Transport security for every endpoint (telemetry and control). Only paths here: the files
    // are read by loadChannelSecurity() (ConsoleSecurity.h), never the token itself from argv.
    QString tokenFile;       // --token-file FILE (mode 0600)
    QString caCertFile;      // --ca-cert FILE: TLS, trusting this CA
    QString clientCertFile;  // --client-cert FILE (mTLS, with --client-key)
    QString clientKeyFile;   // --client-key FILE
};

struct CommandLineOutcome {
    enum class Kind { Run, ShowHelp, ShowVersion, UsageError };
    Kind kind = Kind::Run;
    LaunchOptions options;
    QString message;  // the error for UsageError, the text for ShowHelp
};

// `arguments` includes the program name first, as QCoreApplication::arguments() does.
CommandLineOutcome parseCommandLine(const QStringList& arguments);

}  // namespace watchfloor::app
