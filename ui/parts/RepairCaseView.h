#pragma once
// One repair case as the Repairs page and the Rack page show it: a line saying the tray, the state,
// the fault, how long it has been open (or took) and who owns it, the ladder's next step and why,
// then the timeline — every step (rung, who took it, when, how long, its outcome) and the case's
// notes, oldest first. Compact (the Rack page): the newest few entries under the line. The button
// that takes the next step is the page's (ui/actions), beside this view.

#include "RepairCases.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace watchfloor::widgets {
class Theme;
}

namespace watchfloor::ui {

// One row of a case's timeline.
struct RepairTimelineEntry {
    std::int64_t timeUnixMs = 0;
    QString who;      // a principal, "auto", "fleetd"
    QString what;     // "power cycle", "power cycle (dry run)", a note's text
    QString outcome;  // "succeeded after 11 min: power state On", "running", "" for a note; shown after `what`
    bool failed = false;
};
// Steps and notes merged, oldest first.
std::vector<RepairTimelineEntry> repairTimeline(const watchfloor::v1::RepairCase& repairCase);
// "r01-n04 · open 42 min · Xid 79 … · owner alice · next: power cycle — <why>".
QString repairCaseSummary(const client::RepairCaseRow& row);

class RepairCaseView : public QWidget {
    Q_OBJECT
public:
    // `compactRows` > 0: at most that many newest entries, no table header (the Rack page).
    explicit RepairCaseView(int compactRows = 0, QWidget* parent = nullptr);

    // Shows the case; nullopt: "no repair case" and an empty timeline.
    void setCase(const std::optional<client::RepairCaseRow>& row);
    void applyTheme(const widgets::Theme& theme);
    QString summaryText() const;
    QTableWidget* timeline() const { return m_timeline; }

private:
    int m_compactRows;
    const widgets::Theme* m_theme = nullptr;
    QLabel* m_summary;
    QTableWidget* m_timeline;
};

}  // namespace watchfloor::ui
