#pragma once
// Draws a table cell by the trust of its value (client::FreshnessRole): a stale value in italics
// and the dim text colour, a missing or blank one ("—", "n/a") dim. Without it a tray that stopped
// reporting showed its last power draw exactly like a live one.

#include <QStyledItemDelegate>

namespace watchfloor::ui {

class FreshnessDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    // Public so that tests can see how a cell will be drawn.
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};

}  // namespace watchfloor::ui
