#include "FailSlowEviction.h"

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

QString failSlowStageText(const v1::FailSlowFinding& finding) {
    switch (finding.stage()) {
    case v1::FAIL_SLOW_STAGE_OBSERVED:
        return QStringLiteral("observed (%1/%2 windows)").arg(finding.windows_slow()).arg(finding.windows_needed());
    case v1::FAIL_SLOW_STAGE_PROPOSED:
        if (!finding.refusal().empty())
            return QStringLiteral("proposed; automation refused: %1").arg(QString::fromStdString(finding.refusal()));
        return QStringLiteral("confirmed, proposed for eviction");
    case v1::FAIL_SLOW_STAGE_EVICTING:
        return QStringLiteral("evicting (%1)").arg(QString::fromStdString(finding.operation_id()));
    default: return QStringLiteral("unknown");
    }
}

ActionDraft failSlowEvictionDraft(int endpoint, const v1::FailSlowFinding& finding, const QString& jobName) {
    ActionDraft draft;
    draft.endpoint = endpoint;
    draft.request.set_type(v1::ACTION_TYPE_DRAIN_NODE);
    draft.request.set_node_name(finding.node_name());
    draft.request.set_reason(QStringLiteral("fail-slow: evict %1 (%2× slow) from %3")
                                 .arg(QString::fromStdString(finding.node_name()))
                                 .arg(finding.slowdown(), 0, 'f', 2)
                                 .arg(jobName)
                                 .toStdString());
    draft.label = QStringLiteral("Evict %1…").arg(QString::fromStdString(finding.node_name()));
    return draft;
}

}  // namespace watchfloor::ui
