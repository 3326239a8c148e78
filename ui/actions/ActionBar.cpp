#include "ActionBar.h"

#include <QHBoxLayout>
#include <QPushButton>

namespace watchfloor::ui {

ActionBar::ActionBar(OperatorActions* actions, QWidget* parent)
    : QWidget(parent), m_actions(actions), m_layout(new QHBoxLayout(this)) {
    setObjectName(QStringLiteral("actionBar"));
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(6);
    hide();
    if (m_actions) connect(m_actions, &OperatorActions::availabilityChanged, this, &ActionBar::rebuild);
}

void ActionBar::setEntities(const QList<client::EntityId>& entities) {
    m_entities = entities;
    rebuild();
}

void ActionBar::setDraftSource(std::function<QList<ActionDraft>()> drafts) {
    m_draftSource = std::move(drafts);
    rebuild();
}

QStringList ActionBar::buttonLabels() const { return m_shown; }

void ActionBar::setVisible(bool visible) { QWidget::setVisible(visible && !m_shown.isEmpty()); }

void ActionBar::rebuild() {
    QList<ActionDraft> drafts;
    if (m_actions && m_draftSource) {
        drafts = m_draftSource();
    } else if (m_actions) {
        for (client::EntityId entity : std::as_const(m_entities)) drafts += m_actions->draftsFor(entity);
    }
    QStringList labels;
    for (const ActionDraft& draft : std::as_const(drafts)) labels << draft.label;
    if (labels == m_shown) return;
    m_shown = labels;
    while (QLayoutItem* item = m_layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (const ActionDraft& draft : std::as_const(drafts)) {
        auto* button = new QPushButton(draft.label, this);
        button->setAutoDefault(false);
        button->setFocusPolicy(Qt::TabFocus);
        connect(button, &QPushButton::clicked, this, [this, draft] { m_actions->open(draft, window()); });
        m_layout->addWidget(button);
    }
    setVisible(!drafts.isEmpty());
}

}  // namespace watchfloor::ui
