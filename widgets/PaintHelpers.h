#pragma once
// Drawing rules shared by every painted widget, so a stale, missing, down or draining value
// looks the same on the rack map, the elevation and the heatmap.

#include "ColorScale.h"
#include "Reading.h"
#include "Theme.h"

#include <QColor>
#include <QRect>
#include <QSize>

class QPainter;

namespace watchfloor::widgets {

// A stale value keeps a hint of its hue but is pulled toward the theme's stale grey, so it can
// never be mistaken for a fresh healthy colour.
QColor staleTint(const QColor& color, const Theme& theme);
// Fill colour of a reading: scale colour (fresh), stale tint (stale), invalid (missing).
QColor readingFill(const ColorScale& scale, const Reading& reading, const Theme& theme);
// Black or white, whichever reads better on background.
QColor textColorOn(const QColor& background);

// A reading as a cell: filled, hatched when stale, empty outline + "n/a" when missing.
// naText: write "n/a" into missing cells when there is room.
void paintReadingCell(QPainter& p, const QRect& r, const ColorScale& scale, const Reading& reading, const Theme& theme,
                      bool naText);
void paintMissingCell(QPainter& p, const QRect& r, const Theme& theme, bool naText);
void paintHatch(QPainter& p, const QRect& r, const QColor& color);
// Source silent: the theme's silent colour as a cross-hatch over the (stale-tinted) cell, so it
// reads apart from plain stale (single hatch), failed (red, ✕) and healthy.
void paintSilentHatch(QPainter& p, const QRect& r, const Theme& theme);
// A solid silent-coloured frame inside `r`.
void paintSilentFrame(QPainter& p, const QRect& r, const Theme& theme, int width);
// Down: a ✕ across the cell.
void paintCross(QPainter& p, const QRect& r, const QColor& color, qreal width);
// Draining: diagonal stripes over the cell.
void paintDrainStripes(QPainter& p, const QRect& r, const QColor& color);
// In maintenance: a translucent info-coloured tint and a wide diagonal hatch over the cell.
void paintMaintenanceHatch(QPainter& p, const QRect& r, const Theme& theme);
// A count badge (alerts): a filled circle with the number, centred on `center`.
void paintCountBadge(QPainter& p, const QPointF& center, qreal radius, int count, const QColor& fill);

// Legend: title, ramp (sequential) or swatches (categorical), plus "stale", "source silent" and
// "no data" swatches, and "maintenance" (paintMaintenanceHatch) where a map draws it.
QSize legendSizeHint(const ColorScale& scale, const Theme& theme, bool withMaintenance = false);
void paintLegend(QPainter& p, const QRect& r, const ColorScale& scale, const Theme& theme,
                 bool withMaintenance = false);

}  // namespace watchfloor::widgets
