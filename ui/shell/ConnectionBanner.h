#pragma once
// A full-width strip above the pages that says, in words, that data is not live ("fleetd
// 127.0.0.1:50551 unreachable, reconnecting in 4 s; figures below are 38 s old"). It never
// blocks: the war room must recover by itself, so there is no modal dialog anywhere on this path.

#include <QFrame>

class QLabel;

namespace watchfloor::ui {

class ConnectionBanner : public QFrame {
    Q_OBJECT
public:
    enum class Level { Warning, Critical };
    explicit ConnectionBanner(QWidget* parent = nullptr);

    void showMessage(const QString& text, Level level);
    void clear();
    QString text() const;
    Level level() const { return m_level; }
    void setLargeType(bool large);

private:
    QLabel* m_label;
    Level m_level = Level::Warning;
};

}  // namespace watchfloor::ui
