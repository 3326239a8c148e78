#include "HeatmapWidget.h"

#include "PaintHelpers.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace watchfloor::widgets {
namespace {

constexpr int kMargin = 8;
constexpr int kMaxRowLabelWidth = 160;
constexpr double kMaxCellHeight = 28.0;

}  // namespace

HeatmapWidget::HeatmapWidget(QWidget* parent)
    : QWidget(parent),
      m_scale(ColorScale::forLens(Lens::LinkErrors, Theme::builtin(ThemeVariant::Dark))),
      m_theme(Theme::builtin(ThemeVariant::Dark)) {
    setMouseTracking(true);
}

void HeatmapWidget::setData(int rows, int columns, std::vector<Reading> cells, QStringList rowLabels,
                            QStringList columnLabels) {
    m_rows = std::max(0, rows);
    m_columns = std::max(0, columns);
    cells.resize(static_cast<std::size_t>(m_rows) * static_cast<std::size_t>(m_columns));  // absent = missing
    m_cells = std::move(cells);
    m_rowLabels = std::move(rowLabels);
    m_columnLabels = std::move(columnLabels);
    std::erase_if(m_order, [&](int r) { return r < 0 || r >= m_rows; });
    m_hover = {};
    invalidateGeometry();
    updateGeometry();
}

void HeatmapWidget::setMinimumRowHeight(int pixels) {
    m_minimumRowHeight = std::max(0, pixels);
    invalidateGeometry();
    updateGeometry();
}

QSize HeatmapWidget::sizeHint() const { return QSize(560, 520).expandedTo(minimumSizeHint()); }

QSize HeatmapWidget::minimumSizeHint() const {
    if (m_minimumRowHeight == 0) return QWidget::minimumSizeHint();
    const QFontMetrics fm(m_theme.labelFont());
    int height = 2 * kMargin + fm.height() + 4 + std::max(1, displayRowCount()) * m_minimumRowHeight;
    if (m_legendVisible) height += legendSizeHint(m_scale, m_theme).height() + 4;
    return {200, height};
}

void HeatmapWidget::setValues(std::vector<Reading> cells) {
    cells.resize(m_cells.size());
    m_cells = std::move(cells);
    update();
}

void HeatmapWidget::setRowOrder(std::vector<int> order) {
    std::erase_if(order, [&](int r) { return r < 0 || r >= m_rows; });
    m_order = std::move(order);
    invalidateGeometry();
    updateGeometry();
}

void HeatmapWidget::setColorScale(const ColorScale& scale) {
    m_scale = scale;
    invalidateGeometry();
}

void HeatmapWidget::setTheme(const Theme& theme) {
    m_theme = theme;
    invalidateGeometry();
}

void HeatmapWidget::setTooltipProvider(std::function<QString(int, int)> provider) {
    m_tooltipProvider = std::move(provider);
}

void HeatmapWidget::setLegendVisible(bool visible) {
    m_legendVisible = visible;
    invalidateGeometry();
    updateGeometry();
}

int HeatmapWidget::displayRowCount() const { return m_order.empty() ? m_rows : static_cast<int>(m_order.size()); }

int HeatmapWidget::modelRow(int displayRow) const {
    return m_order.empty() ? displayRow : m_order[static_cast<std::size_t>(displayRow)];
}

int HeatmapWidget::displayRowOf(int row) const {
    if (m_order.empty()) return row;
    auto it = std::find(m_order.begin(), m_order.end(), row);
    return it == m_order.end() ? -1 : static_cast<int>(it - m_order.begin());
}

const Reading& HeatmapWidget::reading(int row, int column) const {
    return m_cells[static_cast<std::size_t>(row) * static_cast<std::size_t>(m_columns) +
                   static_cast<std::size_t>(column)];
}

void HeatmapWidget::invalidateGeometry() {
    m_geometryValid = false;
    update();
}

void HeatmapWidget::resizeEvent(QResizeEvent*) { invalidateGeometry(); }

const HeatmapWidget::Geometry& HeatmapWidget::geometry() const {
    if (m_geometryValid) return m_geometry;
    Geometry& g = m_geometry;
    g = Geometry{};
    const QFontMetrics fm(m_theme.labelFont());
    int labelWidth = 0;
    for (const QString& l : m_rowLabels) labelWidth = std::max(labelWidth, fm.horizontalAdvance(l));
    g.rowLabelWidth = std::min(labelWidth + 8, kMaxRowLabelWidth);
    g.columnLabelHeight = fm.height() + 4;
    int bottom = height() - kMargin;
    if (m_legendVisible) {
        const QSize hint = legendSizeHint(m_scale, m_theme);
        g.legend = QRect(kMargin, bottom - hint.height(), std::min(hint.width(), width() - 2 * kMargin), hint.height());
        bottom = g.legend.top() - 4;
    }
    const int left = kMargin + g.rowLabelWidth;
    const int top = kMargin + g.columnLabelHeight;
    const int rows = std::max(1, displayRowCount());
    const int columns = std::max(1, m_columns);
    g.cellWidth = std::max(2.0, double(width() - kMargin - left) / columns);
    g.cellHeight = std::max(double(m_minimumRowHeight), std::clamp(double(bottom - top) / rows, 2.0, kMaxCellHeight));
    g.grid = QRect(left, top, static_cast<int>(g.cellWidth * columns), static_cast<int>(g.cellHeight * rows));
    m_geometryValid = true;
    return g;
}

HeatmapWidget::Cell HeatmapWidget::cellAt(const QPoint& pos) const {
    const Geometry& g = geometry();
    if (!g.grid.contains(pos) || m_columns == 0) return {};
    const int column = std::min(m_columns - 1, static_cast<int>((pos.x() - g.grid.left()) / g.cellWidth));
    const int displayRow = static_cast<int>((pos.y() - g.grid.top()) / g.cellHeight);
    if (displayRow >= displayRowCount()) return {};
    return {modelRow(displayRow), column};
}

QRect HeatmapWidget::cellRect(int row, int column) const {
    const int displayRow = displayRowOf(row);
    if (displayRow < 0 || column < 0 || column >= m_columns) return {};
    return displayCellRect(displayRow, column);
}

QRect HeatmapWidget::displayCellRect(int displayRow, int column) const {
    const Geometry& g = geometry();
    const int x0 = g.grid.left() + static_cast<int>(std::lround(column * g.cellWidth));
    const int x1 = g.grid.left() + static_cast<int>(std::lround((column + 1) * g.cellWidth));
    const int y0 = g.grid.top() + static_cast<int>(std::lround(displayRow * g.cellHeight));
    const int y1 = g.grid.top() + static_cast<int>(std::lround((displayRow + 1) * g.cellHeight));
    return QRect(x0, y0, x1 - x0, y1 - y0);
}

QString HeatmapWidget::toolTipText(int row, int column) const {
    if (row < 0 || row >= m_rows || column < 0 || column >= m_columns) return {};
    if (m_tooltipProvider) {
        QString custom = m_tooltipProvider(row, column);
        if (!custom.isEmpty()) return custom;
    }
    const QString rowName = row < m_rowLabels.size() ? m_rowLabels[row] : QStringLiteral("row %1").arg(row);
    const QString colName =
        column < m_columnLabels.size() ? m_columnLabels[column] : QStringLiteral("column %1").arg(column);
    return QStringLiteral("%1 · %2\n%3: %4")
        .arg(rowName, colName, m_scale.title(), m_scale.formatReading(reading(row, column)));
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const ThemeColors& c = m_theme.colors();
    p.fillRect(rect(), c.window);
    const Geometry& g = geometry();
    const QFont font = m_theme.labelFont();
    const QFontMetrics fm(font);
    p.setFont(font);

    // Column labels: as many as fit without overlapping.
    int widestColumnLabel = 1;
    for (const QString& l : m_columnLabels)
        widestColumnLabel = std::max(widestColumnLabel, fm.horizontalAdvance(l) + 6);
    const int columnStep = std::max(1, static_cast<int>(std::ceil(widestColumnLabel / g.cellWidth)));
    p.setPen(c.textDim);
    for (int col = 0; col < m_columns && col < m_columnLabels.size(); col += columnStep) {
        const QRect r = displayCellRect(0, col);
        p.drawText(QRect(r.center().x() - widestColumnLabel / 2, kMargin, widestColumnLabel, g.columnLabelHeight),
                   Qt::AlignCenter, m_columnLabels[col]);
    }
    const int rowStep = std::max(1, static_cast<int>(std::ceil(fm.height() / g.cellHeight)));
    const bool gaps = g.cellWidth >= 6 && g.cellHeight >= 6;
    const bool naText = g.cellWidth >= 24 && g.cellHeight >= 14;
    for (int d = 0; d < displayRowCount(); ++d) {
        const int row = modelRow(d);
        const QRect first = displayCellRect(d, 0);
        if (d % rowStep == 0 && row < m_rowLabels.size()) {
            p.setPen(c.textDim);
            p.drawText(
                QRect(kMargin, first.top() + (first.height() - fm.height()) / 2, g.rowLabelWidth - 6, fm.height()),
                Qt::AlignRight | Qt::AlignVCenter, fm.elidedText(m_rowLabels[row], Qt::ElideLeft, g.rowLabelWidth - 6));
        }
        for (int col = 0; col < m_columns; ++col) {
            QRect r = displayCellRect(d, col);
            if (gaps) r.adjust(0, 0, -1, -1);
            paintReadingCell(p, r, m_scale, reading(row, col), m_theme, naText);
        }
    }
    if (m_hover.isValid()) {
        p.setPen(QPen(c.selection, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(cellRect(m_hover.row, m_hover.column).adjusted(-1, -1, 0, 0));
    }
    if (m_legendVisible) paintLegend(p, g.legend, m_scale, m_theme);
    if (m_rows == 0 || m_columns == 0) {
        p.setPen(c.textDim);
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("No data"));
    }
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* event) {
    const Cell cell = cellAt(event->position().toPoint());
    if (cell == m_hover) return;
    m_hover = cell;
    update();
    emit cellHovered(cell.row, cell.column);
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    const Cell cell = cellAt(event->position().toPoint());
    if (cell.isValid()) emit cellActivated(cell.row, cell.column);
}

void HeatmapWidget::leaveEvent(QEvent* event) {
    if (m_hover.isValid()) {
        m_hover = {};
        update();
        emit cellHovered(-1, -1);
    }
    QWidget::leaveEvent(event);
}

bool HeatmapWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const Cell cell = cellAt(help->pos());
        if (cell.isValid())
            QToolTip::showText(help->globalPos(), toolTipText(cell.row, cell.column), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

}  // namespace watchfloor::widgets
