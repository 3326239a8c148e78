#pragma once
// A rows × columns grid of readings (e.g. the 72 GPUs of a rack × their 18 NVLinks), coloured
// through a ColorScale, with row/column labels, a legend, hover tooltip and click signal. Rows are
// shown in the order the caller supplies (e.g. worst first); signals report model indices.

#include "ColorScale.h"
#include "Reading.h"
#include "Theme.h"

#include <QStringList>
#include <QWidget>

#include <functional>
#include <vector>

namespace watchfloor::widgets {

class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    struct Cell {
        int row = -1;  // model row
        int column = -1;
        bool isValid() const { return row >= 0 && column >= 0; }
        bool operator==(const Cell&) const = default;
    };

    explicit HeatmapWidget(QWidget* parent = nullptr);

    // cells: rows × columns readings, row-major in model order. Labels may be empty.
    void setData(int rows, int columns, std::vector<Reading> cells, QStringList rowLabels, QStringList columnLabels);
    // Updates values only (same shape); cheaper than setData for live refresh.
    void setValues(std::vector<Reading> cells);
    // Display order: shown row i is model row order[i]. Empty = model order. Rows missing from
    // the order are not shown (a filter).
    void setRowOrder(std::vector<int> order);
    void setColorScale(const ColorScale& scale);
    const ColorScale& colorScale() const { return m_scale; }
    void setTheme(const Theme& theme);
    void setTooltipProvider(std::function<QString(int row, int column)> provider);
    void setLegendVisible(bool visible);
    // 0 (the default): the rows share the widget's height and, when a row is thinner than a label,
    // only every few rows is named. N > 0: a row is at least N px high and the widget asks for the
    // height that takes (minimumSizeHint), so with N = the label's height every row keeps its own
    // label; put such a widget in a QScrollArea.
    void setMinimumRowHeight(int pixels);

    int rowCount() const { return m_rows; }
    int columnCount() const { return m_columns; }
    Cell cellAt(const QPoint& pos) const;
    QRect cellRect(int row, int column) const;
    QString toolTipText(int row, int column) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void cellActivated(int row, int column);
    void cellHovered(int row, int column);  // -1, -1 when leaving the grid

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Geometry {
        QRect grid;
        double cellWidth = 0;
        double cellHeight = 0;
        int rowLabelWidth = 0;
        int columnLabelHeight = 0;
        QRect legend;
    };
    // Cached: cellRect() runs per cell per paint, and label metrics are not free.
    const Geometry& geometry() const;
    void invalidateGeometry();
    int displayRowCount() const;
    int modelRow(int displayRow) const;
    int displayRowOf(int modelRow) const;
    QRect displayCellRect(int displayRow, int column) const;
    const Reading& reading(int row, int column) const;

    int m_rows = 0;
    int m_columns = 0;
    std::vector<Reading> m_cells;
    QStringList m_rowLabels;
    QStringList m_columnLabels;
    std::vector<int> m_order;
    ColorScale m_scale;
    Theme m_theme;
    std::function<QString(int, int)> m_tooltipProvider;
    bool m_legendVisible = true;
    int m_minimumRowHeight = 0;
    Cell m_hover;
    mutable Geometry m_geometry;
    mutable bool m_geometryValid = false;
};

}  // namespace watchfloor::widgets
