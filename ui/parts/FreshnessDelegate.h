#pragma once
// Draws a table cell by the trust of its value (client::FreshnessRole): a stale value in italics
// and the dim text colour, a missing or blank one ("—", "n/a") dim, a value whose source went
// silent in italics in the theme's silent colour on a tinted background. Without it a tray that
// stopped reporting showed its last power draw exactly like a live one. A row that matters less
// than those above it (client::MinorRole) is drawn in the dim text colour.

#include <QStyledItemDelegate>

namespace watchfloor::ui {

class FreshnessDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    // Public so that tests can see how a cell will be drawn.
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;

    // The theme's silent colour, application-wide (applyApplicationTheme sets it with the palette,
    // which has no role for it).
    static void setSilentColor(const QColor& color);
    static QColor silentColor();
};

}  // namespace watchfloor::ui
