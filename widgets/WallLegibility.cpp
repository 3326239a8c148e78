#include "WallLegibility.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace watchfloor::widgets {

double wallScaleFor(QSize windowSize) {
    if (windowSize.isEmpty()) return 1.0;
    const double byWidth = double(windowSize.width()) / kWallReferenceWidthPx;
    const double byHeight = double(windowSize.height()) / kWallReferenceHeightPx;
    return std::max(1.0, std::min(byWidth, byHeight));
}

int pixelSizeForCapHeight(const QFont& font, int capHeightPx) {
    if (capHeightPx <= 0) return 1;
    QFont probe = font;
    probe.setPixelSize(100);
    const double ratio = QFontMetricsF(probe).capHeight() / 100.0;
    int size = static_cast<int>(std::ceil(capHeightPx / std::max(0.4, ratio)));
    // Hinting rounds the cap height per size: step up until the rendered metric reaches it.
    for (int guard = 0; guard < 8; ++guard) {
        probe.setPixelSize(size);
        if (QFontMetricsF(probe).capHeight() >= capHeightPx - 0.01) break;
        ++size;
    }
    return size;
}

}  // namespace watchfloor::widgets
