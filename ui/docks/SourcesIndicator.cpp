#include "SourcesIndicator.h"

#include "SourcesDock.h"

#include "SourceHealth.h"
#include "Theme.h"

namespace watchfloor::ui {

SourcesIndicator::SourcesIndicator(QWidget* parent) : QToolButton(parent) {
    setObjectName(QStringLiteral("sourcesIndicator"));
    setAutoRaise(true);
    setToolButtonStyle(Qt::ToolButtonTextOnly);
    hide();
}

void SourcesIndicator::refresh(const client::FleetStore& store, const widgets::Theme& theme) {
    const client::SourcesOverview overview = client::overviewOfSources(store);
    setVisible(overview.total > 0);
    if (overview.total == 0) return;
    QString counts;
    if (overview.allUp())
        counts = QStringLiteral("%1 up").arg(overview.total);
    else if (overview.down > 0)
        counts = QStringLiteral("%1 of %2 down").arg(overview.down).arg(overview.total);
    else
        counts = QStringLiteral("%1 of %2 not up").arg(overview.total - overview.up).arg(overview.total);
    const SourcesAlarm alarm = sourcesAlarm(overview);
    setText(QStringLiteral("● Sources: %1").arg(counts));
    setStyleSheet(QStringLiteral("QToolButton { color: %1; font-weight: %2; }")
                      .arg(sourcesAlarmColor(alarm, theme).name())
                      .arg(alarm == SourcesAlarm::None ? 400 : 700));
    const QString headline = client::sourcesHeadline(store, overview);
    setToolTip((headline.isEmpty() ? QStringLiteral("Every telemetry source is up.") : headline) +
               QStringLiteral("\nClick for the Sources dock."));
}

}  // namespace watchfloor::ui
