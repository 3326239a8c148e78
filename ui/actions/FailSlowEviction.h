#pragma once
// What the fail-slow ladder (fleet.proto FailSlowFinding) has decided about a slow tray, and the
// eviction it proposes as an operator action. Both the Goodput page's fail-slow table and the
// straggler drill-down's cause panel offer that eviction, so it is worded and drafted here once,
// below both.

#include "OperatorActions.h"

#include "watchfloor/v1/fleet.pb.h"

#include <QString>

namespace watchfloor::ui {

// "observed (2/3 windows)", "proposed", "refused by automation: …", "evicting (op-…)".
QString failSlowStageText(const watchfloor::v1::FailSlowFinding& finding);

// The eviction the ladder proposes, as the drain dialog's draft ("Evict r01-n03…", reason
// pre-filled). It goes through OperatorActions::open like every action: preview first.
ActionDraft failSlowEvictionDraft(int endpoint, const watchfloor::v1::FailSlowFinding& finding, const QString& jobName);

}  // namespace watchfloor::ui
