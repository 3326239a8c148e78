#include "JobsPage.h"

#include "ActionBar.h"
#include "EntityNavigation.h"
#include "EntityTableView.h"
#include "FleetFormat.h"
#include "OperatorActions.h"
#include "PageHeader.h"

#include "FleetRankings.h"
#include "FleetStore.h"
#include "JobProgress.h"
#include "JobTableModel.h"
#include "Theme.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

namespace {

// The job to show when none was asked for: the biggest active one, else the biggest one not
// finished. Jobs still initialising count, or a page opened in a fleet's first minutes stays empty.
EntityId defaultJob(const client::FleetStore& store) {
    if (auto biggest = client::biggestJob(store)) return biggest->id;
    EntityId best;
    std::uint32_t bestGpus = 0;
    for (int row = 0; row < store.jobCount(); ++row) {
        const v1::Job* job = store.job(row);
        if (!job || job->state() == v1::JOB_STATE_FINISHED) continue;
        if (!best.isValid() || job->gpu_count() > bestGpus) {
            best = store.jobAt(row);
            bestGpus = job->gpu_count();
        }
    }
    return best;
}

}  // namespace

JobsPage::JobsPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_store(*context.store),
      m_actions(context.actions),
      m_header(new PageHeader(QStringLiteral("Jobs"), this)),
      m_model(new client::JobTableModel(m_store, this)),
      m_table(new EntityTableView(m_store, m_model, this)),
      m_detail(new QLabel(this)),
      m_nodes(new QListWidget(this)),
      m_actionBar(new ActionBar(context.actions, this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    m_header->addControl(m_actionBar);
    layout->addWidget(m_header);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_table->setObjectName(QStringLiteral("jobsTable"));
    // Every column is a short value sized to its contents; stretching the last (Straggler) pushed
    // its number to the far edge, away from the job it belongs to.
    m_table->horizontalHeader()->setStretchLastSection(false);
    splitter->addWidget(m_table);
    auto* detail = new QWidget(splitter);
    auto* detailLayout = new QHBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    auto* text = new QVBoxLayout;
    text->addWidget(makeSectionTitle(QStringLiteral("Selected job"), detail));
    m_detail->setTextFormat(Qt::RichText);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_detail->setWordWrap(true);
    text->addWidget(m_detail, 1);
    detailLayout->addLayout(text, 3);
    auto* nodes = new QVBoxLayout;
    nodes->addWidget(makeSectionTitle(QStringLiteral("Trays (stragglers first)"), detail));
    m_nodes->setToolTip(QStringLiteral("Double-click a tray to open its rack"));
    nodes->addWidget(m_nodes, 1);
    detailLayout->addLayout(nodes, 1);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    connect(m_table, &EntityTableView::entityActivated, this, [this](EntityId id) {
        emit navigationRequested({PageId::Goodput, m_store.name(id)});
    });
    m_table->setMenuExtension([this](QMenu& menu, int row) {
        if (m_actions) m_actions->addToMenu(menu, m_actions->draftsFor(m_table->entityAtRow(row)), window());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const EntityId id = m_table->entityAtRow(current.row());
                if (id.isValid() && !(id == m_job)) {
                    m_job = id;
                    refreshDetail();
                    emit entityShown(entity());
                }
            });
    connect(m_nodes, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        emit navigationRequested({PageId::Rack, item->data(Qt::UserRole).toString()});
    });
    connect(&m_store, &client::FleetStore::changed, this, &JobsPage::onStoreChanged);
}

QString JobsPage::detailText() const { return m_detail->text(); }
QString JobsPage::entity() const { return m_store.name(m_job); }

bool JobsPage::showEntity(const QString& name) {
    EntityId job;
    if (name.isEmpty()) {
        job = defaultJob(m_store);
        if (!job.isValid())
            return !m_job.isValid();  // nothing to show yet; onStoreChanged() picks one when jobs arrive
    } else {
        job = m_store.findByName(name);
        if (!job.isValid() || m_store.kind(job) != v1::ENTITY_KIND_JOB) return false;
    }
    m_job = job;
    selectRowOf(job);
    m_dirty = true;
    refreshDetail();
    emit entityShown(entity());
    return true;
}

void JobsPage::selectRowOf(EntityId job) {
    for (int row = 0; row < m_table->proxy()->rowCount(); ++row) {
        if (m_table->entityAtRow(row) == job) {
            const QSignalBlocker block(m_table->selectionModel());
            m_table->selectRow(row);
            m_table->scrollTo(m_table->proxy()->index(row, 0));
            return;
        }
    }
}

void JobsPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
    m_table->setReadOnlyWall(wall);
}

void JobsPage::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    m_header->applyTheme(theme);
    refreshDetail();
}

bool JobsPage::hasContent() const { return m_job.isValid() && m_model->rowCount() > 0; }

void JobsPage::setActive(bool active) {
    Page::setActive(active);
    if (active && !m_job.isValid()) showEntity({});
    if (active && m_dirty) refreshDetail();
}

void JobsPage::onStoreChanged(const client::FleetChangeSet& changes) {
    int running = 0, gpus = 0;
    for (int row = 0; row < m_store.jobCount(); ++row) {
        if (const v1::Job* job = m_store.job(row); job && job->state() != v1::JOB_STATE_FINISHED) {
            ++running;
            gpus += int(job->gpu_count());
        }
    }
    m_header->setSummary(QStringLiteral("%1 jobs, %2 active on %3 GPUs · double-click a job for its goodput")
                             .arg(m_store.jobCount())
                             .arg(running)
                             .arg(gpus));
    if (changes.jobsReset || changes.jobsAppended > 0) {
        // Opened before the first jobs arrived (or its job is gone after a fleetd restart): pick one now.
        if (m_job.isValid() && m_store.jobRow(m_job) < 0) m_job = {};
        if (!m_job.isValid()) showEntity({});
        selectRowOf(m_job);
        m_table->resizeColumnsToContents();  // a handful of rows: cheap, and only when rows change
    }
    const int row = m_job.isValid() ? m_store.jobRow(m_job) : -1;
    if (changes.jobsReset || std::binary_search(changes.dirtyJobRows.begin(), changes.dirtyJobRows.end(), row) ||
        changes.freshnessTick) {
        m_dirty = true;
        if (isActive()) refreshDetail();
    }
}

void JobsPage::refreshDetail() {
    m_actionBar->setEntities(m_job.isValid() ? QList<EntityId>{m_job} : QList<EntityId>{});
    if (!m_theme) return;
    const v1::Job* job = m_job.isValid() ? m_store.job(m_store.jobRow(m_job)) : nullptr;
    m_nodes->clear();
    if (!job) {
        m_detail->setText(m_store.jobCount() ? QStringLiteral("Select a job.")
                                             : QStringLiteral("No jobs reported yet."));
        return;
    }
    m_dirty = false;
    const v1::ModelConfig& model = job->model();
    const std::int64_t nowMs = m_store.endpointFleet(m_job.endpoint).serverTimeUnixMs();
    const double age =
        job->last_checkpoint_unix_ms() > 0 ? (nowMs - job->last_checkpoint_unix_ms()) / 1000.0 : std::nan("");
    const QString state = client::jobStateText(*job, nowMs);
    const QString dim = m_theme->colors().textDim.name();
    auto row = [&](const QString& label, const QString& value) {
        return QStringLiteral("<tr><td style='color:%1; padding-right:12px'>%2</td><td>%3</td></tr>")
            .arg(dim, label, value);
    };
    QString html =
        QStringLiteral("<h3 style='margin:0'>%1</h3><table>").arg(QString::fromStdString(job->name()).toHtmlEscaped());
    html += row(QStringLiteral("Slurm job"), QString::fromStdString(job->slurm_job_id()));
    if (!job->user().empty()) html += row(QStringLiteral("User"), QString::fromStdString(job->user()).toHtmlEscaped());
    html += row(QStringLiteral("State"), state);
    html += row(QStringLiteral("Size"),
                QStringLiteral("%1 GPUs on %2 trays").arg(job->gpu_count()).arg(job->node_indexes_size()));
    if (job->no_step_telemetry()) {
        // A real site's job that publishes no step progress: fleetd computed none of the numbers
        // below, and their zeros must not read as a job making no progress.
        const QString none =
            QStringLiteral("<span style='color:%1'>%2</span>").arg(dim, client::noStepTelemetryLabel());
        for (const QString& label : {QStringLiteral("Step"), QStringLiteral("Goodput"), QStringLiteral("Checkpoint")})
            html += row(label, none);
        html += row(QStringLiteral("Interruptions"), QString::number(job->interruptions()));
        html += row(QStringLiteral("Started"), formatUnixMs(job->started_unix_ms(), true) + QStringLiteral(" UTC"));
        html += QStringLiteral(
                    "</table><p style='color:%1'>The job publishes no step progress (the training_step and "
                    "checkpoint_step gauges), so it has no goodput, ETTR, MFU or checkpoint figures and is "
                    "left out of the fleet averages.</p>")
                    .arg(dim);
        m_detail->setText(html);
        fillTrays(*job);
        return;
    }
    html += row(QStringLiteral("Model"), QStringLiteral("%1 · %2 B parameters · %3 layers · seq %4 · %5 M tokens/step")
                                             .arg(QString::fromStdString(model.name()))
                                             .arg(model.parameters() / 1e9, 0, 'f', 0)
                                             .arg(model.layers())
                                             .arg(model.sequence_length())
                                             .arg(model.tokens_per_step() / 1e6, 0, 'f', 1));
    html += row(QStringLiteral("Step"), QStringLiteral("%1 · %2 s/step (ideal %3 s, S = %4)")
                                            .arg(job->step())
                                            .arg(job->step_time_s(), 0, 'f', 2)
                                            .arg(job->ideal_step_time_s(), 0, 'f', 2)
                                            .arg(job->straggler_slowdown(), 0, 'f', 2));
    if (client::jobIsStarting(*job)) {
        html +=
            row(QStringLiteral("Goodput"), QStringLiteral("<span style='color:%1'>%2</span> — no productive step yet; "
                                                          "goodput, ETTR and MFU follow the first one")
                                               .arg(dim, client::startingLabel()));
    } else {
        html +=
            row(QStringLiteral("Goodput"),
                QStringLiteral("%1 (confirmed %2) · ETTR %3, 1 h %4, expected %5 · MFU %6")
                    .arg(formatRatioPercent(job->goodput_ratio()), formatRatioPercent(job->confirmed_goodput_ratio()),
                         formatRatioPercent(job->ettr_ratio()), formatRatioPercent(job->ettr_sliding_1h_ratio()),
                         formatRatioPercent(job->expected_ettr_ratio()), formatRatioPercent(job->mfu_ratio())));
    }
    const QString last =
        job->last_checkpoint_unix_ms() > 0
            ? QStringLiteral("last at step %1, %2 ago").arg(job->last_checkpoint_step()).arg(formatDuration(age))
            : QStringLiteral("none durable yet");
    html += row(QStringLiteral("Checkpoint"),
                QStringLiteral("every %1 (Young/Daly optimum %2) · save cost %3 · %4")
                    .arg(formatDuration(job->checkpoint_interval_s()), formatDuration(job->young_daly_interval_s()),
                         formatDuration(job->checkpoint_save_s()), last));
    html += row(QStringLiteral("Interruptions"),
                job->mtti_s() > 0 ? QStringLiteral("%1 · MTTI %2 (95 %: %3–%4)")
                                        .arg(job->interruptions())
                                        .arg(formatDuration(job->mtti_s()), formatDuration(job->mtti_low_s()),
                                             formatDuration(job->mtti_high_s()))
                                  : QString::number(job->interruptions()));
    html += row(QStringLiteral("Started"), formatUnixMs(job->started_unix_ms(), true) + QStringLiteral(" UTC"));
    html += QStringLiteral("</table>");
    m_detail->setText(html);
    fillTrays(*job);
}

void JobsPage::fillTrays(const v1::Job& job) {
    QList<std::uint32_t> stragglers(job.straggler_node_indexes().begin(), job.straggler_node_indexes().end());
    QList<std::uint32_t> nodes = stragglers;
    for (std::uint32_t node : job.node_indexes()) {
        if (!stragglers.contains(node)) nodes << node;
    }
    for (std::uint32_t nodeIndex : nodes) {
        const EntityId node{m_job.endpoint, nodeIndex};
        const QString name = m_store.name(node);
        const bool straggler = stragglers.contains(nodeIndex);
        auto* item = new QListWidgetItem(QStringLiteral("%1  %2%3")
                                             .arg(name, nodeStateLabel(m_store.status(node).nodeState),
                                                  straggler ? QStringLiteral("  · straggler") : QString()),
                                         m_nodes);
        item->setData(Qt::UserRole, name);
        if (straggler) item->setForeground(m_theme->colors().warn);
    }
}

}  // namespace watchfloor::ui
