#include "ConsoleSettings.h"

#include "RackLens.h"

#include <QFile>
#include <QSettings>
#include <QStringDecoder>

namespace watchfloor::ui {

namespace {
const QString kEndpoints = QStringLiteral("connection/endpoints");
const QString kTheme = QStringLiteral("appearance/theme");
const QString kLens = QStringLiteral("fleet/lens");
const QString kLastPage = QStringLiteral("navigation/lastPage");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
// QSettings' INI reader accepts almost anything (binary junk parses as odd keys), so a file
// that is not clean UTF-8 text is treated as corrupt before QSettings gets to guess.
bool isReadableSettingsText(const QString& path) {
    QFile file(path);
    if (!file.exists()) return true;
    if (!file.open(QIODevice::ReadOnly)) return false;
    const QByteArray bytes = file.readAll();
    if (bytes.contains('\0')) return false;
    QStringDecoder utf8(QStringDecoder::Utf8);
    (void)utf8.decode(bytes).operator QString();
    return !utf8.hasError();
}

}  // namespace

QString themeKey(ThemeChoice theme) {
    switch (theme) {
    case ThemeChoice::Dark: return QStringLiteral("dark");
    case ThemeChoice::Light: return QStringLiteral("light");
    case ThemeChoice::HighContrast: return QStringLiteral("high-contrast");
    }
    return {};
}

std::optional<ThemeChoice> themeFromKey(const QString& key) {
    for (ThemeChoice theme : {ThemeChoice::Dark, ThemeChoice::Light, ThemeChoice::HighContrast}) {
        if (themeKey(theme) == key.trimmed().toLower()) return theme;
    }
    return std::nullopt;
}

bool isValidEndpoint(const QString& endpoint) {
    const qsizetype colon = endpoint.lastIndexOf(u':');
    if (colon <= 0) return false;
    bool ok = false;
    const int port = endpoint.mid(colon + 1).toInt(&ok);
    return ok && port > 0 && port <= 65535;
}

LoadedSettings loadConsoleSettings(QSettings& store) {
    LoadedSettings loaded;
    ConsoleSettings& s = loaded.settings;
    const QString file = store.fileName();
    if (store.status() != QSettings::NoError || !isReadableSettingsText(file)) {
        const QString kept = file + QStringLiteral(".corrupt");
        QFile::remove(kept);
        const bool renamed = QFile::rename(file, kept);
        loaded.warnings << QStringLiteral("Settings file %1 could not be read; using defaults.%2")
                               .arg(file, renamed ? QStringLiteral(" The unreadable file was kept as %1.").arg(kept)
                                                  : QString());
        store.clear();
        return loaded;
    }
    auto warn = [&](const QString& key, const QString& what) {
        loaded.warnings << QStringLiteral("Settings %1: %2 is %3; using the default.").arg(file, key, what);
    };

    if (store.contains(kEndpoints)) {
        const QStringList endpoints = store.value(kEndpoints).toStringList();
        for (const QString& endpoint : endpoints) {
            if (isValidEndpoint(endpoint))
                s.endpoints << endpoint;
            else
                warn(kEndpoints, QStringLiteral("'%1' (not host:port)").arg(endpoint));
        }
    }
    if (store.contains(kTheme)) {
        const QString value = store.value(kTheme).toString();
        if (auto theme = themeFromKey(value))
            s.theme = *theme;
        else
            warn(kTheme, QStringLiteral("'%1' (known: dark, light, high-contrast)").arg(value));
    }
    if (store.contains(kLens)) {
        const QString value = store.value(kLens).toString();
        if (lensKeys().contains(value))
            s.lens = value;
        else
            warn(kLens, QStringLiteral("'%1' (known: %2)").arg(value, lensKeys().join(QStringLiteral(", "))));
    }
    if (store.contains(kLastPage)) {
        const QString value = store.value(kLastPage).toString();
        if (auto page = pageFromKey(value))
            s.lastPage = *page;
        else
            warn(kLastPage, QStringLiteral("'%1' (known: %2)").arg(value, allPageKeys().join(QStringLiteral(", "))));
    }
    // Geometry and dock state are opaque blobs; MainWindow validates them when it restores them.
    s.windowGeometry = store.value(kGeometry).toByteArray();
    s.windowState = store.value(kState).toByteArray();
    return loaded;
}

void saveConsoleSettings(QSettings& store, const ConsoleSettings& s) {
    store.setValue(kEndpoints, s.endpoints);
    store.setValue(kTheme, themeKey(s.theme));
    store.setValue(kLens, s.lens);
    store.setValue(kLastPage, pageKey(s.lastPage));
    store.setValue(kGeometry, s.windowGeometry);
    store.setValue(kState, s.windowState);
    store.sync();
}

}  // namespace watchfloor::ui
