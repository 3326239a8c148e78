#pragma once
// "Fleet › us-east › r03 › r03-n07 › r03-n07-g2": where the shown entity sits; each crumb but the
// last is a link that navigates there.

#include "NavigationHistory.h"

#include <QVector>
#include <QWidget>

class QHBoxLayout;

namespace watchfloor::ui {

struct Breadcrumb {
    QString label;
    Location target;
};

class BreadcrumbBar : public QWidget {
    Q_OBJECT
public:
    explicit BreadcrumbBar(QWidget* parent = nullptr);

    void setCrumbs(const QVector<Breadcrumb>& crumbs);
    const QVector<Breadcrumb>& crumbs() const { return m_crumbs; }
    QString path() const;  // "Fleet › us-east › r03", for tests and the window title

signals:
    void crumbActivated(const watchfloor::ui::Location& target);

private:
    QHBoxLayout* m_layout;
    QVector<Breadcrumb> m_crumbs;
};

}  // namespace watchfloor::ui
