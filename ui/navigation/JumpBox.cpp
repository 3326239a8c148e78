#include "JumpBox.h"

#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace watchfloor::ui {

namespace {
constexpr int kMaxMatches = 50;
}

JumpBox::JumpBox(Search search, QWidget* parent)
    : QFrame(parent, Qt::Popup),
      m_search(std::move(search)),
      m_edit(new QLineEdit(this)),
      m_list(new QListWidget(this)) {
    setObjectName(QStringLiteral("jumpBox"));
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    m_edit->setPlaceholderText(QStringLiteral("Jump to region, rack, node, GPU, link or job…"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    layout->addWidget(m_edit);
    layout->addWidget(m_list);
    auto* hint = new QLabel(QStringLiteral("↑↓ choose · Enter go · Esc close"), this);
    hint->setEnabled(false);
    layout->addWidget(hint);
    m_list->setUniformItemSizes(true);
    connect(m_edit, &QLineEdit::textChanged, this, &JumpBox::refresh);
    connect(m_edit, &QLineEdit::returnPressed, this, [this] { acceptRow(qMax(0, m_list->currentRow())); });
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) { acceptRow(m_list->row(item)); });
    resize(560, 380);
}

void JumpBox::popup(QWidget* anchor) {
    m_edit->clear();
    refresh({});
    if (anchor) {
        const QPoint topCentre = anchor->mapToGlobal(QPoint(anchor->width() / 2, 0));
        move(topCentre.x() - width() / 2, topCentre.y() + 60);
    }
    show();
    m_edit->setFocus();
}

bool JumpBox::jumpTo(const QString& text) {
    m_edit->setText(text);  // refresh() runs on textChanged
    if (m_matches.isEmpty()) return false;
    acceptRow(0);
    return true;
}

int JumpBox::matchCount() const { return int(m_matches.size()); }

void JumpBox::refresh(const QString& text) {
    m_matches = text.trimmed().isEmpty() ? QVector<JumpTarget>{} : m_search(text.trimmed(), kMaxMatches);
    m_list->clear();
    for (const JumpTarget& target : std::as_const(m_matches)) {
        auto* item =
            new QListWidgetItem(QStringLiteral("%1    %2 · %3").arg(target.name, target.kind, target.context), m_list);
        item->setToolTip(QStringLiteral("Open %1 on the %2 page").arg(target.name, pageTitle(target.location.page)));
    }
    if (!m_matches.isEmpty()) m_list->setCurrentRow(0);
}

void JumpBox::acceptRow(int row) {
    if (row < 0 || row >= m_matches.size()) return;
    const Location location = m_matches[row].location;
    hide();
    emit targetChosen(location);
}

bool JumpBox::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Down || key == Qt::Key_Up) {
            const int count = m_list->count();
            if (count > 0) {
                const int step = key == Qt::Key_Down ? 1 : -1;
                m_list->setCurrentRow((m_list->currentRow() + step + count) % count);
            }
            return true;
        }
        if (key == Qt::Key_Escape) {
            hide();
            return true;
        }
    }
    return QFrame::eventFilter(watched, event);
}

}  // namespace watchfloor::ui
