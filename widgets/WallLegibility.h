#pragma once
// How large the war-room wall's type must be, and the wall's scale. The numbers and where they
// come from are in docs/war-room.md: an operator reads the wall from 4 m; a character must
// subtend 16 minutes of arc there (ISO 9241-3's minimum, NUREG-0700's rule for large group-view
// displays), 18.6 mm; the reference wall is 1.0 m tall (4 m is 4 image heights, the 4-6-8 rule's
// limit for detailed content), so at 1080 lines a pixel is 0.93 mm and a capital needs 20 pixels.

#include <QFont>
#include <QSize>

namespace watchfloor::widgets {

inline constexpr int kWallReferenceWidthPx = 1920;
inline constexpr int kWallReferenceHeightPx = 1080;
inline constexpr double kWallMinCapHeightPx1080 = 20.0;

// 1 at 1920×1080 and below, 2 at 3840×2160: the wall keeps its layout and its physical type
// size when the same wall is driven at a higher resolution.
double wallScaleFor(QSize windowSize);

// The smallest pixel size at which `font`'s capitals are at least capHeightPx tall.
int pixelSizeForCapHeight(const QFont& font, int capHeightPx);

}  // namespace watchfloor::widgets
