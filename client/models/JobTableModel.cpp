#include "JobTableModel.h"

#include "FleetStore.h"
#include "JobProgress.h"
#include "ValueFormat.h"

namespace watchfloor::client {

namespace v1 = watchfloor::v1;

namespace {

const v1::Job* jobOf(const FleetStore& s, EntityId id) { return s.job(s.jobRow(id)); }

EntityColumn jobMetric(QString title, v1::Metric metric, double scale, int decimals, QString unit) {
    return numberColumn(
        std::move(title),
        [metric, scale](const FleetStore& s, EntityId id) {
            Reading r = s.reading(id, metric);
            if (r.hasValue()) r.value = float(double(r.value) * scale);
            return r;
        },
        decimals, std::move(unit));
}

// A field of the Job message, as fresh as the job's goodput (the two arrive together).
EntityColumn jobField(QString title, double (*field)(const v1::Job&), int decimals, QString unit) {
    return numberColumn(
        std::move(title),
        [field](const FleetStore& s, EntityId id) {
            Reading r = s.reading(id, v1::JOB_GOODPUT_RATIO);
            const v1::Job* j = jobOf(s, id);
            if (!j) return Reading{};
            if (r.freshness == Freshness::Blank) r.freshness = Freshness::Fresh;
            r.value = float(field(*j));
            return r;
        },
        decimals, std::move(unit));
}

// A column computed from step progress: empty for a job without step telemetry, and for one still
// starting when `startingToo` (its ratios would read 0 %).
EntityColumn fromSteps(EntityColumn column, bool startingToo = false) {
    column.unavailable = [startingToo](const FleetStore& s, EntityId id) {
        const v1::Job* j = jobOf(s, id);
        if (!j) return QString();
        if (j->no_step_telemetry()) return noStepTelemetryLabel();
        return startingToo && jobIsStarting(*j) ? startingLabel() : QString();
    };
    return column;
}

std::vector<EntityColumn> jobColumns() {
    std::vector<EntityColumn> c;
    c.push_back(textColumn(QStringLiteral("Job"), [](const FleetStore& s, EntityId id) { return s.name(id); }));
    c.push_back(textColumn(QStringLiteral("State"), [](const FleetStore& s, EntityId id) {
        const v1::Job* j = jobOf(s, id);
        return j ? jobStateText(*j, s.endpointFleet(id.endpoint).serverTimeUnixMs()) : QString();
    }));
    c.push_back(jobField(QStringLiteral("GPUs"), [](const v1::Job& j) { return double(j.gpu_count()); }, 0, {}));
    c.push_back(
        fromSteps(jobMetric(QStringLiteral("Goodput"), v1::JOB_GOODPUT_RATIO, 100.0, 1, QStringLiteral("%")), true));
    c.push_back(fromSteps(
        jobMetric(QStringLiteral("ETTR 1h"), v1::JOB_ETTR_SLIDING_1H_RATIO, 100.0, 1, QStringLiteral("%")), true));
    c.push_back(fromSteps(jobMetric(QStringLiteral("MFU"), v1::JOB_MFU_RATIO, 100.0, 1, QStringLiteral("%")), true));
    c.push_back(fromSteps(jobMetric(QStringLiteral("Step"), v1::JOB_STEP_TIME_S, 1.0, 2, QStringLiteral("s"))));
    c.push_back(fromSteps(
        jobMetric(QStringLiteral("Checkpoint age"), v1::JOB_CHECKPOINT_AGE_S, 1.0 / 60.0, 1, QStringLiteral("min"))));
    c.push_back(
        jobField(QStringLiteral("Interruptions"), [](const v1::Job& j) { return double(j.interruptions()); }, 0, {}));
    c.push_back(fromSteps(jobField(
        QStringLiteral("Straggler"), [](const v1::Job& j) { return j.straggler_slowdown(); }, 2, QStringLiteral("×"))));
    return c;
}

}  // namespace

QString toString(v1::JobState state) {
    switch (state) {
    case v1::JOB_STATE_PENDING: return QStringLiteral("pending");
    case v1::JOB_STATE_RUNNING: return QStringLiteral("running");
    case v1::JOB_STATE_CHECKPOINTING: return QStringLiteral("checkpointing");
    case v1::JOB_STATE_RECOVERING: return QStringLiteral("recovering");
    case v1::JOB_STATE_FINISHED: return QStringLiteral("finished");
    default: return QStringLiteral("unknown");
    }
}

QString toString(v1::RecoveryStage stage) {
    switch (stage) {
    case v1::RECOVERY_STAGE_DETECT: return QStringLiteral("detect");
    case v1::RECOVERY_STAGE_RESCHEDULE: return QStringLiteral("reschedule");
    case v1::RECOVERY_STAGE_INIT: return QStringLiteral("init");
    case v1::RECOVERY_STAGE_RESTORE: return QStringLiteral("restore");
    default: return {};
    }
}

QString trayWaitText(const v1::Job& job, std::int64_t serverNowMs) {
    if (!job.has_tray_wait() || job.recovery_stage() != v1::RECOVERY_STAGE_RESCHEDULE) return {};
    const v1::JobTrayWait& wait = job.tray_wait();
    QString text = QStringLiteral("waiting for trays: %1 needed, %2 spare%3 free")
                       .arg(wait.trays_needed())
                       .arg(wait.spares_free())
                       .arg(wait.spares_free() == 1 ? "" : "s");
    if (wait.since_unix_ms() > 0 && serverNowMs >= wait.since_unix_ms())
        text += QStringLiteral(", for %1").arg(formatDuration(double(serverNowMs - wait.since_unix_ms()) / 1000.0));
    return text;
}

QString jobStateText(const v1::Job& job, std::int64_t serverNowMs) {
    QString text = toString(job.state());
    if (job.state() != v1::JOB_STATE_RECOVERING) return text;
    if (const QString stage = toString(job.recovery_stage()); !stage.isEmpty())
        text += QStringLiteral(" (%1)").arg(stage);
    if (const QString wait = trayWaitText(job, serverNowMs); !wait.isEmpty()) text += QStringLiteral(" · ") + wait;
    return text;
}

QString noStepTelemetryLabel() { return QStringLiteral("no step telemetry"); }

QString startingLabel() { return QStringLiteral("starting"); }

JobTableModel::JobTableModel(const FleetStore& store, QObject* parent) : EntityTableModel(store, jobColumns(), parent) {
    resetRows();
}

std::vector<EntityId> JobTableModel::currentRows() const {
    std::vector<EntityId> rows;
    rows.reserve(std::size_t(m_store.jobCount()));
    for (int r = 0; r < m_store.jobCount(); ++r) rows.push_back(m_store.jobAt(r));
    return rows;
}

void JobTableModel::onStoreChanged(const FleetChangeSet& changes) {
    if (changes.topologyChanged || changes.jobsReset) {
        resetRows();
        return;
    }
    appendRows(changes.jobsAppended);
    if (changes.freshnessTick || !changes.endpointsChanged.isEmpty()) {
        allRowsChanged();
    } else {
        rowsChanged(changes.dirtyJobRows);
    }
}

}  // namespace watchfloor::client
