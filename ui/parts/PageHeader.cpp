#include "PageHeader.h"

#include "Theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace watchfloor::ui {

PageHeader::PageHeader(const QString& title, QWidget* parent)
    : QWidget(parent), m_title(new QLabel(title, this)), m_summary(new QLabel(this)), m_controls(new QHBoxLayout) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* texts = new QVBoxLayout;
    texts->setSpacing(0);
    m_title->setProperty("role", QStringLiteral("pageTitle"));
    m_summary->setProperty("role", QStringLiteral("dim"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    texts->addWidget(m_title);
    texts->addWidget(m_summary);
    layout->addLayout(texts, 1);
    m_controls->setSpacing(6);
    layout->addLayout(m_controls);
}

void PageHeader::setTitle(const QString& title) { m_title->setText(title); }
void PageHeader::setSummary(const QString& summary) { m_summary->setText(summary); }
QString PageHeader::summary() const { return m_summary->text(); }

void PageHeader::addControl(QWidget* control) {
    control->setParent(this);
    m_controls->addWidget(control);
    m_controlWidgets << control;
}

void PageHeader::setWallDisplay(bool wall) {
    for (QWidget* control : std::as_const(m_controlWidgets)) control->setVisible(!wall);
    // In wall type one line of summary can be wider than the wall: it wraps instead of widening the page.
    m_summary->setWordWrap(wall);
}

void PageHeader::applyTheme(const widgets::Theme& theme) {
    // Font sizes go in the style sheet: an application style sheet would override setFont().
    m_title->setStyleSheet(QStringLiteral("color: %1; font-size: %2; font-weight: 700;")
                               .arg(theme.colors().textStrong.name(), theme.cssFontSize(15, true)));
    m_summary->setStyleSheet(
        QStringLiteral("color: %1; font-size: %2;").arg(theme.colors().textDim.name(), theme.cssFontSize(9.5)));
}

QLabel* makeSectionTitle(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text.toUpper(), parent);
    label->setProperty("role", QStringLiteral("sectionTitle"));
    return label;
}

}  // namespace watchfloor::ui
