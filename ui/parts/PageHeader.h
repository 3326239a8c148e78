#pragma once
// The line at the top of every page: title, a one-line summary, and the page's own controls on
// the right (lens selector, filters, export). Controls are hidden on the wall display.

#include <QLabel>
#include <QWidget>

class QHBoxLayout;

namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

class PageHeader : public QWidget {
    Q_OBJECT
public:
    explicit PageHeader(const QString& title, QWidget* parent = nullptr);

    void setTitle(const QString& title);
    void setSummary(const QString& summary);
    QString summary() const;
    // Adds a control on the right; it is hidden when the page becomes a wall display.
    void addControl(QWidget* control);
    void setWallDisplay(bool wall);
    void applyTheme(const widgets::Theme& theme);

private:
    QLabel* m_title;
    QLabel* m_summary;
    QHBoxLayout* m_controls;
    QList<QWidget*> m_controlWidgets;
};

// A bold caption over a section of a page ("Recent Xids", "Scale-out ports").
QLabel* makeSectionTitle(const QString& text, QWidget* parent);

}  // namespace watchfloor::ui
