#include "ConnectionBanner.h"

#include <QHBoxLayout>
#include <QLabel>

namespace watchfloor::ui {

ConnectionBanner::ConnectionBanner(QWidget* parent) : QFrame(parent), m_label(new QLabel(this)) {
    setObjectName(QStringLiteral("connectionBanner"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 6, 12, 6);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_label, 1);
    setAccessibleName(QStringLiteral("Connection banner"));
    hide();
}

void ConnectionBanner::showMessage(const QString& text, Level level) {
    m_level = level;
    m_label->setText(text);
    const char* background = level == Level::Critical ? "#b3261e" : "#b26a00";
    setStyleSheet(QStringLiteral("#connectionBanner { background: %1; } #connectionBanner QLabel { color: white; "
                                 "font-weight: 600; }")
                      .arg(QLatin1String(background)));
    show();
}

void ConnectionBanner::clear() {
    m_label->clear();
    hide();
}

QString ConnectionBanner::text() const { return m_label->text(); }

void ConnectionBanner::setLargeType(bool large) {
    QFont font = m_label->font();
    font.setPointSizeF(large ? 20 : 10);
    m_label->setFont(font);
}

}  // namespace watchfloor::ui
