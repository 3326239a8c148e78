#include "ActionWording.h"

#include "FleetFormat.h"

#include "RepairCases.h"

#include "Theme.h"

#include <QStringList>

#include <cmath>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;

ActionColours ActionColours::of(const widgets::Theme& theme) { return {theme.colors().crit, theme.colors().warn}; }

bool isFinal(v1::OperationState state) {
    return state == v1::OPERATION_STATE_SUCCEEDED || state == v1::OPERATION_STATE_FAILED ||
           state == v1::OPERATION_STATE_CANCELLED;
}

QString formatGpuHours(double gpuSeconds) {
    if (!std::isfinite(gpuSeconds)) return QStringLiteral("n/a");
    const double hours = gpuSeconds / 3600.0;
    const int decimals = hours != 0.0 && std::abs(hours) < 0.1 ? 2 : 1;
    return QStringLiteral("%1 GPU-h").arg(hours, 0, 'f', hours >= 100.0 ? 0 : decimals);
}

QList<PreviewLine> previewLines(const v1::ActionPreview& preview) {
    QList<PreviewLine> lines;
    // Incident and maintenance actions change fleetd's records, not the fleet: fleetd says what.
    // A link's step says what too, and drains or resumes a tray, whose blast radius follows.
    const bool linkStep = preview.type() == v1::ACTION_TYPE_ISOLATE_LINK ||
                          preview.type() == v1::ACTION_TYPE_TREAT_LINK || preview.type() == v1::ACTION_TYPE_RETURN_LINK;
    if (!preview.effect().empty()) {
        lines.append({QStringLiteral("What it does"), QString::fromStdString(preview.effect()), false});
        if (!linkStep) return lines;
    }
    if (preview.type() == v1::ACTION_TYPE_TREAT_LINK) return lines;
    QStringList jobs;
    for (const std::string& job : preview.jobs_hit()) jobs << QString::fromStdString(job);
    lines.append({QStringLiteral("Jobs hit"), jobs.isEmpty() ? QStringLiteral("none") : jobs.join(QStringLiteral(", ")),
                  !jobs.isEmpty()});
    lines.append(
        {QStringLiteral("GPUs out of service"), QString::number(preview.gpus_lost()), preview.gpus_lost() > 0});
    if (!jobs.isEmpty()) {
        lines.append({QStringLiteral("Checkpoint age (worst job)"), formatDuration(preview.checkpoint_age_s()), false});
        lines.append({QStringLiteral("Progress lost since checkpoint"),
                      formatGpuHours(preview.expected_wasted_progress_s()),
                      preview.expected_wasted_progress_s() > 0.0});
    }
    lines.append({QStringLiteral("Expected goodput cost"), formatGpuHours(preview.expected_goodput_cost_gpu_s()),
                  preview.expected_goodput_cost_gpu_s() > 0.0});
    if (!preview.nvlink_domain_after().empty()) {
        const QString domain = QString::fromStdString(preview.nvlink_domain_after());
        lines.append({QStringLiteral("NVLink domain after"), domain, domain != QStringLiteral("NVL72")});
    }
    // Break/fix steps: how long the tray is out for the step itself, which trays, and where they go.
    if (preview.expected_out_of_service_s() > 0)
        lines.append({QStringLiteral("Out of service for"),
                      QStringLiteral("about %1 (the step itself, after any drain)")
                          .arg(formatDuration(preview.expected_out_of_service_s())),
                      false});
    if (!preview.trays().empty()) {
        QStringList trays;
        for (const std::string& tray : preview.trays()) trays << QString::fromStdString(tray);
        constexpr int kNamed = 4;
        const QString named = trays.size() <= kNamed ? trays.join(QStringLiteral(", "))
                                                     : QStringLiteral("%1 … (%2 trays)")
                                                           .arg(trays.mid(0, kNamed - 1).join(QStringLiteral(", ")))
                                                           .arg(trays.size());
        lines.append({trays.size() == 1 ? QStringLiteral("Tray") : QStringLiteral("Trays"), named, trays.size() > 1});
    }
    if (preview.tray_after() != v1::TRAY_AFTER_REPAIR_UNSPECIFIED)
        lines.append({QStringLiteral("Afterwards"),
                      QStringLiteral("the tray %1").arg(client::trayAfterRepairLabel(preview.tray_after())),
                      preview.tray_after() == v1::TRAY_AFTER_REPAIR_DOWN});
    if (preview.type() == v1::ACTION_TYPE_ISOLATE_LINK) {
        // The ranking an operator works from: what the link failing on its own would cost instead.
        lines.append({QStringLiteral("If it fails unplanned"), formatGpuHours(preview.unplanned_cost_gpu_s()),
                      preview.unplanned_cost_gpu_s() > preview.expected_goodput_cost_gpu_s()});
        if (preview.drain_expected_unix_ms() > 0)
            lines.append({QStringLiteral("Drain expected"),
                          QStringLiteral("%1 UTC (the jobs' next checkpoint)")
                              .arg(formatUnixMs(preview.drain_expected_unix_ms())),
                          false});
        if (preview.isolation_budget() > 0)
            lines.append(
                {QStringLiteral("Links isolated"),
                 QStringLiteral("%1 of a budget of %2").arg(preview.links_isolated()).arg(preview.isolation_budget()),
                 preview.links_isolated() >= preview.isolation_budget()});
    }
    if (preview.requires_approval())
        lines.append({QStringLiteral("Approval"), QStringLiteral("a second operator must approve"), true});
    return lines;
}

QString previewTableHtml(const v1::ActionPreview& preview, const QColor& alarmColour) {
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    for (const PreviewLine& line : previewLines(preview)) {
        QString value = line.value.toHtmlEscaped();
        if (line.alarming) value = QStringLiteral("<span style='color:%1'>%2</span>").arg(alarmColour.name(), value);
        html +=
            QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td><b>%2</b></td></tr>").arg(line.label.toHtmlEscaped(), value);
    }
    return html + QStringLiteral("</table>");
}

QString operationSummary(const v1::Operation& operation) {
    const QString message = QString::fromStdString(operation.progress_message());
    switch (operation.state()) {
    case v1::OPERATION_STATE_AWAITING_APPROVAL:
        return operation.approval_expires_unix_ms() > 0
                   ? QStringLiteral("Waiting for a second operator's approval (until %1 UTC)")
                         .arg(formatUnixMs(operation.approval_expires_unix_ms()))
                   : QStringLiteral("Waiting for a second operator's approval");
    case v1::OPERATION_STATE_PENDING: return QStringLiteral("Pending — accepted, waiting to start");
    case v1::OPERATION_STATE_RUNNING: {
        const QString head = QStringLiteral("Running %1 %").arg(std::lround(operation.progress_ratio() * 100.0));
        return message.isEmpty() ? head : QStringLiteral("%1 — %2").arg(head, message);
    }
    case v1::OPERATION_STATE_SUCCEEDED:
        return message.isEmpty() ? QStringLiteral("Succeeded") : QStringLiteral("Succeeded — %1").arg(message);
    case v1::OPERATION_STATE_FAILED: {
        const QString error = QString::fromStdString(operation.error());
        return QStringLiteral("Failed: %1").arg(error.isEmpty() ? message : error);
    }
    case v1::OPERATION_STATE_CANCELLED:
        return message.isEmpty() ? QStringLiteral("Cancelled") : QStringLiteral("Cancelled — %1").arg(message);
    default: break;
    }
    return QStringLiteral("State unknown");
}

}  // namespace watchfloor::ui
