#include "BreadcrumbBar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace watchfloor::ui {

namespace {
const QString kSeparator = QStringLiteral(" \u203A ");
}

BreadcrumbBar::BreadcrumbBar(QWidget* parent) : QWidget(parent), m_layout(new QHBoxLayout(this)) {
    setObjectName(QStringLiteral("breadcrumbs"));
    m_layout->setContentsMargins(8, 2, 8, 2);
    m_layout->setSpacing(0);
    m_layout->addStretch(1);
}

void BreadcrumbBar::setCrumbs(const QVector<Breadcrumb>& crumbs) {
    if (crumbs.size() == m_crumbs.size() &&
        std::equal(crumbs.begin(), crumbs.end(), m_crumbs.begin(),
                   [](const auto& a, const auto& b) { return a.label == b.label && a.target == b.target; }))
        return;
    m_crumbs = crumbs;
    while (m_layout->count() > 1) {
        QLayoutItem* item = m_layout->takeAt(0);
        delete item->widget();
        delete item;
    }
    for (qsizetype i = 0; i < crumbs.size(); ++i) {
        const bool last = i + 1 == crumbs.size();
        if (last) {
            auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(crumbs[i].label.toHtmlEscaped()), this);
            m_layout->insertWidget(m_layout->count() - 1, label);
            break;
        }
        auto* button = new QToolButton(this);
        button->setText(crumbs[i].label);
        button->setAutoRaise(true);
        button->setCursor(Qt::PointingHandCursor);
        button->setToolTip(QStringLiteral("Go to %1").arg(crumbs[i].label));
        const Location target = crumbs[i].target;
        connect(button, &QToolButton::clicked, this, [this, target] { emit crumbActivated(target); });
        m_layout->insertWidget(m_layout->count() - 1, button);
        m_layout->insertWidget(m_layout->count() - 1, new QLabel(kSeparator, this));
    }
}

QString BreadcrumbBar::path() const {
    QStringList labels;
    for (const Breadcrumb& crumb : m_crumbs) labels << crumb.label;
    return labels.join(kSeparator);
}

}  // namespace watchfloor::ui
