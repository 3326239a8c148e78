#include "SourcesDock.h"

#include "FleetFormat.h"

#include "FleetStore.h"
#include "Theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

SourcesAlarm sourcesAlarm(const client::SourcesOverview& overview) {
    if (!overview.blindEndpoints.isEmpty()) return SourcesAlarm::Critical;
    return overview.allUp() ? SourcesAlarm::None : SourcesAlarm::Warning;
}

QColor sourcesAlarmColor(SourcesAlarm alarm, const widgets::Theme& theme) {
    switch (alarm) {
    case SourcesAlarm::Critical: return theme.colors().crit;
    case SourcesAlarm::Warning: return theme.colors().warn;
    case SourcesAlarm::None: break;
    }
    return theme.colors().ok;
}

QColor sourceHealthColor(v1::SourceHealth health, const widgets::Theme& theme) {
    switch (health) {
    case v1::SOURCE_HEALTH_UP: return theme.colors().ok;
    case v1::SOURCE_HEALTH_DEGRADED: return theme.colors().warn;
    case v1::SOURCE_HEALTH_DOWN: return theme.colors().crit;
    default: return theme.colors().textDim;
    }
}

SourcesTable::SourcesTable(const client::FleetStore& store, QWidget* parent)
    : QWidget(parent), m_store(store), m_summary(new QLabel), m_table(new QTableWidget(0, ColumnCount)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_summary->setObjectName(QStringLiteral("sourcesSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_table->setObjectName(QStringLiteral("sourcesTable"));
    m_table->setHorizontalHeaderLabels(
        {QStringLiteral("Endpoint"), QStringLiteral("Source"), QStringLiteral("Kind"), QStringLiteral("Health"),
         QStringLiteral("Last good poll"), QStringLiteral("Poll took"), QStringLiteral("Delivery lag"),
         QStringLiteral("Series"), QStringLiteral("Unmapped"), QStringLiteral("Targets up / down / frozen"),
         QStringLiteral("Hosts silent"), QStringLiteral("Last error"), QStringLiteral("Warnings")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setShowGrid(false);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip(
        QStringLiteral("fleetd's telemetry sources. A source that is down keeps its last good values, "
                       "which age and turn stale."));
    layout->addWidget(m_table, 1);
    connect(&store, &client::FleetStore::changed, this, [this](const client::FleetChangeSet& changes) {
        // Ages move with the server clock, so a down source's "last good" keeps counting.
        if (changes.sourcesChanged || changes.telemetryChanged || changes.freshnessTick || changes.topologyChanged ||
            !changes.endpointsChanged.isEmpty())
            refresh();
    });
}

void SourcesTable::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    refresh();
}

QString SourcesTable::summaryText() const { return m_summary->text(); }

void SourcesTable::setCell(int row, int column, const QString& text, const QColor& colour, const QString& toolTip,
                           bool bold) {
    // Items are kept and rewritten: the dock refreshes every server second and must keep the
    // operator's selection and scroll position.
    QTableWidgetItem* item = m_table->item(row, column);
    if (!item) {
        item = new QTableWidgetItem;
        m_table->setItem(row, column, item);
    }
    item->setText(text);
    item->setForeground(colour);
    item->setToolTip(toolTip.isEmpty() ? text : toolTip);
    QFont font = item->font();
    font.setBold(bold);
    item->setFont(font);
    if (column == Series || column == Unmapped || column == PollDuration || column == DeliveryLag ||
        column == Targets || column == HostsSilent)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
}

void SourcesTable::fillSourceRow(int row, int endpoint, const v1::SourceStatus& source) {
    const widgets::ThemeColors& c = m_theme->colors();
    const bool down = source.health() == v1::SOURCE_HEALTH_DOWN;
    const bool polled = source.last_poll_unix_ms() > 0;
    setCell(row, Endpoint, m_store.endpointLabel(endpoint), c.text);
    setCell(row, Source, QString::fromStdString(source.name()), c.text);
    setCell(row, Kind, QString::fromStdString(source.kind()), c.textDim);
    setCell(row, Health, client::sourceHealthLabel(source.health()), sourceHealthColor(source.health(), *m_theme), {},
            source.health() != v1::SOURCE_HEALTH_UP);
    const auto since = client::sinceLastGoodPoll(m_store, endpoint, source);
    setCell(row, LastGoodPoll, since ? QStringLiteral("%1 ago").arg(formatAge(*since)) : QStringLiteral("never"),
            down ? c.crit : c.text,
            since ? QStringLiteral("%1 UTC").arg(formatUnixMs(source.last_good_poll_unix_ms(), true)) : QString());
    setCell(
        row, PollDuration,
        polled ? QStringLiteral("%1 s").arg(source.last_poll_duration_s(), 0, 'f', 2) : QStringLiteral("—"), c.text,
        polled ? QStringLiteral("last poll %1 UTC").arg(formatUnixMs(source.last_poll_unix_ms(), true)) : QString());
    if (source.has_delivery_lag_ms())
        setCell(row, DeliveryLag, QStringLiteral("%1 s").arg(double(source.delivery_lag_ms()) / 1000.0, 0, 'f', 1),
                c.text,
                QStringLiteral("How old this store's newest samples are when fleetd receives them (median, smoothed "
                               "over polls). A value turns stale once older than 3 refresh periods plus this."));
    else
        setCell(row, DeliveryLag, QStringLiteral("—"), c.textDim,
                source.kind() == "prometheus"
                    ? QStringLiteral("Not learned yet: it takes two polls that read new samples")
                    : QStringLiteral("This source reads no store"));
    setCell(row, Series, polled ? QString::number(source.series()) : QStringLiteral("—"), c.text);
    setCell(row, Unmapped, polled ? QString::number(source.unmapped_series()) : QStringLiteral("—"),
            source.unmapped_series() > 0 ? c.warn : c.text,
            QStringLiteral("Series that map to no GPU, node or link of the inventory"));
    const bool scrapes = source.targets() > 0;
    const bool targetsBad = source.targets_down() + source.targets_frozen() > 0;
    setCell(row, Targets,
            scrapes ? QStringLiteral("%1 / %2 / %3")
                          .arg(source.targets_up())
                          .arg(source.targets_down())
                          .arg(source.targets_frozen())
                    : QStringLiteral("—"),
            targetsBad ? c.silent
            : scrapes  ? c.text
                       : c.textDim,
            scrapes ? QStringLiteral("%1 exporters scraped: %2 up, %3 down, %4 frozen; %5 exposition lines refused")
                          .arg(source.targets())
                          .arg(source.targets_up())
                          .arg(source.targets_down())
                          .arg(source.targets_frozen())
                          .arg(source.rejected_lines())
                    : QStringLiteral("This source scrapes no exporters"),
            targetsBad);
    const quint32 trays = client::scrapedTrays(m_store, endpoint);
    setCell(row, HostsSilent,
            scrapes ? QStringLiteral("%1 of %2").arg(source.hosts_silent()).arg(trays) : QStringLiteral("—"),
            source.hosts_silent() > 0 ? c.silent
            : scrapes                 ? c.text
                                      : c.textDim,
            QStringLiteral(
                "Trays whose exporter does not answer, or repeats the same values: their readings are the last read"),
            source.hosts_silent() > 0);
    const QString error = QString::fromStdString(source.last_error());
    setCell(row, LastError, error.isEmpty() ? QStringLiteral("—") : error, error.isEmpty() ? c.textDim : c.crit);
    QStringList warnings;
    for (const std::string& w : source.warnings()) warnings << QString::fromStdString(w);
    setCell(row, Warnings, warnings.isEmpty() ? QStringLiteral("—") : warnings.join(QStringLiteral("; ")),
            warnings.isEmpty() ? c.textDim : c.warn, warnings.join(QLatin1Char('\n')));
}

void SourcesTable::fillTwinRow(int row, int endpoint) {
    const widgets::ThemeColors& c = m_theme->colors();
    setCell(row, Endpoint, m_store.endpointLabel(endpoint), c.text);
    setCell(row, Source, QStringLiteral("no external sources (built-in digital twin)"), c.textDim);
    for (int column = Kind; column < ColumnCount; ++column) setCell(row, column, QStringLiteral("—"), c.textDim);
}

void SourcesTable::refresh() {
    if (!m_theme) return;
    const client::SourcesOverview overview = client::overviewOfSources(m_store);
    int rows = 0;
    for (int endpoint = 0; endpoint < m_store.endpointCount(); ++endpoint)
        rows += std::max<int>(1, int(m_store.endpointFleet(endpoint).sources().size()));
    m_table->setRowCount(rows);
    int row = 0;
    for (int endpoint = 0; endpoint < m_store.endpointCount(); ++endpoint) {
        const auto& sources = m_store.endpointFleet(endpoint).sources();
        if (sources.empty()) fillTwinRow(row++, endpoint);
        for (const v1::SourceStatus& source : sources) fillSourceRow(row++, endpoint, source);
    }
    m_table->setColumnHidden(Endpoint, m_store.endpointCount() < 2);
    // Target and silent-host counts mean something only where fleetd scrapes exporters itself.
    m_table->setColumnHidden(Targets, overview.hostsScraped == 0);
    m_table->setColumnHidden(HostsSilent, overview.hostsScraped == 0);
    m_table->resizeColumnsToContents();

    const SourcesAlarm alarm = sourcesAlarm(overview);
    QString text = client::sourcesHeadline(m_store, overview);
    if (overview.total == 0)
        text = QStringLiteral("No endpoint reads external telemetry sources.");
    else if (text.isEmpty())
        text = QStringLiteral("Sources: all %1 up.").arg(overview.total);
    m_summary->setText(text);
    m_summary->setStyleSheet(
        QStringLiteral("color: %1; font-weight: %2;")
            .arg(overview.total == 0 ? m_theme->colors().textDim.name() : sourcesAlarmColor(alarm, *m_theme).name())
            .arg(alarm == SourcesAlarm::None ? 400 : 700));
    m_title = QStringLiteral("Sources");
    if (overview.total > 0 && !overview.allUp())
        m_title += QStringLiteral(" (%1 of %2 not up)").arg(overview.total - overview.up).arg(overview.total);
    emit refreshed();
}

SourcesDock::SourcesDock(const client::FleetStore& store, QWidget* parent)
    : QDockWidget(QStringLiteral("Sources"), parent), m_sources(new SourcesTable(store)) {
    setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetFloatable);
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(4);
    layout->addWidget(m_sources, 1);
    auto* all = new QPushButton(QStringLiteral("All sources and scrape targets ▸"), body);
    all->setObjectName(QStringLiteral("sourcesAllTargets"));
    all->setFlat(true);
    all->setToolTip(QStringLiteral("The Sources page: every source and every exporter fleetd scrapes, with its state"));
    layout->addWidget(all, 0, Qt::AlignLeft);
    setWidget(body);
    connect(all, &QPushButton::clicked, this, &SourcesDock::targetsRequested);
    connect(m_sources, &SourcesTable::refreshed, this, [this] { setWindowTitle(m_sources->titleText()); });
}

}  // namespace watchfloor::ui
