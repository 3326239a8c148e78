// watchfloor: the fleet operations console. Parses the command line, loads settings, connects
// to every fleetd endpoint, and opens the main window, the war-room wall, or a headless render.

#include "ConsoleCommandLine.h"
#include "ConsoleSecurity.h"
#include "ScreenshotRunner.h"

#include "ConsoleSettings.h"
#include "MainWindow.h"

#include "ControlClient.h"
#include "EndpointConnection.h"
#include "FleetStore.h"

#include <QApplication>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>

#include <cstdio>
#include <memory>
#include <vector>

using namespace watchfloor;

namespace {

void printLine(FILE* stream, const QString& text) {
    std::fprintf(stream, "%s\n", qPrintable(text));
    std::fflush(stream);
}

std::unique_ptr<QSettings> openSettings(const QString& file) {
    if (!file.isEmpty()) return std::make_unique<QSettings>(file, QSettings::IniFormat);
    return std::make_unique<QSettings>(QSettings::IniFormat, QSettings::UserScope, QStringLiteral("Watchfloor"),
                                       QStringLiteral("watchfloor"));
}

void placeOnScreen(QWidget& window, std::optional<int> screenIndex, QStringList& warnings) {
    const QList<QScreen*> screens = QGuiApplication::screens();
    if (!screenIndex) return;
    if (*screenIndex >= screens.size()) {
        warnings << QStringLiteral("--screen %1: there are only %2 monitors (0..%3); using the primary.")
                        .arg(*screenIndex)
                        .arg(screens.size())
                        .arg(screens.size() - 1);
        return;
    }
    QScreen* screen = screens[*screenIndex];
    window.setScreen(screen);
    window.move(screen->geometry().topLeft());
}

}  // namespace

int main(int argc, char** argv) {
    QApplication::setApplicationName(QStringLiteral("watchfloor"));
    QApplication::setOrganizationName(QStringLiteral("Watchfloor"));
    QApplication::setApplicationVersion(QStringLiteral(WATCHFLOOR_VERSION));

    // The command line is checked before any window system is touched, so a bad argument is a
    // usage error (exit 2) even where no display is available.
    QStringList arguments;
    for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
    const app::CommandLineOutcome outcome = app::parseCommandLine(arguments);
    switch (outcome.kind) {
    case app::CommandLineOutcome::Kind::UsageError:
        printLine(stderr,
                  QStringLiteral("watchfloor: %1\nRun 'watchfloor --help' for the options.").arg(outcome.message));
        return 2;
    case app::CommandLineOutcome::Kind::ShowHelp: printLine(stdout, outcome.message); return 0;
    case app::CommandLineOutcome::Kind::ShowVersion:
        printLine(stdout, QStringLiteral("watchfloor %1").arg(QApplication::applicationVersion()));
        return 0;
    case app::CommandLineOutcome::Kind::Run: break;
    }
    const app::LaunchOptions& options = outcome.options;
    const bool headless = !options.screenshotPath.isEmpty();
    if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);

    std::unique_ptr<QSettings> settingsStore = openSettings(options.settingsFile);
    ui::LoadedSettings loaded = ui::loadConsoleSettings(*settingsStore);
    QStringList warnings = loaded.warnings;
    ui::ConsoleSettings settings = loaded.settings;

    QStringList endpoints = options.endpoints;
    if (endpoints.isEmpty()) endpoints = settings.endpoints;
    if (endpoints.isEmpty()) endpoints << QStringLiteral("127.0.0.1:50551");

    // A token file others can read, or a token that would cross the network in plaintext, stops
    // the console here (exit 2) rather than connecting in a way the operator did not intend.
    const app::ChannelSecurityOutcome security = app::loadChannelSecurity(options, endpoints);
    if (!security.error.isEmpty()) {
        printLine(stderr, QStringLiteral("watchfloor: %1").arg(security.error));
        return 2;
    }

    client::FleetStore store;
    ui::PageContext context;
    context.store = &store;
    std::vector<std::unique_ptr<client::EndpointConnection>> connections;
    // One control channel per endpoint, beside (not shared with) the telemetry channel; the UI
    // acts on the endpoint that owns the entity.
    std::vector<std::unique_ptr<client::ControlClient>> controls;
    for (const QString& target : endpoints) {
        client::EndpointConfig config;
        config.target = target;
        config.security = security.security;
        // Per-link detail feeds the Links page. A wall display needs only racks, jobs and events.
        config.detail = options.warRoom && !headless ? v1::DETAIL_LEVEL_STANDARD : v1::DETAIL_LEVEL_FULL;
        auto connection = std::make_unique<client::EndpointConnection>(config);
        const int endpoint = store.attach(connection.get());
        context.connections.resize(endpoint + 1);
        context.connections[endpoint] = connection.get();
        connections.push_back(std::move(connection));
        controls.push_back(std::make_unique<client::ControlClient>(target, security.security));
        context.controls.resize(endpoint + 1);
        context.controls[endpoint] = controls.back().get();
    }

    ui::MainWindowOptions windowOptions;
    windowOptions.wallDisplay = options.warRoom;
    windowOptions.rotateInterval = headless ? std::chrono::seconds(0) : options.rotateInterval;
    windowOptions.rotatePages = options.rotatePages;
    windowOptions.followIncidents = !headless;  // a screenshot shows the page it was asked for
    windowOptions.theme = options.theme ? *ui::themeFromKey(*options.theme) : settings.theme;
    windowOptions.lens = settings.lens;
    ui::MainWindow window(context, windowOptions);

    for (auto& connection : connections) connection->start();
    for (auto& control : controls) control->start();

    for (const QString& warning : std::as_const(warnings))
        printLine(stderr, QStringLiteral("watchfloor: %1").arg(warning));

    if (headless) {
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.resize(options.screenshotSize);
        window.show();
        app::ScreenshotRunner::Request request;
        request.location = {options.page.value_or(ui::PageId::Fleet), options.selectEntity};
        request.path = options.screenshotPath;
        request.timeout = options.screenshotTimeout;
        request.settle = options.screenshotSettle;
        request.size = options.screenshotSize;
        app::ScreenshotRunner runner(window, store, request);
        int exitCode = 1;
        QObject::connect(&runner, &app::ScreenshotRunner::finished, &app, [&](int code, const QString& message) {
            exitCode = code;
            printLine(code == 0 ? stdout : stderr, (code == 0 ? QString() : QStringLiteral("watchfloor: ")) + message);
            app.quit();
        });
        runner.start();
        app.exec();
        return exitCode;
    }

    if (options.warRoom) {
        placeOnScreen(window, options.screen, warnings);
        window.showFullScreen();
    } else {
        window.restoreLayout(settings, &warnings);
        placeOnScreen(window, options.screen, warnings);
        window.show();
        if (options.page || !options.selectEntity.isEmpty())
            window.navigate({options.page.value_or(ui::PageId::Fleet), options.selectEntity});
        else
            window.navigate({settings.lastPage, {}});
    }
    for (const QString& warning : std::as_const(warnings).mid(loaded.warnings.size()))
        printLine(stderr, QStringLiteral("watchfloor: %1").arg(warning));
    if (!warnings.isEmpty() && !options.warRoom)
        window.statusBar()->showMessage(warnings.join(QStringLiteral("  ·  ")), 15000);

    const int result = app.exec();
    if (!options.warRoom) {
        window.storeLayout(settings);
        settings.endpoints = endpoints;
        ui::saveConsoleSettings(*settingsStore, settings);
    }
    return result;
}
