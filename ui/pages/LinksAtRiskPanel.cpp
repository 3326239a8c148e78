#include "LinksAtRiskPanel.h"

#include "EntityTableView.h"
#include "PageHeader.h"

#include "FleetStore.h"
#include "LinkRiskModel.h"
#include "LinksAtRisk.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

namespace {
constexpr double kHourMs = 3'600'000.0;
constexpr int kMaxColumnWidth = 420;
// What the BER keeps (the host end's value and the start of the switch end's) and the top
// influencer (its counter and how far over its baseline) when the list runs out of width.
constexpr int kMinBerWidth = 260;
constexpr int kMinInfluencerWidth = 200;

std::int64_t hoursFrom(std::int64_t nowMs, double hours) { return nowMs + std::int64_t(hours * kHourMs); }
}  // namespace

widgets::BerChartData berChartData(const v1::LinkHealth& link, const QString& name, std::int64_t nowMs) {
    widgets::BerChartData data;
    data.title = QStringLiteral("%1 · symbol BER of the worse end, 30-min buckets").arg(name);
    data.nowUnixMs = nowMs;
    data.emptyText = QStringLiteral("fleetd sent no BER buckets for this link yet (no bits carried).");
    for (const v1::LinkBerPoint& point : link.forecast().history()) {
        widgets::BerSample s;
        s.timeUnixMs = point.time_unix_ms();
        // A bucket without errors is known only by its bound; its point (0) is not a measurement.
        s.upperBound = point.upper_only() || !(point.ber() > 0);
        s.value = s.upperBound ? point.upper() : point.ber();
        data.samples.push_back(s);
    }
    using Level = widgets::BerThreshold::Level;
    data.lines = {{QStringLiteral("Normal 1e-15"), client::kBerNormalLine, Level::Normal},
                  {QStringLiteral("Warning 5e-15"), client::kBerWarningLine, Level::Warning},
                  {QStringLiteral("Error 1e-14"), client::kBerErrorLine, Level::Error}};

    const v1::LinkForecast& f = link.forecast();
    const widgets::BerSample* newest = nullptr;
    for (const widgets::BerSample& s : data.samples)
        if (s.value > 0) newest = &s;
    if (!newest || f.confirmed_error()) return data;
    widgets::BerForecastBand& band = data.band;
    if (f.hours_to_error() >= 0) {
        band.value = client::kBerErrorLine;
        band.likelyMs = hoursFrom(nowMs, f.hours_to_error());
        band.earliestMs = hoursFrom(nowMs, f.hours_to_error_low() >= 0 ? f.hours_to_error_low() : f.hours_to_error());
        band.latestMs = hoursFrom(nowMs, f.hours_to_error_high() >= 0 ? f.hours_to_error_high() : f.hours_to_error());
        band.label = QStringLiteral("Error in %1").arg(client::linkEtaText(f));
    } else if (f.hours_to_warning() >= 0) {
        band.value = client::kBerWarningLine;
        band.likelyMs = band.earliestMs = band.latestMs = hoursFrom(nowMs, f.hours_to_warning());
        band.label =
            QStringLiteral("Warning in %1 h").arg(f.hours_to_warning(), 0, 'f', f.hours_to_warning() < 10 ? 1 : 0);
    } else {
        return data;
    }
    band.shown = true;
    band.fromMs = newest->timeUnixMs;
    band.fromValue = newest->value;
    return data;
}

LinksAtRiskPanel::LinksAtRiskPanel(client::FleetStore& store, OperatorActions* actions, QWidget* parent)
    : QWidget(parent),
      m_store(store),
      m_model(new client::LinkRiskModel(store, this)),
      m_summary(new QLabel(this)),
      m_stack(new QStackedWidget(this)),
      m_empty(new QLabel(this)),
      m_table(new EntityTableView(store, m_model, this)),
      m_elevatedToggle(new QPushButton(this)),
      m_chart(new widgets::BerHistoryChart(this)),
      m_actions(actions),
      m_ladderRow(new QHBoxLayout),
      m_ladderStage(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    auto* titleRow = new QHBoxLayout;
    titleRow->addWidget(makeSectionTitle(QStringLiteral("Links at risk, worst first"), this));
    m_summary->setObjectName(QStringLiteral("linkSummary"));
    titleRow->addWidget(m_summary, 1);
    layout->addLayout(titleRow);

    // The list across the page's width (its words need it), the selected link's chart under it.
    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_table->setObjectName(QStringLiteral("linksAtRisk"));
    // The model's order (at risk, then P 6 h) until the operator sorts by a column.
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->proxy()->sort(-1);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_empty->setObjectName(QStringLiteral("linksAtRiskEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_stack->addWidget(m_table);
    m_stack->addWidget(m_empty);
    auto* listAndSteps = new QWidget(splitter);
    auto* listLayout = new QVBoxLayout(listAndSteps);
    listLayout->setContentsMargins(0, 0, 0, 0);
    listLayout->addWidget(m_stack, 1);
    // Links a little above Normal are most of what fleetd lists on a quiet fleet: behind a line,
    // so the list opens on the links that need a decision.
    m_elevatedToggle->setObjectName(QStringLiteral("linksElevatedToggle"));
    m_elevatedToggle->setFlat(true);
    m_elevatedToggle->setCursor(Qt::PointingHandCursor);
    m_elevatedToggle->setStyleSheet(QStringLiteral("text-align: left; padding: 2px 4px;"));
    listLayout->addWidget(m_elevatedToggle);
    connect(m_elevatedToggle, &QPushButton::clicked, this,
            [this] { m_model->setElevatedShown(!m_model->elevatedShown()); });
    m_ladderStage->setObjectName(QStringLiteral("linkLadderStage"));
    m_ladderRow->addWidget(m_ladderStage, 1);
    listLayout->addLayout(m_ladderRow);
    splitter->addWidget(listAndSteps);
    m_chart->setObjectName(QStringLiteral("linkBerChart"));
    splitter->addWidget(m_chart);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);

    connect(m_table, &EntityTableView::entityActivated, this, [this](EntityId port) {
        if (port.isValid()) emit linkActivated(port);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        const QModelIndex current = m_table->selectionModel()->currentIndex();
        if (const client::LinkRiskRow* row =
                current.isValid() ? m_model->linkAt(m_table->proxy()->mapToSource(current).row()) : nullptr)
            m_selected = row->port;
        refreshChart();
        refreshLadder();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { refresh(); });
    if (m_actions)
        connect(m_actions, &OperatorActions::availabilityChanged, this, [this] {
            m_ladderShown.clear();
            refreshLadder();
        });
    refresh();
}

void LinksAtRiskPanel::applyTheme(const widgets::Theme& theme) {
    m_chart->setTheme(theme);
    // Title, legend, a few decades and the time axis in the theme's type: on the wall's larger
    // type a shorter chart would cut its own labels.
    m_chart->setMinimumHeight(QFontMetrics(theme.labelFont()).height() * 8);
    m_table->verticalHeader()->setDefaultSectionSize(QFontMetrics(theme.font(9.5)).height() + 8);
    // Room for the header and five links before the chart takes the rest.
    const int row = m_table->verticalHeader()->defaultSectionSize();
    m_stack->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height() + 5 * row + row / 2 +
                              m_table->horizontalScrollBar()->sizeHint().height());
    QPalette dim = m_summary->palette();
    dim.setColor(QPalette::WindowText, theme.colors().textDim);
    m_summary->setPalette(dim);
    m_empty->setPalette(dim);
}

void LinksAtRiskPanel::setReadOnlyWall(bool wall) {
    m_table->setReadOnlyWall(wall);
    // The wall shows the list, which reads from across the room; one link's 30-minute buckets are
    // for the desk that investigates it.
    m_chart->setVisible(!wall);
}

QString LinksAtRiskPanel::summaryText() const { return m_summary->text(); }
QString LinksAtRiskPanel::emptyText() const { return m_empty->text(); }
bool LinksAtRiskPanel::showsEmptyText() const { return m_stack->currentWidget() == m_empty; }

EntityId LinksAtRiskPanel::selectedLink() const { return m_selected; }

bool LinksAtRiskPanel::selectLink(EntityId port) {
    if (m_model->rowOf(port) < 0 && m_model->lists(port)) m_model->setElevatedShown(true);
    return selectShown(port);
}

bool LinksAtRiskPanel::selectShown(EntityId port) {
    const int source = m_model->rowOf(port);
    if (source < 0) return false;
    const QModelIndex view = m_table->proxy()->mapFromSource(m_model->index(source, 0));
    m_table->selectionModel()->setCurrentIndex(view, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(view);
    return true;
}

void LinksAtRiskPanel::refresh() {
    m_summary->setText(client::linkSummaryText(m_store));
    const bool empty = m_model->rowCount() == 0;
    m_empty->setText(empty ? client::linksAtRiskEmptyText(m_store) : QString());
    m_stack->setCurrentWidget(empty ? static_cast<QWidget*>(m_empty) : m_table);
    if (!empty) fitColumns();
    refreshElevatedToggle();
    // The link selected stays selected through the model's rebuilds; else the worst one.
    if (!empty && !selectShown(m_selected)) selectShown(m_model->linkAt(0)->port);
    refreshChart();
    refreshLadder();
}

void LinksAtRiskPanel::refreshElevatedToggle() {
    const int elevated = m_model->elevatedCount();
    m_elevatedToggle->setVisible(elevated > 0);
    const QString links =
        elevated == 1 ? QStringLiteral("1 elevated link") : QStringLiteral("%1 elevated links").arg(elevated);
    m_elevatedToggle->setText(
        m_model->elevatedShown()
            ? QStringLiteral("▾ Hide the %1 (dim, at the end of the list)").arg(links)
            : QStringLiteral("▸ Show %1: above Normal, not at risk, not on the ladder").arg(links));
}

void LinksAtRiskPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (m_model->rowCount() > 0) fitColumns();
}

void LinksAtRiskPanel::fitColumns() {
    using Column = client::LinkRiskModel::Column;
    // Every column as wide as its words up to a third of a wide screen; a longer one elides and
    // its tooltip has it all.
    m_table->fitColumnsToContents(kMaxColumnWidth, false);
    QHeaderView* header = m_table->horizontalHeader();
    const int last = Column::ColumnCount - 1;
    const int lastWanted = m_table->columnWidthWanted(last);
    int used = 0;
    for (int c = 0; c < last; ++c) used += header->sectionSize(c);
    int excess = used + lastWanted - m_table->viewport()->width();
    for (const auto& [column, narrowest] :
         {std::pair{Column::Ber, kMinBerWidth}, std::pair{Column::Influencer, kMinInfluencerWidth}}) {
        if (excess <= 0) break;
        const int give = std::clamp(header->sectionSize(column) - narrowest, 0, excess);
        header->resizeSection(column, header->sectionSize(column) - give);
        excess -= give;
    }
    // Room to spare: a column held to kMaxColumnWidth (a BER with both ends' intervals) takes it.
    for (int c = 0; c < last && excess < 0; ++c) {
        const int grow = std::min(m_table->columnWidthWanted(c) - header->sectionSize(c), -excess);
        if (grow <= 0) continue;
        header->resizeSection(c, header->sectionSize(c) + grow);
        excess += grow;
    }
}

QList<QPushButton*> LinksAtRiskPanel::ladderButtons() const { return m_ladderButtons; }

void LinksAtRiskPanel::refreshLadder() {
    const client::LinkRiskRow* row = m_model->linkAt(m_model->rowOf(m_selected));
    m_ladderStage->setText(row ? QStringLiteral("%1 — %2").arg(row->name, row->stage) : QString());
    const QList<ActionDraft> drafts =
        row && m_actions ? m_actions->draftsForLink(row->endpoint, row->record) : QList<ActionDraft>{};
    QString shown;
    for (const ActionDraft& d : drafts) shown += d.label + QString::number(d.request.at_next_checkpoint());
    if (shown == m_ladderShown) return;  // the list rebuilt every poll: keep the buttons under the pointer
    m_ladderShown = shown;
    qDeleteAll(m_ladderButtons);
    m_ladderButtons.clear();
    for (const ActionDraft& d : drafts) {
        auto* button = new QPushButton(d.label, this);
        button->setObjectName(QStringLiteral("linkStep-%1").arg(d.request.type()));
        connect(button, &QPushButton::clicked, this, [this, d] { m_actions->open(d, this); });
        m_ladderRow->addWidget(button);
        m_ladderButtons << button;
    }
}

void LinksAtRiskPanel::refreshChart() {
    const int source = m_model->rowOf(m_selected);
    const client::LinkRiskRow* row = m_model->linkAt(source);
    if (!row) {
        widgets::BerChartData none;
        none.title = QStringLiteral("Symbol BER history");
        none.emptyText = m_model->rowCount() == 0
                             ? QStringLiteral("No link at risk to chart.")
                             : QStringLiteral("Select a link at risk for its BER history and forecast.");
        m_chart->setData(std::move(none));
        return;
    }
    m_chart->setData(berChartData(row->record, row->name, m_store.endpointFleet(row->endpoint).serverTimeUnixMs()));
}

}  // namespace watchfloor::ui
