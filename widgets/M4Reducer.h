#pragma once
// M4 downsampling (first/min/max/last per pixel column; Jugel et al., "M4: A Visualization-
// Oriented Time Series Data Aggregation", VLDB 2014). A line rasterised at that width looks the
// same as the full data, and QtCharts draws every point it is given (docs/domain/streaming-patterns.md),
// so charts reduce to ≤ 4 points per column before calling QXYSeries::replace().

#include <QList>
#include <QPointF>

#include <span>
#include <vector>

namespace watchfloor::widgets {

// points: sorted by x ascending. Points outside [xMin, xMax] are dropped; NaN y values are
// skipped (they are blanks, not readings). Returns ≤ 4 points per column, in x order, with a
// column's first and last point always kept and a single-sample column emitted once.
// columns <= 0 or xMax <= xMin returns an empty list.
QList<QPointF> m4Reduce(std::span<const QPointF> points, double xMin, double xMax, int columns);

// Splits sorted points into runs that may be drawn as one connected line: a NaN y (a blank) or
// an x step larger than maxGapX (> 0; 0 disables) ends a run, so an outage shows as a gap
// instead of a straight line across it. The returned spans view `points`; NaN points are dropped.
std::vector<std::span<const QPointF>> splitAtGaps(std::span<const QPointF> points, double maxGapX);

}  // namespace watchfloor::widgets
