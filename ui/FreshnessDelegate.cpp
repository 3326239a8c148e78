#include "FreshnessDelegate.h"

#include "client/Freshness.h"
#include "client/models/ModelRoles.h"

namespace watchfloor::ui {

void FreshnessDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    const QVariant freshness = index.data(client::FreshnessRole);
    if (!freshness.isValid())
        return;
    const auto f = client::Freshness(freshness.toInt());
    if (f == client::Freshness::Fresh)
        return;
    const QColor dim = option->palette.color(QPalette::PlaceholderText);
    option->palette.setColor(QPalette::Text, dim);
    option->palette.setColor(QPalette::WindowText, dim);
    if (f == client::Freshness::Stale)
        option->font.setItalic(true);
}

}  // namespace watchfloor::ui
