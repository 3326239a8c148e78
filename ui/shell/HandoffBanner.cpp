#include "HandoffBanner.h"

#include "ActionDialog.h"
#include "FleetFormat.h"
#include "OperatorActions.h"

#include "FleetStore.h"
#include "ShiftHandoff.h"
#include "Theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace watchfloor::ui {

HandoffBanner::HandoffBanner(const client::FleetStore& store, OperatorActions* actions, QWidget* parent)
    : QFrame(parent),
      m_store(store),
      m_actions(actions),
      m_label(new QLabel(this)),
      m_acknowledge(new QPushButton(QStringLiteral("Acknowledge…"), this)) {
    setObjectName(QStringLiteral("handoffBanner"));
    setAccessibleName(QStringLiteral("Shift handoff awaiting acknowledgement"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 6, 12, 6);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::RichText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_acknowledge->setObjectName(QStringLiteral("acknowledgeHandoffButton"));
    m_acknowledge->setVisible(m_actions != nullptr);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_acknowledge, 0, Qt::AlignVCenter);
    connect(m_acknowledge, &QPushButton::clicked, this, &HandoffBanner::acknowledge);
    connect(&m_store, &client::FleetStore::changed, this, [this](const client::FleetChangeSet& changes) {
        if (changes.fleetChanged || changes.topologyChanged || !changes.endpointsChanged.isEmpty()) refresh();
    });
    if (m_actions) connect(m_actions, &OperatorActions::availabilityChanged, this, &HandoffBanner::refresh);
    hide();
    refresh();
}

QString HandoffBanner::text() const { return m_label->text(); }

void HandoffBanner::refresh() {
    const std::vector<client::PostedHandoff> posted = client::postedHandoffs(m_store);
    const client::PostedHandoff* waiting = client::awaitingAcknowledgement(posted);
    if (!waiting) {
        m_shownId.clear();
        m_shownEndpoint = -1;
        hide();
        return;
    }
    const auto& h = waiting->handoff;
    m_shownId = QString::fromStdString(h.id());
    m_shownEndpoint = waiting->endpoint;
    const QString where = waiting->endpointName.isEmpty() ? QString() : waiting->endpointName + QStringLiteral(" · ");
    m_label->setText(QStringLiteral("<b>%1Shift handoff from %2</b>, posted %3 UTC for %4 – %5 UTC, <b>%6</b>:<br>%7")
                         .arg(where.toHtmlEscaped(), QString::fromStdString(h.author()).toHtmlEscaped(),
                              formatUnixMs(h.posted_unix_ms(), true), formatUnixMs(h.period_start_unix_ms()),
                              formatUnixMs(h.period_end_unix_ms()), client::handoffAcknowledgement(h).toHtmlEscaped(),
                              QString::fromStdString(h.note()).toHtmlEscaped()));
    QString why;
    const bool mayAcknowledge = m_actions && m_actions->draftAcknowledgeHandoff(m_shownEndpoint, h, &why).has_value();
    m_acknowledge->setEnabled(mayAcknowledge);
    m_acknowledge->setToolTip(mayAcknowledge ? QStringLiteral("Say that you have read it and take over the shift")
                                             : why);
    show();
}

ActionDialog* HandoffBanner::acknowledge() {
    if (!m_actions || m_shownId.isEmpty()) return nullptr;
    for (const client::PostedHandoff& p : client::postedHandoffs(m_store)) {
        if (p.endpoint != m_shownEndpoint || QString::fromStdString(p.handoff.id()) != m_shownId) continue;
        const auto draft = m_actions->draftAcknowledgeHandoff(p.endpoint, p.handoff);
        return draft ? m_actions->open(*draft, window()) : nullptr;
    }
    return nullptr;
}

void HandoffBanner::applyTheme(const widgets::Theme& theme) {
    // Information for the incoming shift, not an alarm: the theme's info colour, readable text.
    setStyleSheet(QStringLiteral("#handoffBanner { background: %1; } #handoffBanner QLabel { color: %2; }")
                      .arg(theme.colors().panelRaised.name(), theme.colors().textStrong.name()) +
                  QStringLiteral("#handoffBanner { border-left: 6px solid %1; }").arg(theme.colors().info.name()));
}

}  // namespace watchfloor::ui
