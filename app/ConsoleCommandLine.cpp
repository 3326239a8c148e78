#include "ConsoleCommandLine.h"

#include "ConsoleSettings.h"

#include <QCommandLineParser>

namespace watchfloor::app {

namespace {

std::optional<int> parseNonNegative(const QString& text) {
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < 0) return std::nullopt;
    return value;
}

}  // namespace

CommandLineOutcome parseCommandLine(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Watchfloor: fleet operations console for NVL72 GPU training racks."));
    const QCommandLineOption endpoint(QStringLiteral("endpoint"),
                                      QStringLiteral("fleetd endpoint host:port (repeat to merge several)."),
                                      QStringLiteral("HOST:PORT"));
    const QCommandLineOption page(QStringLiteral("page"),
                                  QStringLiteral("Page to open: %1.").arg(ui::allPageKeys().join(QStringLiteral(", "))),
                                  QStringLiteral("NAME"));
    const QCommandLineOption select(QStringLiteral("select"),
                                    QStringLiteral("Entity to show (rack, node, GPU, link, job, region name)."),
                                    QStringLiteral("ENTITY"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Render the page (1920x1080 unless --size) into FILE.png and exit."),
        QStringLiteral("FILE.png"));
    const QCommandLineOption timeout(QStringLiteral("timeout"),
                                     QStringLiteral("Seconds to wait for live data before --screenshot gives up "
                                                    "or, with several endpoints, renders those that are live and "
                                                    "marks the rest (default 30)."),
                                     QStringLiteral("SECONDS"));
    const QCommandLineOption settle(QStringLiteral("settle"),
                                    QStringLiteral("Seconds to keep streaming after live data arrives, before "
                                                   "--screenshot renders (default 2)."),
                                    QStringLiteral("SECONDS"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("Size of the --screenshot in pixels, e.g. 3840x2160 (default "
                                                 "1920x1080)."),
                                  QStringLiteral("WxH"));
    const QCommandLineOption warRoom(QStringLiteral("war-room"),
                                     QStringLiteral("Full-screen, read-only, high-contrast wall display."));
    const QCommandLineOption rotate(QStringLiteral("rotate"),
                                    QStringLiteral("War room: show the next page every SECONDS."),
                                    QStringLiteral("SECONDS"));
    const QCommandLineOption pages(QStringLiteral("pages"),
                                   QStringLiteral("War room: comma-separated pages to rotate through."),
                                   QStringLiteral("LIST"));
    const QCommandLineOption screen(QStringLiteral("screen"), QStringLiteral("Monitor to use, from 0."),
                                    QStringLiteral("N"));
    const QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("dark, light or high-contrast."),
                                   QStringLiteral("THEME"));
    const QCommandLineOption settings(QStringLiteral("settings"),
                                      QStringLiteral("Settings file to use instead of the user's."),
                                      QStringLiteral("FILE"));
    const QCommandLineOption tokenFile(
        QStringLiteral("token-file"),
        QStringLiteral("File holding the bearer token for operator actions (one line; must not be readable by "
                       "group or others: chmod 600). Sent only over TLS or to a fleetd on this machine."),
        QStringLiteral("FILE"));
    const QCommandLineOption caCert(QStringLiteral("ca-cert"),
                                    QStringLiteral("Connect with TLS, trusting the CA in this PEM file."),
                                    QStringLiteral("FILE"));
    const QCommandLineOption clientCert(QStringLiteral("client-cert"),
                                        QStringLiteral("Client certificate (PEM) for fleetd's mTLS; needs --client-key "
                                                       "and --ca-cert."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption clientKey(QStringLiteral("client-key"),
                                       QStringLiteral("Private key (PEM) of --client-cert."), QStringLiteral("FILE"));
    parser.addOptions({endpoint, page, select, screenshot, timeout, settle, size, warRoom, rotate, pages, screen, theme,
                       settings, tokenFile, caCert, clientCert, clientKey});
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();

    CommandLineOutcome outcome;
    auto fail = [&](const QString& message) {
        outcome.kind = CommandLineOutcome::Kind::UsageError;
        outcome.message = message;
        return outcome;
    };
    if (!parser.parse(arguments)) return fail(parser.errorText());
    if (parser.isSet(help)) {
        outcome.kind = CommandLineOutcome::Kind::ShowHelp;
        outcome.message = parser.helpText();
        return outcome;
    }
    if (parser.isSet(version)) {
        outcome.kind = CommandLineOutcome::Kind::ShowVersion;
        return outcome;
    }
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));

    LaunchOptions& o = outcome.options;
    for (const QString& value : parser.values(endpoint)) {
        if (!ui::isValidEndpoint(value))
            return fail(QStringLiteral("--endpoint '%1' is not HOST:PORT with a port in 1..65535").arg(value));
        if (!o.endpoints.contains(value)) o.endpoints << value;
    }
    if (parser.isSet(page)) {
        o.page = ui::pageFromKey(parser.value(page));
        if (!o.page)
            return fail(QStringLiteral("--page '%1' is not one of %2")
                            .arg(parser.value(page), ui::allPageKeys().join(QStringLiteral(", "))));
    }
    o.selectEntity = parser.value(select).trimmed();
    if (parser.isSet(select) && o.selectEntity.isEmpty()) return fail(QStringLiteral("--select needs an entity name"));

    o.screenshotPath = parser.value(screenshot);
    if (parser.isSet(screenshot)) {
        if (!o.screenshotPath.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive))
            return fail(QStringLiteral("--screenshot '%1' must name a .png file").arg(o.screenshotPath));
        if (o.endpoints.isEmpty()) return fail(QStringLiteral("--screenshot needs at least one --endpoint"));
    }
    for (auto [option, target] : {std::pair{&timeout, &o.screenshotTimeout}, std::pair{&settle, &o.screenshotSettle}}) {
        if (!parser.isSet(*option)) continue;
        if (!parser.isSet(screenshot))
            return fail(QStringLiteral("--%1 only applies with --screenshot").arg(option->names().first()));
        const auto seconds = parseNonNegative(parser.value(*option));
        if (!seconds || (option == &timeout && *seconds == 0))
            return fail(QStringLiteral("--%1 '%2' is not a whole number of seconds")
                            .arg(option->names().first(), parser.value(*option)));
        *target = std::chrono::seconds(*seconds);
    }

    if (parser.isSet(size)) {
        if (!parser.isSet(screenshot)) return fail(QStringLiteral("--size only applies with --screenshot"));
        const QStringList parts = parser.value(size).split(u'x', Qt::KeepEmptyParts, Qt::CaseInsensitive);
        const auto width = parts.size() == 2 ? parseNonNegative(parts[0]) : std::nullopt;
        const auto height = parts.size() == 2 ? parseNonNegative(parts[1]) : std::nullopt;
        // Below 640x360 no page lays out; above 8K the image alone would be over 130 MB.
        if (!width || !height || *width < 640 || *height < 360 || *width > 7680 || *height > 4320)
            return fail(QStringLiteral("--size '%1' is not WIDTHxHEIGHT between 640x360 and 7680x4320")
                            .arg(parser.value(size)));
        o.screenshotSize = QSize(*width, *height);
    }

    o.warRoom = parser.isSet(warRoom);
    if (parser.isSet(rotate)) {
        const auto seconds = parseNonNegative(parser.value(rotate));
        if (!seconds || *seconds < 1)
            return fail(QStringLiteral("--rotate '%1' is not a positive number of seconds").arg(parser.value(rotate)));
        o.rotateInterval = std::chrono::seconds(*seconds);
    }
    if (parser.isSet(pages)) {
        for (const QString& key : parser.value(pages).split(u',', Qt::SkipEmptyParts)) {
            const auto id = ui::pageFromKey(key);
            if (!id)
                return fail(QStringLiteral("--pages: '%1' is not one of %2")
                                .arg(key, ui::allPageKeys().join(QStringLiteral(", "))));
            o.rotatePages << *id;
        }
        if (o.rotatePages.isEmpty()) return fail(QStringLiteral("--pages needs at least one page"));
    }
    if ((parser.isSet(rotate) || parser.isSet(pages)) && !o.warRoom)
        return fail(QStringLiteral("--rotate and --pages only apply with --war-room"));

    if (parser.isSet(screen)) {
        o.screen = parseNonNegative(parser.value(screen));
        if (!o.screen)
            return fail(QStringLiteral("--screen '%1' is not a monitor number (0, 1, ...)").arg(parser.value(screen)));
    }
    if (parser.isSet(theme)) {
        if (!ui::themeFromKey(parser.value(theme)))
            return fail(QStringLiteral("--theme '%1' is not dark, light or high-contrast").arg(parser.value(theme)));
        o.theme = parser.value(theme);
    }
    o.settingsFile = parser.value(settings);

    for (auto [option, target] : {std::pair{&tokenFile, &o.tokenFile}, std::pair{&caCert, &o.caCertFile},
                                  std::pair{&clientCert, &o.clientCertFile}, std::pair{&clientKey, &o.clientKeyFile}}) {
        if (!parser.isSet(*option)) continue;
        *target = parser.value(*option).trimmed();
        if (target->isEmpty()) return fail(QStringLiteral("--%1 needs a file name").arg(option->names().first()));
    }
    if (o.clientCertFile.isEmpty() != o.clientKeyFile.isEmpty())
        return fail(QStringLiteral("--client-cert and --client-key go together (the certificate and its key)"));
    if (!o.clientCertFile.isEmpty() && o.caCertFile.isEmpty())
        return fail(QStringLiteral("--client-cert needs --ca-cert: a client certificate is only sent over TLS"));
    return outcome;
}

}  // namespace watchfloor::app
