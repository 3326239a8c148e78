#include "KpiStrip.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace watchfloor::ui {

KpiStrip::KpiStrip(QWidget* parent) : QWidget(parent), m_layout(new QHBoxLayout(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(8);
}

void KpiStrip::addCard(const QString& key, const QString& title, const QString& toolTip) {
    Card card;
    auto* frame = new QFrame(this);
    frame->setObjectName(QStringLiteral("kpi_%1").arg(key));
    frame->setToolTip(toolTip);
    auto* layout = new QVBoxLayout(frame);
    layout->setContentsMargins(12, 8, 12, 8);
    layout->setSpacing(2);
    card.frame = frame;
    card.title = new QLabel(title.toUpper(), frame);
    card.value = new QLabel(QStringLiteral("n/a"), frame);
    card.detail = new QLabel(frame);
    card.value->setAccessibleName(title);
    // Wrapping, not a fixed width: at war-room type sizes six cards of "no step telemetry" and
    // their details were wider than a 1920-pixel wall and pushed the page off its right edge.
    for (QLabel* label : {card.title, card.value, card.detail}) {
        label->setWordWrap(true);
        label->setMinimumWidth(0);
    }
    layout->addWidget(card.title);
    layout->addWidget(card.value);
    layout->addWidget(card.detail);
    m_layout->addWidget(frame, 1);
    m_cards.insert(key, card);
    m_order << key;
    styleCard(m_cards[key]);
}

void KpiStrip::setCard(const QString& key, const QString& value, const QString& detail, KpiLevel level) {
    auto it = m_cards.find(key);
    if (it == m_cards.end()) return;
    it->value->setText(value);
    it->detail->setText(detail);
    if (it->level != level) {
        it->level = level;
        styleCard(*it);
    }
}

void KpiStrip::setCardVisible(const QString& key, bool visible) {
    if (auto it = m_cards.find(key); it != m_cards.end()) it->frame->setVisible(visible);
}

void KpiStrip::setCardToolTip(const QString& key, const QString& toolTip) {
    if (auto it = m_cards.find(key); it != m_cards.end()) it->frame->setToolTip(toolTip);
}

bool KpiStrip::isCardVisible(const QString& key) const {
    const auto it = m_cards.find(key);
    return it != m_cards.end() && !it->frame->isHidden();
}

QString KpiStrip::value(const QString& key) const {
    const auto it = m_cards.find(key);
    return it == m_cards.end() ? QString() : it->value->text();
}

QString KpiStrip::detail(const QString& key) const {
    const auto it = m_cards.find(key);
    return it == m_cards.end() ? QString() : it->detail->text();
}

void KpiStrip::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    for (Card& card : m_cards) styleCard(card);
}

void KpiStrip::styleCard(Card& card) {
    if (!m_theme) return;
    const widgets::ThemeColors& c = m_theme->colors();
    QColor accent = c.grid;
    QColor valueColor = c.textStrong;
    switch (card.level) {
    case KpiLevel::Ok: accent = c.ok; break;
    case KpiLevel::Warning:
        accent = c.warn;
        valueColor = c.warn;
        break;
    case KpiLevel::Critical:
        accent = c.crit;
        valueColor = c.crit;
        break;
    case KpiLevel::Missing: valueColor = c.textDim; break;
    case KpiLevel::Neutral: accent = c.accent; break;
    case KpiLevel::Silent:
        accent = c.silent;
        valueColor = c.silent;
        break;
    }
    card.frame->setStyleSheet(QStringLiteral("#%1 { background: %2; border: 1px solid %3; border-left: 4px solid %4; "
                                             "border-radius: 3px; }")
                                  .arg(card.frame->objectName(), c.panel.name(), c.grid.name(), accent.name()));
    card.title->setFont(m_theme->font(8, true));
    card.title->setStyleSheet(QStringLiteral("color: %1; letter-spacing: 1px;").arg(c.textDim.name()));
    card.value->setFont(m_theme->font(20, true));
    card.value->setStyleSheet(QStringLiteral("color: %1;").arg(valueColor.name()));
    card.detail->setFont(m_theme->font(8.5));
    card.detail->setStyleSheet(QStringLiteral("color: %1;").arg(c.textDim.name()));
}

}  // namespace watchfloor::ui
