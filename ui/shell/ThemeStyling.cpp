#include "ThemeStyling.h"

#include "FreshnessDelegate.h"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>

namespace watchfloor::ui {

widgets::ThemeVariant themeVariantFor(ThemeChoice choice) {
    switch (choice) {
    case ThemeChoice::Dark: return widgets::ThemeVariant::Dark;
    case ThemeChoice::Light: return widgets::ThemeVariant::Light;
    case ThemeChoice::HighContrast: return widgets::ThemeVariant::WarRoom;
    }
    return widgets::ThemeVariant::Dark;
}

void applyApplicationTheme(QApplication& app, const widgets::Theme& theme) {
    // Fusion draws the same on every platform and follows the palette fully (the native styles
    // ignore parts of a dark palette).
    if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"))) app.setStyle(fusion);
    const widgets::ThemeColors& c = theme.colors();
    QPalette palette;
    palette.setColor(QPalette::Window, c.window);
    palette.setColor(QPalette::WindowText, c.text);
    palette.setColor(QPalette::Base, c.panel);
    palette.setColor(QPalette::AlternateBase, c.panelRaised);
    palette.setColor(QPalette::Text, c.text);
    palette.setColor(QPalette::BrightText, c.textStrong);
    palette.setColor(QPalette::Button, c.panelRaised);
    palette.setColor(QPalette::ButtonText, c.text);
    palette.setColor(QPalette::Highlight, c.accent);
    palette.setColor(QPalette::HighlightedText, c.textStrong);
    palette.setColor(QPalette::ToolTipBase, c.panelRaised);
    palette.setColor(QPalette::ToolTipText, c.textStrong);
    palette.setColor(QPalette::PlaceholderText, c.textDim);
    palette.setColor(QPalette::Link, c.accent);
    palette.setColor(QPalette::Mid, c.grid);
    palette.setColor(QPalette::Dark, c.window.darker(130));
    palette.setColor(QPalette::Light, c.panelRaised.lighter(130));
    palette.setColor(QPalette::Disabled, QPalette::Text, c.textDim);
    palette.setColor(QPalette::Disabled, QPalette::WindowText, c.textDim);
    palette.setColor(QPalette::Disabled, QPalette::ButtonText, c.textDim);
    app.setPalette(palette);
    FreshnessDelegate::setSilentColor(c.silent);
    app.setFont(theme.font(9.5));

    // Named tokens rather than %N: the sheet is easier to read and cannot mis-number.
    QString sheet = QStringLiteral(R"(
QToolTip { border: 1px solid @grid; padding: 4px; }
QHeaderView::section { background: @raised; color: @text; border: none; border-right: 1px solid @grid;
                       border-bottom: 1px solid @grid; padding: 3px 6px; font-weight: 600; }
QTableView, QTreeView, QListView { gridline-color: @grid; border: 1px solid @grid; }
QDockWidget::title { background: @raised; padding: 4px 8px; }
QToolBar { background: @panel; border: none; border-bottom: 1px solid @grid; spacing: 4px; padding: 2px 6px; }
QStatusBar { background: @panel; border-top: 1px solid @grid; }
QLabel[role="sectionTitle"] { color: @dim; font-weight: 700; padding-top: 4px; }
QLabel[role="dim"] { color: @dim; }
#breadcrumbs QToolButton { color: @accent; border: none; padding: 2px 2px; }
#breadcrumbs QToolButton:hover { text-decoration: underline; }
)");
    const std::pair<const char*, QColor> tokens[] = {{"@raised", c.panelRaised}, {"@panel", c.panel},
                                                     {"@grid", c.grid},          {"@text", c.text},
                                                     {"@dim", c.textDim},        {"@accent", c.accent}};
    for (const auto& [token, color] : tokens) sheet.replace(QLatin1String(token), color.name());
    // The wall's tables, lists and section titles: polished under this sheet they would keep the
    // font they were created with, and QApplication::setFont does not reach them.
    if (theme.minCapHeightPx() > 0)
        sheet += QStringLiteral(
                     "QAbstractItemView, QHeaderView, QLabel[role=\"sectionTitle\"], QLabel[role=\"dim\"] "
                     "{ font-size: %1; }\n")
                     .arg(theme.cssFontSize(9.5));
    app.setStyleSheet(sheet);
}

}  // namespace watchfloor::ui
