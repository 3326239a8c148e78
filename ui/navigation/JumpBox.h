#pragma once
// Ctrl+K: type part of any region, rack, node, GPU, link or job name and jump there. The box
// knows nothing about the fleet: MainWindow gives it a search function over FleetStore's names.

#include "NavigationHistory.h"

#include <QFrame>

#include <functional>

class QLineEdit;
class QListWidget;

namespace watchfloor::ui {

struct JumpTarget {
    QString name;       // "r03-n07-g2"
    QString kind;       // "GPU", for the second column
    QString context;    // "r03 · us-east", to tell similar names apart
    Location location;  // where Enter goes
};

class JumpBox : public QFrame {
    Q_OBJECT
public:
    using Search = std::function<QVector<JumpTarget>(const QString& text, int limit)>;
    explicit JumpBox(Search search, QWidget* parent = nullptr);

    // Shows the box centred near the top of `anchor` with an empty query, focused.
    void popup(QWidget* anchor);
    // For tests and scripting: type, then accept the first match. Returns false if none matched.
    bool jumpTo(const QString& text);
    int matchCount() const;

signals:
    void targetChosen(const watchfloor::ui::Location& location);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh(const QString& text);
    void acceptRow(int row);

    Search m_search;
    QLineEdit* m_edit;
    QListWidget* m_list;
    QVector<JumpTarget> m_matches;
};

}  // namespace watchfloor::ui
