#include "PagingIndicator.h"

#include "FleetFormat.h"

#include "FleetStore.h"
#include "Theme.h"

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

QString pagingHeadline(const v1::PagingStatus& status) {
    const QString dropped = status.dropped() > 0 ? QStringLiteral(" · %1 dropped").arg(status.dropped()) : QString();
    switch (status.state()) {
    case v1::PAGING_STATE_FAILING:
        return QStringLiteral("Paging: not delivered since %1 — %2%3%4")
            .arg(formatUnixMs(status.failing_since_unix_ms()).left(5), QString::fromStdString(status.last_error()),
                 status.queued() > 0 ? QStringLiteral(" · %1 queued").arg(status.queued()) : QString(), dropped);
    case v1::PAGING_STATE_QUEUED: return QStringLiteral("Paging: %1 queued%2").arg(status.queued()).arg(dropped);
    default: return QStringLiteral("Paging: delivered · %1 firing%2").arg(status.firing()).arg(dropped);
    }
}

PagingIndicator::PagingIndicator(QWidget* parent) : QLabel(parent) {
    setObjectName(QStringLiteral("pagingIndicator"));
    hide();
}

void PagingIndicator::refresh(const client::FleetStore& store, const widgets::Theme& theme) {
    const v1::PagingStatus* worst = nullptr;
    QStringList lines;
    for (int i = 0; i < store.endpointCount(); ++i) {
        const v1::PagingStatus* status = store.endpointFleet(i).paging();
        if (!status) continue;
        lines << QStringLiteral("%1 → %2: %3")
                     .arg(store.endpointDisplayName(i), QString::fromStdString(status->target()),
                          pagingHeadline(*status));
        if (!worst || (status->state() == v1::PAGING_STATE_FAILING && worst->state() != v1::PAGING_STATE_FAILING))
            worst = status;
    }
    setVisible(worst != nullptr);
    if (!worst) return;
    const bool failing = worst->state() == v1::PAGING_STATE_FAILING;
    setText(pagingHeadline(*worst).toHtmlEscaped());
    setStyleSheet(QStringLiteral("QLabel { color: %1; font-weight: %2; }")
                      .arg((failing ? theme.colors().crit : theme.colors().ok).name())
                      .arg(failing ? 700 : 400));
    setToolTip(
        lines.join(QLatin1Char('\n')) +
        (failing ? QStringLiteral("\nIncidents are queued and retried; the on-call is not being paged.") : QString()));
}

}  // namespace watchfloor::ui
