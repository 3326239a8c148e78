#pragma once
// A row of headline numbers (goodput, ETTR, GPUs down, incidents ...), each a titled card with
// a value, a detail line and a level colour. Cards are addressed by a key the page chooses.

#include "KpiLevel.h"

#include "Theme.h"

#include <QHash>
#include <QWidget>

class QHBoxLayout;
class QLabel;

namespace watchfloor::ui {

class KpiStrip : public QWidget {
    Q_OBJECT
public:
    explicit KpiStrip(QWidget* parent = nullptr);

    void addCard(const QString& key, const QString& title, const QString& toolTip);
    void setCard(const QString& key, const QString& value, const QString& detail, KpiLevel level);
    // A card that means nothing for this fleet (e.g. silent hosts without a scrape source) is hidden.
    void setCardVisible(const QString& key, bool visible);
    void setCardToolTip(const QString& key, const QString& toolTip);
    bool isCardVisible(const QString& key) const;
    void applyTheme(const widgets::Theme& theme);
    QString value(const QString& key) const;
    QString detail(const QString& key) const;

private:
    struct Card {
        QWidget* frame = nullptr;
        QLabel* title = nullptr;
        QLabel* value = nullptr;
        QLabel* detail = nullptr;
        KpiLevel level = KpiLevel::Missing;
    };
    void styleCard(Card& card);

    QHBoxLayout* m_layout;
    QHash<QString, Card> m_cards;
    QStringList m_order;
    const widgets::Theme* m_theme = nullptr;
};

}  // namespace watchfloor::ui
