#pragma once
// A row of action buttons on a detail page ("Drain node r01-n03…", "Isolate rack r01…") for the
// entities the page shows. It holds no buttons at all, and is hidden, when the operator may not
// act there; it rebuilds only when the set of actions changes, so live updates cost nothing.

#include "OperatorActions.h"

#include <QWidget>

#include <functional>

class QHBoxLayout;

namespace watchfloor::ui {

class ActionBar : public QWidget {
    Q_OBJECT
public:
    // `actions` may be null (war room, read-only contexts): the bar then stays empty and hidden.
    ActionBar(OperatorActions* actions, QWidget* parent = nullptr);

    void setEntities(const QList<client::EntityId>& entities);
    // Instead of the entities' actions, whatever `drafts` answers (an incident's lifecycle steps);
    // asked again on refresh() and whenever who may act changes.
    void setDraftSource(std::function<QList<ActionDraft>()> drafts);
    void refresh() { rebuild(); }
    QStringList buttonLabels() const;
    // Whoever shows the bar (a page header leaving wall mode), it stays hidden while it is empty.
    void setVisible(bool visible) override;

private:
    void rebuild();

    OperatorActions* m_actions;
    QList<client::EntityId> m_entities;
    std::function<QList<ActionDraft>()> m_draftSource;
    QStringList m_shown;  // labels of the buttons now shown
    QHBoxLayout* m_layout;
};

}  // namespace watchfloor::ui
