#include "LinksPage.h"

#include "FleetFormat.h"
#include "LinksAtRiskPanel.h"
#include "PageHeader.h"

#include "FleetRankings.h"
#include "FleetStore.h"
#include "HeatmapWidget.h"
#include "LinksAtRisk.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <numeric>
#include <optional>

namespace watchfloor::ui {

namespace v1 = watchfloor::v1;
using client::EntityId;

namespace {

constexpr int kLinksPerGpu = 18;

struct LinkMetric {
    const char* title;
    v1::Metric metric;  // METRIC_UNSPECIFIED = link state
    const char* unit;
    float max;
};
const LinkMetric kLinkMetrics[] = {
    {"CRC flit errors", v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL, "", 1000},
    {"Replay errors", v1::DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL, "", 1000},
    {"Recovery errors", v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL, "", 100},
    {"Symbol BER", v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO, "", 1e-9f},
    {"Throughput", v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK, "GB/s", 100},
    {"Link state", v1::METRIC_UNSPECIFIED, "", 0},
};

enum PortColumn {
    PortName,
    Rail,
    FarEnd,
    PhyState,
    SymbolErrors,
    LinkDowned,
    RcvErrors,
    Ber,
    Forecast6h,
    XmitGbps,
    ModuleTemp,
    PortColumnCount
};

double value(const client::Reading& r) { return r.hasValue() ? double(r.value) : 0.0; }

// What a port's BER means in errors: "3.00e-10 at 400 Gb/s ≈ 7200 errors a minute".
QString berErrorsText(const client::Reading& ber, const v1::NicPort* port) {
    if (!ber.hasValue() || !port || port->link_rate_gbps() <= 0) return {};
    const double perMinute = double(ber.value) * port->link_rate_gbps() * 1e9 * 60.0;
    return QStringLiteral("%1 at %2 Gb/s ≈ %3 errors a minute")
        .arg(QString::number(ber.value, 'e', 2))
        .arg(port->link_rate_gbps(), 0, 'f', 0)
        .arg(perMinute < 1 ? QStringLiteral("< 1") : QString::number(perMinute, 'f', 0));
}

// fleetd's NVLink5 symbol BER of one GPU over all its links (NVLINK5_SYMBOL_BER_*, from DCGM's
// 1214): what a "Symbol BER" cell shows (the 95 % upper bound while no error was counted, else
// the point estimate) and its text, "≤ 2.1e-15 (95 %), judging" or "4.6e-12 (4.2e-12 … 5.0e-12),
// Error". Nothing when fleetd sent none (the site exports no NVLink5 fields).
struct GpuSymbolBer {
    client::Reading shown;
    QString text;
};
std::optional<GpuSymbolBer> gpuSymbolBer(const client::FleetStore& store, const EntityId& gpu) {
    const client::Reading upper = store.reading(gpu, v1::NVLINK5_SYMBOL_BER_UPPER);
    if (!upper.hasValue()) return std::nullopt;
    const client::Reading point = store.reading(gpu, v1::NVLINK5_SYMBOL_BER_POINT);
    const client::Reading verdict = store.reading(gpu, v1::NVLINK5_SYMBOL_BER_VERDICT);
    const bool quiet = !point.hasValue() || point.value <= 0;
    const QString estimate =
        quiet ? QStringLiteral("≤ %1 (95 %)").arg(QString::number(upper.value, 'e', 1))
              : QStringLiteral("%1 (%2 … %3)")
                    .arg(QString::number(point.value, 'e', 1),
                         QString::number(store.reading(gpu, v1::NVLINK5_SYMBOL_BER_LOWER).value, 'e', 1),
                         QString::number(upper.value, 'e', 1));
    const QString label =
        verdict.hasValue() ? client::linkVerdictLabel(static_cast<v1::LinkVerdict>(int(verdict.value))) : QString();
    return GpuSymbolBer{quiet ? upper : point, label.isEmpty() ? estimate : estimate + QStringLiteral(", ") + label};
}

}  // namespace

LinksPage::LinksPage(const PageContext& context, QWidget* parent)
    : Page(parent),
      m_store(*context.store),
      m_header(new PageHeader(QStringLiteral("Links"), this)),
      m_metricBox(new QComboBox),
      m_heatmap(new widgets::HeatmapWidget(this)),
      m_noDetail(new QLabel(this)),
      m_ports(new QTableWidget(0, PortColumnCount, this)),
      m_atRisk(new LinksAtRiskPanel(m_store, context.actions, this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 12);
    layout->setSpacing(8);
    for (const LinkMetric& metric : kLinkMetrics) m_metricBox->addItem(QString::fromUtf8(metric.title));
    m_metricBox->setToolTip(QStringLiteral("Colour the NVLinks by …"));
    m_header->addControl(m_metricBox);
    layout->addWidget(m_header);

    // Links at risk over the whole fleet on top; the rack's fabric below.
    auto* vertical = new QSplitter(Qt::Vertical, this);
    vertical->addWidget(m_atRisk);
    auto* splitter = new QSplitter(Qt::Horizontal, vertical);
    auto* left = new QWidget(splitter);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(makeSectionTitle(QStringLiteral("NVLink: GPUs × links, worst GPUs first"), left));
    m_noDetail->setWordWrap(true);
    m_noDetail->setText(
        QStringLiteral("This endpoint streams without per-link detail (the console subscribes at "
                       "DETAIL_LEVEL_FULL for the Links page; the server sent no NVLink topology)."));
    m_noDetail->hide();
    leftLayout->addWidget(m_noDetail);
    leftLayout->addWidget(m_heatmap, 1);
    splitter->addWidget(left);

    auto* right = new QWidget(splitter);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(makeSectionTitle(QStringLiteral("Scale-out InfiniBand ports, worst first"), right));
    m_ports->setObjectName(QStringLiteral("linkPorts"));
    m_ports->setHorizontalHeaderLabels({QStringLiteral("Port"), QStringLiteral("Rail"), QStringLiteral("Far end"),
                                        QStringLiteral("Phy"), QStringLiteral("Symbol err"),
                                        QStringLiteral("Link downed"), QStringLiteral("Rcv err"),
                                        QStringLiteral("Effective BER"), QStringLiteral("P 6 h"),
                                        QStringLiteral("Tx Gb/s"), QStringLiteral("Module °C")});
    m_ports->horizontalHeaderItem(SymbolErrors)
        ->setToolTip(QStringLiteral("Symbol errors the port counted since fleetd started (IBTA SymbolErrorCounter)"));
    m_ports->horizontalHeaderItem(Ber)->setToolTip(
        QStringLiteral("Post-FEC bit error ratio as the source reports it. From the twin: the errors of the port's "
                       "latest burst above the alarm threshold over one minute of bits at the line rate (those errors "
                       "are in Symbol err), held 30 min; 1.00e-15 when there is none. Hover a value for the errors "
                       "a minute it means."));
    m_ports->horizontalHeaderItem(Forecast6h)
        ->setToolTip(QStringLiteral("fleetd's probability that the rail link crosses the Error line (1e-14) or goes "
                                    "down within 6 h; ▲ = at risk. — = not listed: Normal or not judged yet"));
    // Beside the port's name, where it is read first; the cells keep the data's order.
    m_ports->horizontalHeader()->moveSection(Forecast6h, PortName + 1);
    m_ports->verticalHeader()->hide();
    m_ports->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ports->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_ports->horizontalHeader()->setStretchLastSection(true);
    m_ports->setShowGrid(false);
    m_ports->setAlternatingRowColors(true);
    rightLayout->addWidget(m_ports, 1);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    vertical->addWidget(splitter);
    vertical->setStretchFactor(0, 1);
    vertical->setStretchFactor(1, 1);
    layout->addWidget(vertical, 1);

    m_heatmap->setTooltipProvider([this](int row, int column) { return linkTooltip(row, column); });
    connect(m_metricBox, &QComboBox::currentIndexChanged, this, [this] {
        applyScale();
        refreshHeatmap();
    });
    connect(m_heatmap, &widgets::HeatmapWidget::cellActivated, this, [this](int row, int column) {
        if (row < int(m_links.size()) && column < int(m_links[std::size_t(row)].size())) {
            const EntityId link = m_links[std::size_t(row)][std::size_t(column)];
            if (link.isValid()) emit navigationRequested({PageId::Links, m_store.name(link)});
        }
    });
    connect(m_ports, &QTableWidget::cellActivated, this, [this](int row, int) {
        emit navigationRequested({PageId::Links, m_ports->item(row, PortName)->text()});
    });
    connect(m_atRisk, &LinksAtRiskPanel::linkActivated, this, [this](EntityId port) {
        emit navigationRequested({PageId::Links, m_store.name(port)});
    });
    connect(&m_store, &client::FleetStore::changed, this, &LinksPage::onStoreChanged);
}

int LinksPage::portRowCount() const { return m_ports->rowCount(); }
QString LinksPage::worstPortName() const {
    return m_ports->rowCount() ? m_ports->item(0, PortName)->text() : QString();
}

bool LinksPage::showEntity(const QString& name) {
    EntityId target;
    if (name.isEmpty()) {
        const std::vector<client::LinkRiskRow> risky = client::linkRiskRows(m_store);
        if (!risky.empty() && risky.front().port.isValid())
            target = risky.front().port;
        else if (auto worst = client::worstLink(m_store))
            target = worst->id;
        else if (auto rack = client::worstRack(m_store))
            target = rack->id;
        else
            return !m_rack.isValid();
    } else {
        target = m_store.findByName(name);
    }
    const EntityId rack = m_store.rackOf(target);
    if (!rack.isValid()) return false;
    const bool newRack = !(rack == m_rack);
    m_rack = rack;
    m_entity = m_store.name(target);
    if (newRack) rebuildGrid();
    if (m_store.kind(target) == v1::ENTITY_KIND_NIC_PORT) m_atRisk->selectLink(target);
    m_dirty = true;
    refresh();
    emit entityShown(m_entity);
    return true;
}

void LinksPage::rebuildGrid() {
    m_gpus.clear();
    m_links.clear();
    m_portInfo.clear();
    const v1::Rack* rack = m_store.rackInfo(m_rack);
    if (rack) {
        for (const v1::NicPort& port : m_store.endpointFleet(m_rack.endpoint).topology().topology().nic_ports())
            m_portInfo.insert(port.index(), &port);
    }
    QStringList rowLabels;
    bool anyLinks = false;
    if (rack) {
        for (std::uint32_t nodeIndex : rack->node_indexes()) {
            const v1::Node* node = m_store.nodeInfo(EntityId{m_rack.endpoint, nodeIndex});
            if (!node) continue;
            for (std::uint32_t gpuIndex : node->gpu_indexes()) {
                const EntityId gpu{m_rack.endpoint, gpuIndex};
                const v1::Gpu* info = m_store.gpuInfo(gpu);
                std::vector<EntityId> links(kLinksPerGpu);
                // The topology lists a GPU's links in link-id order.
                for (int slot = 0; info && slot < std::min(info->nvlink_indexes_size(), kLinksPerGpu); ++slot) {
                    links[std::size_t(slot)] = EntityId{m_rack.endpoint, info->nvlink_indexes(slot)};
                    anyLinks = true;
                }
                m_gpus.push_back(gpu);
                m_links.push_back(std::move(links));
                rowLabels << m_store.name(gpu).section(u'-', 1);
            }
        }
    }
    QStringList columns;
    for (int l = 0; l < kLinksPerGpu; ++l) columns << QStringLiteral("L%1").arg(l);
    m_noDetail->setVisible(!anyLinks && !m_gpus.empty());
    std::vector<widgets::Reading> cells(m_gpus.size() * kLinksPerGpu);
    m_heatmap->setData(int(m_gpus.size()), kLinksPerGpu, std::move(cells), rowLabels, columns);
}

void LinksPage::setWallDisplay(bool wall) {
    Page::setWallDisplay(wall);
    m_header->setWallDisplay(wall);
    m_atRisk->setReadOnlyWall(wall);
}

void LinksPage::applyTheme(const widgets::Theme& theme) {
    m_theme = &theme;
    m_header->applyTheme(theme);
    m_heatmap->setTheme(theme);
    m_atRisk->applyTheme(theme);
    applyScale();
    m_dirty = true;
    refresh();
}

bool LinksPage::hasContent() const { return m_rack.isValid() && !m_gpus.empty(); }

void LinksPage::setActive(bool active) {
    Page::setActive(active);
    if (active && !m_rack.isValid()) showEntity({});
    if (active && m_dirty) refresh();
}

void LinksPage::onStoreChanged(const client::FleetChangeSet& changes) {
    if (changes.topologyChanged && m_rack.isValid()) rebuildGrid();
    const int row = m_rack.isValid() ? m_store.rackRow(m_rack) : -1;
    const bool mine = row >= 0 && std::binary_search(changes.dirtyRackRows.begin(), changes.dirtyRackRows.end(), row);
    if (mine || changes.freshnessTick || changes.topologyChanged || changes.linksChanged) {
        m_dirty = true;
        if (isActive()) refresh();
    }
}

void LinksPage::applyScale() {
    if (!m_theme) return;
    const LinkMetric& m = kLinkMetrics[std::max(0, m_metricBox->currentIndex())];
    if (m.metric == v1::METRIC_UNSPECIFIED) {
        const widgets::ThemeColors& c = m_theme->colors();
        m_heatmap->setColorScale(widgets::ColorScale::categorical(
            QStringLiteral("Link state"),
            {{QStringLiteral("up"), c.ok}, {QStringLiteral("flapping"), c.warn}, {QStringLiteral("down"), c.crit}}));
    } else if (m.metric == v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK) {
        m_heatmap->setColorScale(widgets::ColorScale::sequential(QString::fromUtf8(m.title), QString::fromUtf8(m.unit),
                                                                 0, m.max, *m_theme, false));
    } else {
        m_heatmap->setColorScale(widgets::ColorScale::sequential(QString::fromUtf8(m.title), QString::fromUtf8(m.unit),
                                                                 0, m.max, *m_theme, true,
                                                                 widgets::ColorScale::Mapping::Log1p));
    }
}

void LinksPage::refresh() {
    if (!m_theme || !m_rack.isValid()) return;
    m_dirty = false;
    m_header->setTitle(QStringLiteral("Links · %1").arg(m_store.name(m_rack)));
    m_header->setSummary(
        QStringLiteral("Selected %1 · %2 GPUs × %3 NVLink5 links · rack link errors %4 · "
                       "counters count since fleetd started; hatched = stale")
            .arg(m_entity)
            .arg(m_gpus.size())
            .arg(kLinksPerGpu)
            .arg(formatReading(m_store.rackReading(m_store.rackRow(m_rack), v1::RACK_LINK_ERRORS_PER_MIN),
                               QStringLiteral("/min"), 0)));
    refreshHeatmap();
    refreshPorts();
}

void LinksPage::refreshHeatmap() {
    const LinkMetric& m = kLinkMetrics[std::max(0, m_metricBox->currentIndex())];
    const bool live = m_store.endpointState(m_rack.endpoint) == client::ConnectionState::Live;
    std::vector<widgets::Reading> cells(m_gpus.size() * kLinksPerGpu);
    std::vector<double> badness(m_gpus.size(), 0.0);
    for (std::size_t row = 0; row < m_gpus.size(); ++row) {
        for (int l = 0; l < kLinksPerGpu; ++l) {
            const EntityId link = m_links[row][std::size_t(l)];
            if (!link.isValid()) continue;
            widgets::Reading cell;
            const client::EntityStatus status = m_store.status(link);
            if (m.metric == v1::METRIC_UNSPECIFIED) {
                switch (status.linkState) {
                case v1::LINK_STATE_UP: cell = widgets::Reading::fresh(0); break;
                case v1::LINK_STATE_FLAPPING: cell = widgets::Reading::fresh(1); break;
                case v1::LINK_STATE_DOWN: cell = widgets::Reading::fresh(2); break;
                default: break;
                }
            } else if (const auto gpuBer = m.metric == v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO
                                               ? gpuSymbolBer(m_store, m_gpus[row])
                                               : std::nullopt) {
                cell = toWidgetReading(gpuBer->shown);  // fleetd's estimate for the GPU's links together
            } else {
                cell = toWidgetReading(m_store.reading(link, m.metric));
            }
            if (!live && !cell.isMissing()) cell.freshness = widgets::Freshness::Stale;
            cells[row * kLinksPerGpu + std::size_t(l)] = cell;
            badness[row] += value(m_store.reading(link, v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL)) +
                            10 * value(m_store.reading(link, v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL)) +
                            (status.linkState == v1::LINK_STATE_DOWN ? 1e6 : 0) +
                            (status.linkState == v1::LINK_STATE_FLAPPING ? 1e5 : 0);
        }
    }
    std::vector<int> order(m_gpus.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return badness[std::size_t(a)] > badness[std::size_t(b)]; });
    m_heatmap->setValues(std::move(cells));
    m_heatmap->setRowOrder(std::move(order));
}

QString LinksPage::linkTooltip(int row, int column) const {
    if (row < 0 || row >= int(m_links.size()) || column < 0 || column >= kLinksPerGpu) return {};
    const EntityId link = m_links[std::size_t(row)][std::size_t(column)];
    if (!link.isValid())
        return QStringLiteral("%1 link %2: not in the topology")
            .arg(m_store.name(m_gpus[std::size_t(row)]))
            .arg(column);
    auto reading = [&](v1::Metric m, const char* unit, int decimals) {
        return formatReading(m_store.reading(link, m), QString::fromUtf8(unit), decimals);
    };
    // fleetd's estimate over the GPU's links where the site exports NVLink5's fields, else the
    // link's own ratio (the twin's); the link's PLR shares when its PLR counters are exported.
    const auto gpuBer = gpuSymbolBer(m_store, m_gpus[std::size_t(row)]);
    const client::Reading ber = m_store.reading(link, v1::DCGM_FI_DEV_NVLINK_SYMBOL_BER_RATIO);
    QString berText = gpuBer           ? gpuBer->text + QStringLiteral(" (the GPU's links together)")
                      : ber.hasValue() ? QString::number(ber.value, 'e', 2)
                                       : QStringLiteral("n/a");
    const client::Reading plrErrors = m_store.reading(link, v1::NVLINK5_PLR_CODE_ERROR_RATIO);
    const client::Reading plrUncorrectable = m_store.reading(link, v1::NVLINK5_PLR_UNCORRECTABLE_RATIO);
    if (plrErrors.hasValue())
        berText += QStringLiteral("<br>PLR codewords in error: %1 · uncorrectable: %2 (last 4–8 h)")
                       .arg(QString::number(plrErrors.value, 'e', 1),
                            plrUncorrectable.hasValue() ? QString::number(plrUncorrectable.value, 'e', 1)
                                                        : QStringLiteral("n/a"));
    return QStringLiteral(
               "<b>%1</b><br>GPU end: %2 link %3<br>State: %4<br>CRC flit: %5 · replay: %6 · recovery: %7"
               "<br>Symbol BER: %8<br>Throughput: %9")
        .arg(m_store.name(link), m_store.name(m_gpus[std::size_t(row)]))
        .arg(column)
        .arg(linkStateLabel(m_store.status(link).linkState),
             reading(v1::DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_PER_LINK_TOTAL, "", 0),
             reading(v1::DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL, "", 0),
             reading(v1::DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_PER_LINK_TOTAL, "", 0))
        .arg(berText, reading(v1::DCGM_FI_DEV_NVLINK_THROUGHPUT_PER_LINK, "GB/s", 1));
}

void LinksPage::refreshPorts() {
    struct PortRow {
        QStringList cells;
        double badness;
        bool down;
        QString berToolTip;
        bool atRisk;
        QString forecastToolTip;
    };
    std::vector<PortRow> rows;
    const v1::Rack* rack = m_store.rackInfo(m_rack);
    if (rack) {
        for (std::uint32_t nodeIndex : rack->node_indexes()) {
            const v1::Node* node = m_store.nodeInfo(EntityId{m_rack.endpoint, nodeIndex});
            if (!node) continue;
            for (std::uint32_t portIndex : node->nic_port_indexes()) {
                const EntityId port{m_rack.endpoint, portIndex};
                const v1::NicPort* info = m_portInfo.value(portIndex);
                const client::Reading phy = m_store.reading(port, v1::IB_PHY_STATE);
                const client::Reading ber = m_store.reading(port, v1::IB_EFFECTIVE_BER);
                const bool down = phy.hasValue() && phy.value != 5;
                const v1::LinkHealth* health = client::linkHealthOf(m_store, port);
                const bool atRisk = health && health->at_risk();
                // A link fleetd forecasts at risk ranks under a down one, over any counter.
                const double badness = (down ? 1e12 : 0) + (atRisk ? 1e11 : 0) +
                                       (health ? health->forecast().p_error_or_down_6h() * 1e10 : 0) +
                                       value(m_store.reading(port, v1::IB_LINK_DOWNED_COUNTER)) * 1e6 +
                                       value(ber) * 1e15 + value(m_store.reading(port, v1::IB_SYMBOL_ERROR_COUNTER));
                rows.push_back({{m_store.name(port), info ? QString::number(info->rail()) : QStringLiteral("?"),
                                 info ? QStringLiteral("%1 port %2")
                                            .arg(QString::fromStdString(info->switch_name()))
                                            .arg(info->switch_port())
                                      : QStringLiteral("n/a"),
                                 phy.hasValue() ? (phy.value == 5 ? QStringLiteral("LinkUp")
                                                                  : QStringLiteral("down (%1)").arg(int(phy.value)))
                                                : QStringLiteral("n/a"),
                                 formatReading(m_store.reading(port, v1::IB_SYMBOL_ERROR_COUNTER), {}, 0),
                                 formatReading(m_store.reading(port, v1::IB_LINK_DOWNED_COUNTER), {}, 0),
                                 formatReading(m_store.reading(port, v1::IB_PORT_RCV_ERRORS), {}, 0),
                                 ber.hasValue() ? QString::number(ber.value, 'e', 2) : QStringLiteral("n/a"),
                                 !health  ? QStringLiteral("—")
                                 : atRisk ? QStringLiteral("▲ %1").arg(
                                                client::linkProbabilityText(health->forecast().p_error_or_down_6h()))
                                          : client::linkProbabilityText(health->forecast().p_error_or_down_6h()),
                                 formatReading(m_store.reading(port, v1::IB_PORT_XMIT_DATA_GBPS), {}, 0),
                                 formatReading(m_store.reading(port, v1::IB_MODULE_TEMPERATURE_C), {}, 1)},
                                badness,
                                down,
                                berErrorsText(ber, info),
                                atRisk,
                                health ? QStringLiteral("%1: %2 · to Error %3 · P 1 h %4, 24 h %5")
                                             .arg(m_store.name(port), client::linkVerdictLabel(health->verdict()),
                                                  client::linkEtaText(health->forecast()),
                                                  client::linkProbabilityText(health->forecast().p_error_or_down_1h()),
                                                  client::linkProbabilityText(health->forecast().p_error_or_down_24h()))
                                       : QString()});
            }
        }
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const PortRow& a, const PortRow& b) { return a.badness > b.badness; });
    m_ports->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r) {
        for (int c = 0; c < PortColumnCount; ++c) {
            auto* item = new QTableWidgetItem(rows[std::size_t(r)].cells.value(c));
            if (rows[std::size_t(r)].down && m_theme)
                item->setForeground(m_theme->colors().crit);
            else if (rows[std::size_t(r)].atRisk && (c == PortName || c == Forecast6h) && m_theme)
                item->setForeground(m_theme->colors().crit);
            else if (rows[std::size_t(r)].badness > 0 && c == Ber && m_theme)
                item->setForeground(m_theme->colors().warn);
            if (c == Ber) item->setToolTip(rows[std::size_t(r)].berToolTip);
            if (c == Forecast6h) item->setToolTip(rows[std::size_t(r)].forecastToolTip);
            m_ports->setItem(r, c, item);
        }
    }
    m_ports->resizeColumnsToContents();
}

}  // namespace watchfloor::ui
