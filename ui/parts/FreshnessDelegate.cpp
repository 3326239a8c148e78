#include "FreshnessDelegate.h"

#include "Freshness.h"
#include "ModelRoles.h"

namespace watchfloor::ui {

namespace {
QColor g_silent(0xb7, 0x7c, 0xff);
}

void FreshnessDelegate::setSilentColor(const QColor& color) { g_silent = color; }
QColor FreshnessDelegate::silentColor() { return g_silent; }

void FreshnessDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    if (index.data(client::MinorRole).toBool()) {
        const QColor dim = option->palette.color(QPalette::PlaceholderText);
        option->palette.setColor(QPalette::Text, dim);
        option->palette.setColor(QPalette::WindowText, dim);
    }
    const QVariant freshness = index.data(client::FreshnessRole);
    if (!freshness.isValid()) return;
    const auto f = client::Freshness(freshness.toInt());
    if (f == client::Freshness::Fresh) return;
    if (f == client::Freshness::Silent) {
        option->palette.setColor(QPalette::Text, g_silent);
        option->palette.setColor(QPalette::WindowText, g_silent);
        QColor tint = g_silent;
        tint.setAlphaF(0.16f);
        option->backgroundBrush = tint;
        option->font.setItalic(true);
        return;
    }
    const QColor dim = option->palette.color(QPalette::PlaceholderText);
    option->palette.setColor(QPalette::Text, dim);
    option->palette.setColor(QPalette::WindowText, dim);
    if (f == client::Freshness::Stale) option->font.setItalic(true);
}

}  // namespace watchfloor::ui
