#pragma once
// The incoming shift's cue: a strip under the connection banner while fleetd holds a shift handoff
// nobody has acknowledged — who posted it, when, the period it covers, and the note in full, so
// reading it takes no click — with "Acknowledge…" (the ActionDialog, ACKNOWLEDGE_HANDOFF). The
// button is off, saying why, for a read-only role and for the handoff's own author. Hidden once
// every handoff is acknowledged; File → Shift handoff… lists who acknowledged each and when.

#include <QFrame>

#include <optional>

class QLabel;
class QPushButton;

namespace watchfloor::client {
class FleetStore;
struct PostedHandoff;
}  // namespace watchfloor::client
namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class ActionDialog;
class OperatorActions;

class HandoffBanner : public QFrame {
    Q_OBJECT
public:
    // `actions` may be null (no action controls): the note is shown, the button is not.
    HandoffBanner(const client::FleetStore& store, OperatorActions* actions, QWidget* parent = nullptr);

    QString text() const;
    QString shownHandoffId() const { return m_shownId; }
    QPushButton* acknowledgeButton() const { return m_acknowledge; }
    void applyTheme(const widgets::Theme& theme);

public slots:
    // Follows the store: the newest unacknowledged handoff, or hidden.
    void refresh();
    // Opens the acknowledgement of the handoff shown; null when the button is off.
    ActionDialog* acknowledge();

private:
    const client::FleetStore& m_store;
    OperatorActions* m_actions;
    QLabel* m_label;
    QPushButton* m_acknowledge;
    QString m_shownId;
    int m_shownEndpoint = -1;
};

}  // namespace watchfloor::ui
