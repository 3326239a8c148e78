#pragma once
// The operator's words for control actions and operations, shared by the action dialog, the
// Operations dock and the Audit page: the states an operation goes through and the blast radius
// of a preview in units people decide with (GPU-hours, not GPU-seconds). What an action is called
// and what it acts on is the console's table of actions (client/ActionWords.h), for ui/ and
// client/ alike.

#include "ActionWords.h"
#include "ControlErrorText.h"
#include "OperationsModel.h"

#include "watchfloor/v1/control.pb.h"

#include <QColor>
#include <QList>
#include <QString>

namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

// Refusals and failures (alarm) and what deserves a second look (caution), in the theme's
// critical and warning colours: a fixed amber was hard to read on the light theme's white.
struct ActionColours {
    QColor alarm{0xe5, 0x53, 0x4b};  // the dark theme's until a theme is applied
    QColor caution{0xd9, 0xa2, 0x3a};
    static ActionColours of(const widgets::Theme& theme);
};

using client::actionConfirmText;    // "Drain r01-n03": the confirm button
using client::actionHeading;        // "Drain node r01-n03": the dialog's heading, menus
using client::operationStateLabel;  // "awaiting approval", "running": the models' words
using client::roleWord;             // "viewer", "operator", "admin", "unknown"
bool isFinal(watchfloor::v1::OperationState state);

// 7200 GPU-seconds → "2.0 GPU-h"; small costs keep a decimal so "0.1 GPU-h" is not shown as 0.
QString formatGpuHours(double gpuSeconds);

// One line of a preview's blast radius: a label and its value, `alarming` when it should stand out.
struct PreviewLine {
    QString label;
    QString value;
    bool alarming = false;
};
QList<PreviewLine> previewLines(const watchfloor::v1::ActionPreview& preview);
// The lines as a two-column rich-text table, alarming values in `alarmColour`.
QString previewTableHtml(const watchfloor::v1::ActionPreview& preview, const QColor& alarmColour);

// How an operation stands, in one sentence: "Running 40 % — draining: waiting for job llm-405b
// to leave", "Failed: slurmctld unreachable", "Waiting for a second operator's approval (until 17:45 UTC)".
QString operationSummary(const watchfloor::v1::Operation& operation);

}  // namespace watchfloor::ui
