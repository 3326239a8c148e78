#pragma once
// Colours and type sizes for every widget, loaded from resources/themes/<name>.json (compiled
// into watchfloor_widgets). One Theme object is handed to each widget with setTheme(); widgets
// never hard-code a colour.

#include <QColor>
#include <QFont>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace watchfloor::widgets {

enum class ThemeVariant {
    Dark,     // default NOC workstation palette
    Light,    // bright rooms, printouts
    WarRoom,  // wall display: high contrast, large type
};

struct ThemeColors {
    QColor window;       // widget background
    QColor panel;        // group bands, tray bodies
    QColor panelRaised;  // tiles' frame, headers
    QColor grid;         // separators, axis grid
    QColor text;
    QColor textDim;     // secondary labels, units
    QColor textStrong;  // headline numbers
    QColor accent;
    QColor selection;  // selected tile outline
    QColor hover;      // hovered tile outline
    QColor ok;
    QColor warn;
    QColor crit;
    QColor info;
    QColor stale;    // tint and hatch for stale values
    QColor silent;   // outline and cross-hatch of values whose source went silent
    QColor missing;  // outline for missing values
    QColor coolantSupply;
    QColor coolantReturn;
};

struct ThemeLoadResult;

class Theme {
public:
    // The built-in variants; they are read from the compiled-in resources and cannot fail
    // unless the build is broken (then the process aborts with the parse error).
    static const Theme& builtin(ThemeVariant variant);

    static ThemeLoadResult fromJson(const QByteArray& json, const QString& sourceName);
    static ThemeLoadResult fromFile(const QString& path);

    QString name() const { return m_name; }
    const ThemeColors& colors() const { return m_colors; }
    // Stops of the sequential ramp, calm (low) to hot (high).
    const std::vector<QColor>& sequentialRamp() const { return m_sequential; }
    // Distinguishable colours for categories such as jobs; used cyclically.
    const std::vector<QColor>& categorical() const { return m_categorical; }
    // Multiplier on every font size: 1.0 for desks, ~1.6 for the war-room wall.
    double fontScale() const { return m_fontScale; }

    // This theme as wall type for a wall `wallScale` times the 1080-line reference (2 at 4K):
    // fonts are sized in pixels (a wall is read by its pixels, whatever the logical DPI), scaled
    // with the wall, and none is smaller than WallLegibility's cap height (docs/war-room.md).
    Theme forWall(double wallScale) const;
    // 0 on a desk; on the wall the smallest cap height any font() may have, in pixels.
    int minCapHeightPx() const { return m_minCapHeightPx; }

    // Fonts scaled by fontScale(); sizes in points at scale 1.
    QFont font(double pointSize, bool bold = false) const;
    QFont labelFont() const { return font(9); }
    QFont headerFont() const { return font(10, true); }
    QFont valueFont() const { return font(22, true); }
    // font(pointSize)'s size for a style sheet: "13.5pt" on a desk, "28px" on the wall.
    QString cssFontSize(double pointSize, bool bold = false) const;

private:
    QString m_name;
    ThemeColors m_colors;
    std::vector<QColor> m_sequential;
    std::vector<QColor> m_categorical;
    double m_fontScale = 1.0;
    double m_wallScale = 0.0;  // 0: a desk theme, fonts in points
    int m_minCapHeightPx = 0;
};

struct ThemeLoadResult {
    std::optional<Theme> theme;
    QString error;  // why the file was rejected, naming the file and the field
};

}  // namespace watchfloor::widgets
