#include "LinkMarks.h"

#include "FleetFormat.h"

#include "FleetStore.h"
#include "LinksAtRisk.h"
#include "RepairCases.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using widgets::LinkMark;

LinkMark linkMark(const v1::LinkHealth& link) {
    switch (link.stage()) {
    case v1::LINK_STAGE_PROPOSED: return LinkMark::Proposed;
    case v1::LINK_STAGE_ISOLATING: return LinkMark::Isolating;
    case v1::LINK_STAGE_ISOLATED: return LinkMark::Isolated;
    case v1::LINK_STAGE_TREATED: return LinkMark::Treated;
    case v1::LINK_STAGE_RETURNED: return link.at_risk() ? LinkMark::AtRisk : LinkMark::Returned;
    default: break;
    }
    return link.at_risk() ? LinkMark::AtRisk : LinkMark::None;
}

QString linkMarkDetail(const v1::LinkHealth& link, std::int64_t nowMs) {
    const LinkMark mark = linkMark(link);
    const QString name = QString::fromStdString(link.name());
    const QString forecast = QStringLiteral("P(Error or down) %1 in 6 h, to Error: %2")
                                 .arg(client::linkProbabilityText(link.forecast().p_error_or_down_6h()),
                                      client::linkEtaText(link.forecast()));
    const QString verdict = client::linkVerdictLabel(link.verdict());
    // Watching, the forecast is the reason.
    if (mark == LinkMark::AtRisk) return QStringLiteral("Rail link %1 at risk (%2): %3").arg(name, verdict, forecast);
    QString text =
        QStringLiteral("Rail link %1 %2")
            .arg(name, mark == LinkMark::Proposed ? QStringLiteral("isolation proposed") : widgets::linkMarkName(mark));
    if (link.stage_since_unix_ms() > 0) {
        text += QStringLiteral(" since %1 UTC").arg(formatUnixMs(link.stage_since_unix_ms()));
        if (nowMs >= link.stage_since_unix_ms())
            text += QStringLiteral(" (%1)").arg(
                client::formatRepairDuration(double(nowMs - link.stage_since_unix_ms()) / 1000.0));
    }
    if (!link.stage_reason().empty()) text += QStringLiteral(": %1").arg(QString::fromStdString(link.stage_reason()));
    if (mark == LinkMark::Treated) {
        if (!link.treated_by().empty())
            text += QStringLiteral("; treated by %1").arg(QString::fromStdString(link.treated_by()));
        if (link.return_after_unix_ms() > 0)
            text +=
                QStringLiteral("; back after its clean window, %1 UTC").arg(formatUnixMs(link.return_after_unix_ms()));
    }
    if (link.at_risk()) text += QStringLiteral(" — still at risk (%1): %2").arg(verdict, forecast);
    return text;
}

namespace {

// A tray's marked links, most pressing first (the store's order, worst first, among equals).
std::vector<std::pair<LinkMark, const v1::LinkHealth*>> markedLinks(const client::FleetStore& store,
                                                                    client::EntityId tray) {
    std::vector<std::pair<LinkMark, const v1::LinkHealth*>> out;
    for (const v1::LinkHealth* link : client::linkHealthOfTray(store, tray))
        if (const LinkMark mark = linkMark(*link); mark != LinkMark::None) out.emplace_back(mark, link);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    return out;
}

}  // namespace

TrayLinkMark trayLinkMark(const client::FleetStore& store, client::EntityId tray) {
    TrayLinkMark out;
    const std::int64_t now = store.endpointFleet(tray.endpoint).serverTimeUnixMs();
    QStringList lines;
    for (const auto& [mark, link] : markedLinks(store, tray)) {
        if (out.mark == LinkMark::None) {
            out.mark = mark;
            const QString name = QString::fromStdString(link->name());
            out.port = name.mid(name.lastIndexOf(u'-') + 1);
        }
        lines << linkMarkDetail(*link, now);
    }
    out.detail = lines.join(QLatin1Char('\n'));
    return out;
}

QString RackLinkMarks::note() const {
    return links.isEmpty() ? QString() : QStringLiteral("Rail links: %1").arg(links.join(QStringLiteral(" · ")));
}

RackLinkMarks rackLinkMarks(const client::FleetStore& store, client::EntityId rack) {
    RackLinkMarks out;
    const v1::Rack* info = store.rackInfo(rack);
    if (!info) return out;
    std::vector<std::pair<LinkMark, QString>> marked;
    for (std::uint32_t node : info->node_indexes())
        for (const auto& [mark, link] : markedLinks(store, client::EntityId{rack.endpoint, node})) {
            if (mark >= LinkMark::AtRisk)
                ++out.atRisk;
            else if (mark >= LinkMark::Treated)
                ++out.isolated;
            else
                continue;  // back in service: the rack's own page still says so
            marked.emplace_back(
                mark, QStringLiteral("%1 %2").arg(QString::fromStdString(link->name()), widgets::linkMarkName(mark)));
        }
    std::stable_sort(marked.begin(), marked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& m : marked) out.links << m.second;
    return out;
}

}  // namespace watchfloor::ui
