#pragma once
// What the console remembers between runs (QSettings, INI format): endpoints, theme, lens,
// window geometry and dock layout, last page. Loading never fails: anything unreadable or out
// of range falls back to its default and is reported as a warning an operator can act on.

#include "PageId.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

class QSettings;

namespace watchfloor::ui {

enum class ThemeChoice { Dark, Light, HighContrast };
QString themeKey(ThemeChoice theme);  // "dark", "light", "high-contrast"
std::optional<ThemeChoice> themeFromKey(const QString& key);

struct ConsoleSettings {
    QStringList endpoints;  // "host:port"
    ThemeChoice theme = ThemeChoice::Dark;
    QString lens = QStringLiteral("health");
    PageId lastPage = PageId::Fleet;
    QByteArray windowGeometry;  // QWidget::saveGeometry()
    QByteArray windowState;     // QMainWindow::saveState(): docks and toolbars

    friend bool operator==(const ConsoleSettings&, const ConsoleSettings&) = default;
};

struct LoadedSettings {
    ConsoleSettings settings;
    QStringList warnings;  // one line each, naming the file and the key
};

// Reads `store`. A file QSettings cannot parse is renamed to "<file>.corrupt" (so the operator
// can inspect it and the next save starts clean) and defaults are returned.
LoadedSettings loadConsoleSettings(QSettings& store);
void saveConsoleSettings(QSettings& store, const ConsoleSettings& settings);

// "host:port" with a non-empty host and a port in 1..65535.
bool isValidEndpoint(const QString& endpoint);

}  // namespace watchfloor::ui
