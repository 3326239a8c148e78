#include "GoodputPage.h"

#include "EttrBudgetPanel.h"
#include "FailSlowPanel.h"
#include "FleetFormat.h"
#include "HistoryChartBinding.h"
#include "KpiStrip.h"
#include "PageHeader.h"
#include "StragglerDrillDown.h"

#include "FleetGoodputMerge.h"
#include "FleetStore.h"
#include "JobProgress.h"
#include "StackedBreakdownChart.h"
#include "TimeSeriesChart.h"

#include <QComboBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QHeaderView>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

namespace {

// Interruptions per GPU-hour: tiny for a healthy fleet, so scientific, but a plain 0 when there were none
// ("0.00e+00" reads as a broken number on a wall).
QString perGpuHour(double rate) { return rate > 0 ? QString::number(rate, 'e', 2) : QStringLiteral("0"); }

constexpr std::chrono::milliseconds kChartRefresh{1000};

// The badput categories in the order operators read them (Google ml-goodput-measurement plus
// straggler slowdown), with accessors into GoodputBreakdown.
struct BadputCategory {
    const char* name;
    double (v1::GoodputBreakdown::*seconds)() const;
};
const BadputCategory kCategories[] = {
    {"Productive", &v1::GoodputBreakdown::productive_s},
    {"Accelerator init", &v1::GoodputBreakdown::accelerator_init_s},
    {"Training prep", &v1::GoodputBreakdown::training_prep_s},
    {"Program startup", &v1::GoodputBreakdown::program_startup_s},
    {"Data loading", &v1::GoodputBreakdown::data_loading_sync_s},
    {"Checkpoint save", &v1::GoodputBreakdown::checkpoint_save_s},
    {"Checkpoint restore", &v1::GoodputBreakdown::checkpoint_restore_s},
    {"Wasted progress", &v1::GoodputBreakdown::wasted_progress_s},
    {"Infra recovery", &v1::GoodputBreakdown::infra_recovery_s},
    {"Straggler slowdown", &v1::GoodputBreakdown::straggler_slowdown_s},
    {"Other", &v1::GoodputBreakdown::other_s},
};

enum JobColumn {
    JobName,
    JobGpus,
    JobGoodput,
    JobEttr,
    JobEttr1h,
    JobExpectedEttr,
    JobMfu,
    JobCheckpointAge,
    JobInterval,
    JobYoungDaly,
    JobCheckpointGap,
    JobStragglers,
    JobColumnCount
};

// "1.2e-05 per GPU-hour (95 %: 0.8e-05–1.9e-05)"; the interval left out when there is none.
QString rateWithInterval(double rate, double low, double high) {
    QString text = QStringLiteral("%1 per GPU-hour").arg(perGpuHour(rate));
    if (high > 0) text += QStringLiteral(" (95 %: %1–%2)").arg(perGpuHour(low), perGpuHour(high));
    return text;
}

// "E[ETTR] 93.1 % · slow steps 11.8 %": what the ETTR card is compared with, and how far goodput
// lies below it.
QString ettrDetail(double expectedEttr, double slownessRatio) {
    QString text = expectedEttr > 0 ? QStringLiteral("E[ETTR] %1").arg(formatRatioPercent(expectedEttr))
                                    : QStringLiteral("no E[ETTR] (no configured rates)");
    return text + QStringLiteral(" · slow steps %1").arg(formatRatioPercent(slownessRatio));
}

QString gpuHoursPerDay(double gpuHours) {
    return QStringLiteral("%1 GPU-h/day").arg(gpuHours, 0, 'f', gpuHours < 10 ? 1 : 0);
}

}  // namespace

GoodputPage::GoodputPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_context(context),
      m_store(*context.store),
      m_header(new PageHeader(QStringLiteral("Goodput"), this)),
      m_scopeBox(new QComboBox),
      m_exportPng(new QPushButton(QStringLiteral("Export PNG…"))),
      m_exportCsv(new QPushButton(QStringLiteral("Export CSV…"))),
      m_kpis(new KpiStrip(this)),
      m_history(new widgets::TimeSeriesChart(this)),
      m_breakdown(new widgets::StackedBreakdownChart(this)),
      m_budget(new EttrBudgetPanel(this)),
      m_scroll(new QScrollArea(this)),
      m_jobs(new QTableWidget(0, JobColumnCount, this)),
      m_failSlow(new FailSlowPanel(context, this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    m_scopeBox->setToolTip(QStringLiteral("Fleet or one job"));
    m_scopeBox->setMinimumContentsLength(24);
    m_exportPng->setToolTip(QStringLiteral("Save the history chart as a PNG image"));
    m_exportCsv->setToolTip(QStringLiteral("Save the history chart's points as CSV (UTC timestamps)"));
    m_header->addControl(m_scopeBox);
    m_header->addControl(m_exportPng);
    m_header->addControl(m_exportCsv);
    layout->addWidget(m_header);

    m_kpis->addCard(
        QStringLiteral("goodput"), QStringLiteral("Goodput"),
        QStringLiteral("Progress at the ideal pace over GPU time (Google's goodput): kept steps × ideal step "
                       "time / total. Slow steps count as badput. Provisional; confirmed = up to the last "
                       "durable checkpoint"));
    m_kpis->addCard(QStringLiteral("ettr"), QStringLiteral("ETTR"),
                    QStringLiteral("Effective training time ratio (Meta): wall time in kept steps / total, a slow step "
                                   "counted as productive. ETTR − goodput = the slow steps' share. Beside it: E[ETTR], "
                                   "Meta's expectation from the failure rate, restart overhead and checkpoint cost"));
    m_kpis->addCard(QStringLiteral("ettr1h"), QStringLiteral("ETTR (1 h)"),
                    QStringLiteral("ETTR and goodput of the last hour (sliding)"));
    m_kpis->addCard(QStringLiteral("mfu"), QStringLiteral("MFU"), QStringLiteral("Model FLOPs utilisation (PaLM)"));
    m_kpis->addCard(
        QStringLiteral("interruptions"), QStringLiteral("Interruptions"),
        QStringLiteral("Job interruptions of every cause, their rate per GPU-hour the jobs held with its 95 % "
                       "chi-square interval; for one job, its MTTI"));
    m_kpis->addCard(QStringLiteral("checkpoint"), QStringLiteral("Checkpoint"),
                    QStringLiteral("Interval against the Young/Daly optimum, what the difference costs in GPU-hours a "
                                   "day (E[ETTR] at the optimum − at the interval, × GPUs × 24 h), and the age of the "
                                   "last checkpoint"));
    layout->addWidget(m_kpis);

    // Below the headline numbers the page scrolls when the window is shorter than its parts: a
    // squeezed layout drew the budget's footnote over its last rows and cut the jobs table to
    // one and a half rows.
    auto* body = new QWidget;
    body->setObjectName(QStringLiteral("goodputBody"));
    auto* bodyLayout = new QVBoxLayout(body);
    bodyLayout->setContentsMargins(0, 0, 0, 0);
    bodyLayout->setSpacing(8);
    m_scroll->setObjectName(QStringLiteral("goodputScroll"));
    m_scroll->setWidget(body);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_scroll, 1);

    auto* grid = new QGridLayout;
    m_charts = grid;
    grid->setSpacing(8);
    m_history->setTitle(QStringLiteral("Goodput, ETTR and MFU over time"));
    m_history->setValueUnit(QStringLiteral("%"));
    m_history->setValueRange(0, 100);
    m_breakdown->setTitle(QStringLiteral("Where the GPU time went (share of each scope)"));
    m_breakdown->setValueUnit(QStringLiteral("%"));
    m_breakdown->setValueCeiling(100);
    grid->addWidget(m_history, 0, 0);
    grid->addWidget(m_breakdown, 0, 1);
    grid->addWidget(m_budget, 0, 2);
    grid->setColumnStretch(0, 3);
    grid->setColumnStretch(1, 2);
    grid->setColumnStretch(2, 2);
    m_history->setMinimumHeight(240);
    m_breakdown->setMinimumHeight(240);
    bodyLayout->addLayout(grid, 1);

    bodyLayout->addWidget(makeSectionTitle(QStringLiteral("Jobs: goodput, checkpointing and stragglers"), body));
    m_jobs->setObjectName(QStringLiteral("goodputJobs"));
    m_jobs->setHorizontalHeaderLabels({QStringLiteral("Job"), QStringLiteral("GPUs"), QStringLiteral("Goodput"),
                                       QStringLiteral("ETTR"), QStringLiteral("ETTR (1 h)"), QStringLiteral("E[ETTR]"),
                                       QStringLiteral("MFU"), QStringLiteral("Checkpoint age"),
                                       QStringLiteral("Interval"), QStringLiteral("Young/Daly"),
                                       QStringLiteral("Interval cost"), QStringLiteral("Stragglers")});
    m_jobs->verticalHeader()->hide();
    m_jobs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_jobs->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_jobs->horizontalHeader()->setStretchLastSection(true);
    m_jobs->setShowGrid(false);
    m_jobs->setAlternatingRowColors(true);
    bodyLayout->addWidget(m_jobs);
    bodyLayout->addWidget(m_failSlow);

    connect(m_scopeBox, &QComboBox::activated, this, [this](int index) {
        const QString job = m_scopeBox->itemData(index).toString();
        emit navigationRequested({PageId::Goodput, job});
    });
    connect(m_jobs, &QTableWidget::cellActivated, this, [this](int row, int column) {
        const auto job = client::EntityId::fromKey(m_jobs->item(row, JobName)->data(Qt::UserRole).toULongLong());
        if (column == JobStragglers && m_context.connection(job.endpoint)) {
            // Opens on the straggler fleetd names, if any; else on the slowest tray of the map.
            const v1::Job* info = m_store.job(m_store.jobRow(job));
            const bool named = info && info->straggler_node_indexes_size() > 0;
            openStragglerDrillDown(
                m_context, job,
                named ? client::EntityId{job.endpoint, info->straggler_node_indexes(0)} : client::EntityId{},
                m_theme ? *m_theme : widgets::Theme::builtin(widgets::ThemeVariant::Dark), this);
            return;
        }
        emit navigationRequested({PageId::Goodput, m_jobs->item(row, JobName)->text()});
    });
    connect(m_exportPng, &QPushButton::clicked, this, [this] { exportWithDialog(true); });
    connect(m_exportCsv, &QPushButton::clicked, this, [this] { exportWithDialog(false); });
    connect(&m_store, &client::FleetStore::changed, this, &GoodputPage::onStoreChanged);
    m_chartTimer.setInterval(kChartRefresh);
    connect(&m_chartTimer, &QTimer::timeout, this, [this] {
        if (m_historyBinding) m_historyBinding->refresh();
    });
}

QString GoodputPage::summary() const { return m_header->summary(); }

QString GoodputPage::entity() const { return m_job.isValid() ? m_store.name(m_job) : QString(); }

bool GoodputPage::showEntity(const QString& name) {
    if (name.isEmpty() || name.compare(QStringLiteral("fleet"), Qt::CaseInsensitive) == 0) {
        setScope({});
        return true;
    }
    const EntityId id = m_store.findByName(name);
    if (!id.isValid() || m_store.kind(id) != v1::ENTITY_KIND_JOB) return false;
    setScope(id);
    return true;
}

void GoodputPage::setScope(EntityId job) {
    m_job = job;
    if (m_theme) {
        EntityId source = job;
        if (!source.isValid() && !m_store.fleetRoots().isEmpty()) source = m_store.fleetRoots().first();
        const bool fleet = !job.isValid();
        const v1::Metric metrics[] = {fleet ? v1::FLEET_GOODPUT_RATIO : v1::JOB_GOODPUT_RATIO,
                                      fleet ? v1::FLEET_ETTR_SLIDING_1H_RATIO : v1::JOB_ETTR_SLIDING_1H_RATIO,
                                      fleet ? v1::FLEET_MFU_RATIO : v1::JOB_MFU_RATIO};
        if (!m_historyBinding) {
            m_historyBinding = new HistoryChartBinding(m_context, m_history, this);
            const widgets::ThemeColors& c = m_theme->colors();
            m_historyBinding->addSeries(QStringLiteral("Goodput"), c.ok, source, metrics[0], 100.0);
            m_historyBinding->addSeries(QStringLiteral("ETTR (1 h)"), c.accent, source, metrics[1], 100.0);
            m_historyBinding->addSeries(QStringLiteral("MFU"), c.warn, source, metrics[2], 100.0);
        } else {
            for (int i = 0; i < 3; ++i) m_historyBinding->setSeriesTarget(i, source, metrics[i]);
        }
        m_historyBinding->refresh();
    }
    m_scopeBox->setCurrentIndex(std::max(0, m_scopeBox->findData(entity())));
    m_dirty = true;
    refresh();
    emit entityShown(entity());
}

void GoodputPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
    if (!wall) return;
    // A third of the width leaves wall-type scopes as "Fl…" under the bars and the causes as
    // "Accelera…" beside them: on the wall the breakdown gets a row of its own.
    QGridLayout* grid = m_charts;
    grid->removeWidget(m_breakdown);
    grid->removeWidget(m_budget);
    grid->addWidget(m_budget, 0, 1, 1, 2);
    grid->addWidget(m_breakdown, 1, 0, 1, 3);
    m_breakdown->setMinimumHeight(560);
}

void GoodputPage::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    m_header->applyTheme(theme);
    m_kpis->applyTheme(theme);
    m_history->setTheme(theme);
    m_breakdown->setTheme(theme);
    m_budget->applyTheme(theme);
    m_failSlow->setTheme(theme);
    if (!m_historyBinding) setScope(m_job);
    m_dirty = true;
    refresh();
}

bool GoodputPage::hasContent() const {
    return client::mergeFleetGoodput(m_store).any && m_historyBinding && m_historyBinding->backfillSettled() &&
           !m_history->rawPoints(0).isEmpty();
}

void GoodputPage::setActive(bool active) {
    Page::setActive(active);
    if (active) {
        m_chartTimer.start();
        if (m_historyBinding) m_historyBinding->refresh();
        if (m_dirty) refresh();
    } else {
        m_chartTimer.stop();
    }
}

void GoodputPage::onStoreChanged(const client::FleetChangeSet& changes) {
    if (changes.jobsReset || changes.jobsAppended > 0 || changes.topologyChanged) rebuildScopeBox();
    if (changes.topologyChanged && m_historyBinding)
        setScope(m_job.isValid() && !m_store.name(m_job).isEmpty() ? m_job : EntityId{});
    if (changes.fleetChanged || !changes.dirtyJobRows.empty() || changes.jobsReset || changes.freshnessTick) {
        m_dirty = true;
        if (isActive()) refresh();
    }
}

void GoodputPage::rebuildScopeBox() {
    const QSignalBlocker block(m_scopeBox);
    m_scopeBox->clear();
    m_scopeBox->addItem(QStringLiteral("Fleet"), QString());
    for (int row = 0; row < m_store.jobCount(); ++row) {
        if (const v1::Job* job = m_store.job(row); job && job->state() != v1::JOB_STATE_FINISHED)
            m_scopeBox->addItem(QString::fromStdString(job->name()), QString::fromStdString(job->name()));
    }
    m_scopeBox->setCurrentIndex(std::max(0, m_scopeBox->findData(entity())));
}

void GoodputPage::refresh() {
    if (!m_theme) return;
    m_dirty = false;
    if (m_scopeBox->count() == 0) rebuildScopeBox();
    const v1::Job* job = m_job.isValid() ? m_store.job(m_store.jobRow(m_job)) : nullptr;
    m_header->setTitle(job ? QStringLiteral("Goodput · %1").arg(QString::fromStdString(job->name()))
                           : QStringLiteral("Goodput · fleet"));
    if (job) {
        m_header->setSummary(
            QStringLiteral("Slurm job %1 · %2 · %3 GPUs · model %4 · step %5 · started %6 UTC")
                .arg(QString::fromStdString(job->slurm_job_id()),
                     client::jobStateText(*job, m_store.endpointFleet(m_job.endpoint).serverTimeUnixMs()))
                .arg(job->gpu_count())
                .arg(QString::fromStdString(job->model().name()))
                .arg(job->step())
                .arg(formatUnixMs(job->started_unix_ms(), true)));
    } else {
        const client::MergedFleetGoodput fleet = client::mergeFleetGoodput(m_store);
        const QString coverage = goodputCoverage(client::summarizeFleet(m_store));
        // The hardware rate counts fail-stops only; every interruption (software, scripted, operator
        // restarts) is in the all-cause rate beside it. Issue 16 item 2: the demo read 0 beside 5 interruptions.
        const QString hardware = fleet.poweredGpuHours > 0
                                     ? rateWithInterval(fleet.hardwareRate(), fleet.hardwareLow, fleet.hardwareHigh)
                                     : QStringLiteral("n/a");
        const QString allCauses = fleet.jobGpuHours > 0
                                      ? rateWithInterval(fleet.interruptionRate(), fleet.allLow, fleet.allHigh)
                                      : QStringLiteral("n/a");
        m_header->setSummary(QStringLiteral("%1 GPUs · %2 jobs · hardware failures %3 · all-cause interruptions %4%5")
                                 .arg(fleet.gpus)
                                 .arg(m_scopeBox->count() - 1)
                                 .arg(hardware, allCauses,
                                      coverage.isEmpty() ? QString()
                                                         : QStringLiteral(" · averages %1 (jobs without step telemetry "
                                                                          "are left out)")
                                                               .arg(coverage)));
    }
    refreshKpis();
    refreshBreakdown();
    refreshBudget();
    refreshJobsTable();
    m_failSlow->refresh(m_job);
}

void GoodputPage::refreshBudget() {
    EttrBudgetView view;
    const v1::Job* job = m_job.isValid() ? m_store.job(m_store.jobRow(m_job)) : nullptr;
    if (job) {
        view.budget = job->ettr_budget();
        view.expectedEttr = job->expected_ettr_ratio();
        view.ettr = job->ettr_ratio();
        view.goodput = job->goodput_ratio();
        view.measured = !job->no_step_telemetry() && !client::jobIsStarting(*job);
        view.note =
            QStringLiteral("Λ and Young/Daly: %1. Checkpoint interval %2%3.")
                .arg(QString::fromStdString(job->checkpoint_advice().failure_rate_basis()),
                     formatDuration(job->checkpoint_interval_s()),
                     job->checkpoint_advice().interval_auto() ? QStringLiteral(" (auto: Young/Daly)") : QString());
    } else {
        const client::MergedFleetGoodput fleet = client::mergeFleetGoodput(m_store);
        view.budget = fleet.budget;
        view.expectedEttr = fleet.expectedEttr;
        view.ettr = fleet.ettr;
        view.goodput = fleet.goodput;
        view.measured = fleet.measured;
        view.note = QStringLiteral(
            "GPU-weighted over the jobs. The header's hardware rate counts fail-stops only "
            "(hover for the causes); every interruption is in the all-cause rate.");
        view.noteDetail = fleet.failureCauses.empty() ? QStringLiteral("The source does not tell failure causes apart.")
                                                      : QString::fromStdString(fleet.failureCauses);
    }
    m_budget->setView(view);
}

void GoodputPage::refreshKpis() {
    const client::FleetSummary summary = client::summarizeFleet(m_store);
    const v1::Job* scoped = m_job.isValid() ? m_store.job(m_store.jobRow(m_job)) : nullptr;
    // Stale: the job's endpoint is not live, or (fleet scope) part of the merged weight is from one.
    const bool live =
        scoped ? m_store.endpointState(m_job.endpoint) == client::ConnectionState::Live : summary.allLive();
    const KpiLevel shown = live ? KpiLevel::Neutral : KpiLevel::Warning;
    QString stale;
    if (!live) {
        QStringList notes{scoped ? QStringLiteral("stale") : staleRatioNote(summary), endpointsLiveNote(summary)};
        notes.removeAll(QString());
        stale = QStringLiteral(" · ") + notes.join(QStringLiteral(" · "));
    }
    const bool noSteps = scoped && scoped->no_step_telemetry();
    if (noSteps || (scoped && client::jobIsStarting(*scoped))) {
        // No figures yet (or ever): fleetd's zeros would read as a job making no progress.
        const QString none = noSteps ? client::noStepTelemetryLabel() : client::startingLabel();
        const QString why = noSteps
                                ? QStringLiteral("not computed for this job")
                                : QStringLiteral("no productive step yet (%1)").arg(client::toString(scoped->state()));
        for (const char* card : {"goodput", "ettr", "ettr1h", "mfu"})
            m_kpis->setCard(QString::fromLatin1(card), none, why + stale, KpiLevel::Missing);
        if (noSteps)
            m_kpis->setCard(QStringLiteral("checkpoint"), none, why, KpiLevel::Missing);
        else
            m_kpis->setCard(
                QStringLiteral("checkpoint"), formatDuration(scoped->checkpoint_interval_s()),
                QStringLiteral("Young/Daly %1 · none durable yet").arg(formatDuration(scoped->young_daly_interval_s())),
                KpiLevel::Missing);
        m_kpis->setCard(QStringLiteral("interruptions"), QString::number(scoped->interruptions()), QString(),
                        scoped->interruptions() ? KpiLevel::Warning : KpiLevel::Ok);
        return;
    }
    if (const v1::Job* job = scoped) {
        m_kpis->setCard(QStringLiteral("goodput"), formatRatioPercent(job->goodput_ratio()),
                        QStringLiteral("ideal pace · confirmed %1%2")
                            .arg(formatRatioPercent(job->confirmed_goodput_ratio()), stale),
                        shown);
        const bool belowExpected = job->ettr_ratio() < job->expected_ettr_ratio() - 0.02;
        m_kpis->setCard(QStringLiteral("ettr"), formatRatioPercent(job->ettr_ratio()),
                        ettrDetail(job->expected_ettr_ratio(), job->ettr_budget().measured_slowness_ratio()),
                        belowExpected ? KpiLevel::Warning : shown);
        m_kpis->setCard(
            QStringLiteral("ettr1h"), formatRatioPercent(job->ettr_sliding_1h_ratio()),
            QStringLiteral("goodput (1 h) %1%2").arg(formatRatioPercent(job->goodput_sliding_1h_ratio()), stale),
            shown);
        m_kpis->setCard(QStringLiteral("mfu"), formatRatioPercent(job->mfu_ratio()),
                        QStringLiteral("step %1 s (ideal %2 s)")
                            .arg(job->step_time_s(), 0, 'f', 2)
                            .arg(job->ideal_step_time_s(), 0, 'f', 2),
                        shown);
        m_kpis->setCard(QStringLiteral("interruptions"), QString::number(job->interruptions()),
                        job->mtti_s() > 0 ? QStringLiteral("MTTI %1 (95 %: %2–%3)")
                                                .arg(formatDuration(job->mtti_s()), formatDuration(job->mtti_low_s()),
                                                     formatDuration(job->mtti_high_s()))
                                          : QStringLiteral("no interruption yet"),
                        job->interruptions() ? KpiLevel::Warning : KpiLevel::Ok);
        const double age =
            job->last_checkpoint_unix_ms() > 0
                ? (m_store.endpointFleet(m_job.endpoint).serverTimeUnixMs() - job->last_checkpoint_unix_ms()) / 1000.0
                : std::nan("");
        const double interval = job->checkpoint_interval_s();
        const double optimum = job->young_daly_interval_s();
        const bool offOptimum = optimum > 0 && (interval > 1.5 * optimum || interval < optimum / 1.5);
        const v1::CheckpointAdvice& advice = job->checkpoint_advice();
        m_kpis->setCard(
            QStringLiteral("checkpoint"),
            formatDuration(interval) + (advice.interval_auto() ? QStringLiteral(" (auto)") : QString()),
            QStringLiteral("Young/Daly %1 · costs %2 · last %3 ago")
                .arg(formatDuration(optimum), gpuHoursPerDay(advice.gap_gpu_hours_per_day()), formatDuration(age)),
            offOptimum ? KpiLevel::Warning : shown);
        return;
    }
    const client::MergedFleetGoodput fleet = client::mergeFleetGoodput(m_store);
    const KpiLevel level = fleet.measured ? shown : KpiLevel::Missing;
    auto ratio = [&](double r) {
        return fleet.measured       ? formatRatioPercent(r)
               : summary.starting() ? client::startingLabel()
                                    : QStringLiteral("n/a");
    };
    // Jobs without step telemetry are not in these averages: each card says over which jobs they are.
    const QString coverage = goodputCoverage(summary);
    auto over = [&](const QString& what) {
        const QString base =
            summary.starting() ? QStringLiteral("%1 job(s) initialising").arg(summary.jobsStarting) : what;
        return (coverage.isEmpty() ? base : base + QStringLiteral(" · ") + coverage) +
               (fleet.measured ? stale : QString());
    };
    m_kpis->setCard(QStringLiteral("goodput"), ratio(fleet.goodput),
                    over(QStringLiteral("ideal pace · confirmed %1").arg(ratio(fleet.confirmed))), level);
    m_kpis->setCard(
        QStringLiteral("ettr"), ratio(fleet.ettr),
        over(fleet.measured ? ettrDetail(fleet.expectedEttr, fleet.budget.measured_slowness_ratio())
                            : QStringLiteral("cumulative")),
        fleet.measured && fleet.expectedEttr > 0 && fleet.ettr < fleet.expectedEttr - 0.02 ? KpiLevel::Warning : level);
    m_kpis->setCard(QStringLiteral("ettr1h"), ratio(fleet.ettr1h),
                    over(QStringLiteral("goodput (1 h) %1").arg(ratio(fleet.goodput1h))), level);
    m_kpis->setCard(QStringLiteral("mfu"), ratio(fleet.mfu), over(QStringLiteral("GPU-time weighted")), level);
    m_kpis->setCard(
        QStringLiteral("interruptions"), fleet.any ? QString::number(fleet.interruptions) : QStringLiteral("n/a"),
        fleet.jobGpuHours > 0 ? QStringLiteral("all causes %1")
                                    .arg(rateWithInterval(fleet.interruptionRate(), fleet.allLow, fleet.allHigh))
                              : QString(),
        !fleet.any            ? KpiLevel::Missing
        : fleet.interruptions ? KpiLevel::Warning
                              : KpiLevel::Ok);
    // Fleet scope: the checkpoint card speaks for the job furthest from its optimum.
    const v1::Job* worst = nullptr;
    double worstRatio = 0;
    for (int row = 0; row < m_store.jobCount(); ++row) {
        const v1::Job* job = m_store.job(row);
        if (!job || job->state() == v1::JOB_STATE_FINISHED || job->no_step_telemetry() ||
            job->young_daly_interval_s() <= 0)
            continue;
        const double off = std::abs(std::log(job->checkpoint_interval_s() / job->young_daly_interval_s()));
        if (!worst || off > worstRatio) {
            worst = job;
            worstRatio = off;
        }
    }
    if (worst) {
        m_kpis->setCard(QStringLiteral("checkpoint"), gpuHoursPerDay(fleet.checkpointGapGpuHoursPerDay),
                        QStringLiteral("lost to intervals off Young/Daly · worst %1: %2 vs %3")
                            .arg(QString::fromStdString(worst->name()), formatDuration(worst->checkpoint_interval_s()),
                                 formatDuration(worst->young_daly_interval_s())),
                        worstRatio > std::log(1.5) ? KpiLevel::Warning : shown);
    } else {
        m_kpis->setCard(QStringLiteral("checkpoint"), QStringLiteral("n/a"), QString(), KpiLevel::Missing);
    }
}

void GoodputPage::refreshBreakdown() {
    QStringList buckets;
    std::vector<const v1::GoodputBreakdown*> sources;
    const client::MergedFleetGoodput fleet = client::mergeFleetGoodput(m_store);
    if (fleet.any && !m_job.isValid()) {
        buckets << QStringLiteral("Fleet");
        sources.push_back(&fleet.breakdown);
    }
    for (int row = 0; row < m_store.jobCount(); ++row) {
        const v1::Job* job = m_store.job(row);
        if (!job || job->state() == v1::JOB_STATE_FINISHED || job->no_step_telemetry() ||
            job->breakdown().total_s() <= 0)
            continue;
        if (m_job.isValid() && !(m_store.jobAt(row) == m_job)) continue;
        buckets << QString::fromStdString(job->name());
        sources.push_back(&job->breakdown());
    }
    std::vector<widgets::BreakdownCategory> categories;
    const widgets::ThemeColors& c = m_theme->colors();
    int colour = 0;
    for (const BadputCategory& category : kCategories) {
        widgets::BreakdownCategory out;
        out.name = QString::fromUtf8(category.name);
        // Productive in the theme's "ok" colour, Other neutral, so neither passes for the other.
        if (out.name == QStringLiteral("Productive"))
            out.color = c.ok;
        else if (out.name == QStringLiteral("Other"))
            out.color = c.textDim;
        else
            out.color = m_theme->categorical()[std::size_t(colour++) % m_theme->categorical().size()];
        bool any = false;
        for (const v1::GoodputBreakdown* b : sources) {
            const double total = b->total_s();
            const double share = total > 0 ? 100.0 * (b->*category.seconds)() / total : std::nan("");
            any = any || share > 0.05;
            out.values.push_back(share);
        }
        if (any || out.name == QStringLiteral("Productive")) categories.push_back(std::move(out));
    }
    m_breakdown->setData(buckets, std::move(categories));
}

void GoodputPage::refreshJobsTable() {
    m_jobs->setSortingEnabled(false);
    m_jobs->setRowCount(0);
    for (int row = 0; row < m_store.jobCount(); ++row) {
        const v1::Job* job = m_store.job(row);
        if (!job || job->state() == v1::JOB_STATE_FINISHED) continue;
        const EntityId id = m_store.jobAt(row);
        const double age =
            job->last_checkpoint_unix_ms() > 0
                ? (m_store.endpointFleet(id.endpoint).serverTimeUnixMs() - job->last_checkpoint_unix_ms()) / 1000.0
                : std::nan("");
        QStringList stragglers;
        for (std::uint32_t node : job->straggler_node_indexes())
            stragglers << m_store.name(EntityId{id.endpoint, node});
        const QString stragglerText = stragglers.isEmpty() ? QStringLiteral("none")
                                                           : QStringLiteral("%1 (S = %2)")
                                                                 .arg(stragglers.join(QStringLiteral(", ")))
                                                                 .arg(job->straggler_slowdown(), 0, 'f', 2);
        const v1::CheckpointAdvice& advice = job->checkpoint_advice();
        QStringList cells{QString::fromStdString(job->name()),
                          QString::number(job->gpu_count()),
                          formatRatioPercent(job->goodput_ratio()),
                          formatRatioPercent(job->ettr_ratio()),
                          formatRatioPercent(job->ettr_sliding_1h_ratio()),
                          formatRatioPercent(job->expected_ettr_ratio()),
                          formatRatioPercent(job->mfu_ratio()),
                          formatDuration(age),
                          formatDuration(job->checkpoint_interval_s()) +
                              (advice.interval_auto() ? QStringLiteral(" (auto)") : QString()),
                          formatDuration(job->young_daly_interval_s()),
                          gpuHoursPerDay(advice.gap_gpu_hours_per_day()),
                          stragglerText};
        const bool noSteps = job->no_step_telemetry();
        const bool starting = client::jobIsStarting(*job);
        if (noSteps) {
            for (int c = JobGoodput; c < JobColumnCount; ++c) cells[c] = client::noStepTelemetryLabel();
        } else if (starting) {
            for (int c : {JobGoodput, JobEttr, JobEttr1h, JobMfu}) cells[c] = client::startingLabel();
        }
        const int r = m_jobs->rowCount();
        m_jobs->insertRow(r);
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if ((noSteps && c >= JobGoodput) ||
                (starting && (c == JobGoodput || c == JobEttr || c == JobEttr1h || c == JobMfu)))
                item->setForeground(m_theme->colors().textDim);
            else if (c == JobStragglers && !stragglers.isEmpty())
                item->setForeground(m_theme->colors().warn);
            if (c == JobName) item->setData(Qt::UserRole, QVariant::fromValue<qulonglong>(id.key()));
            if (c == JobStragglers)
                item->setToolTip(
                    QStringLiteral("Double-click: every tray's step time over time, and the slow tray's cause"));
            if (id == m_job) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
            m_jobs->setItem(r, c, item);
        }
    }
    m_jobs->resizeColumnsToContents();
    fitJobsTable();
}

// As tall as its rows (up to eight, then it scrolls), with room for the horizontal scroll bar when
// the columns are wider than the table.
void GoodputPage::fitJobsTable() {
    constexpr int kMaxRows = 8;
    int rows = 0;
    for (int r = 0; r < std::min(m_jobs->rowCount(), kMaxRows); ++r) rows += m_jobs->rowHeight(r);
    if (m_jobs->rowCount() == 0) rows = m_jobs->verticalHeader()->defaultSectionSize();
    const int frame = 2 * m_jobs->frameWidth();
    const bool scrolls = m_jobs->horizontalHeader()->length() > m_jobs->width() - frame;
    m_jobs->setFixedHeight(m_jobs->horizontalHeader()->height() + rows + frame +
                           (scrolls ? m_jobs->horizontalScrollBar()->sizeHint().height() : 0));
}

void GoodputPage::resizeEvent(QResizeEvent* event) {
    Page::resizeEvent(event);
    fitJobsTable();
}

QString GoodputPage::exportHistoryPng(const QString& path) const {
    const widgets::ExportResult result = m_history->exportPng(path);
    return result.ok ? QString() : result.error;
}

QString GoodputPage::exportHistoryCsv(const QString& path) const {
    const widgets::ExportResult result = m_history->exportCsv(path);
    return result.ok ? QString() : result.error;
}

void GoodputPage::exportWithDialog(bool png) {
    const QString scope = entity().isEmpty() ? QStringLiteral("fleet") : entity();
    const QString suggested =
        QStringLiteral("goodput-%1.%2").arg(scope, png ? QStringLiteral("png") : QStringLiteral("csv"));
    const QString path = QFileDialog::getSaveFileName(
        this, png ? QStringLiteral("Export chart as PNG") : QStringLiteral("Export chart data as CSV"), suggested,
        png ? QStringLiteral("PNG image (*.png)") : QStringLiteral("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const QString error = png ? exportHistoryPng(path) : exportHistoryCsv(path);
    if (!error.isEmpty()) QMessageBox::warning(this, QStringLiteral("Export failed"), error);
}

}  // namespace watchfloor::ui
