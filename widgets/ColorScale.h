#pragma once
// Maps a value to a colour for one lens (what the rack map or a heatmap is coloured by).
// Sequential scales precompute a 256-entry LUT so painting thousands of tiles never builds a
// QColor per tile; categorical scales map a category index to a named colour.

#include "Reading.h"
#include "Theme.h"

#include <QColor>
#include <QString>
#include <QStringList>

#include <array>
#include <vector>

namespace watchfloor::widgets {

// The lenses the console offers. Values the caller passes are in the unit named per lens.
enum class Lens {
    Health,          // categorical, value = HealthCategory index
    GpuTemperature,  // °C, hottest GPU of the rack (or the GPU itself)
    Power,           // kW per rack
    CoolantFlow,     // L/min; low is bad
    CoolantDeltaT,   // °C, return minus supply
    LinkErrors,      // error counter increments per minute (NVLink + IB); log-mapped
    Goodput,         // ratio 0..1 (shown as %); low is bad
    Job,             // categorical, value = index into the job names given to forJobs()
    Lifecycle,       // categorical, value = LifecycleCategory index (the rack's worst tray)
};

// Category indices of the Health lens. ui/ maps the proto's HealthState/RackState onto these;
// "unknown" is not a category: it is a missing reading.
enum class HealthCategory : int { Healthy = 0, Degraded = 1, Failed = 2, Isolated = 3 };
// Category indices of the Lifecycle lens, mildest first: every tray in production; a tray in
// burn-in or maintenance (planned); a lemon or a proposal waiting for a person; a tray in triage or RMA.
enum class LifecycleCategory : int { Production = 0, Planned = 1, LemonOrProposed = 2, TriageOrRma = 3 };

class ColorScale {
public:
    enum class Kind { Sequential, Categorical };
    enum class Mapping { Linear, Log1p };

    struct Category {
        QString label;
        QColor color;
    };

    // The scale for a lens with its standard unit and range. Not valid for Lens::Job (the
    // categories come from the live job list): use forJobs().
    static ColorScale forLens(Lens lens, const Theme& theme);
    // Job lens: category 0 is "idle" (no job), categories 1..n are the given jobs.
    static ColorScale forJobs(const QStringList& jobNames, const Theme& theme);

    static ColorScale sequential(QString title, QString unit, float min, float max, const Theme& theme,
                                 bool higherIsWorse = true, Mapping mapping = Mapping::Linear);
    static ColorScale categorical(QString title, std::vector<Category> categories);

    Kind kind() const { return m_kind; }
    const QString& title() const { return m_title; }
    const QString& unit() const { return m_unit; }
    float min() const { return m_min; }
    float max() const { return m_max; }
    bool higherIsWorse() const { return m_higherIsWorse; }
    Mapping mapping() const { return m_mapping; }
    const std::vector<Category>& categories() const { return m_categories; }

    // Shown values are value × displayFactor (Goodput: ratio → %).
    void setDisplayFactor(float factor) { m_displayFactor = factor; }
    // Digits after the decimal point in formatValue().
    void setDecimals(int decimals) { m_decimals = decimals; }

    // Colour of a present value. Callers handle missing/stale readings themselves (see
    // PaintHelpers); a NaN here returns an invalid QColor so it can never look healthy.
    QColor colorFor(float value) const;
    // Position 0..1 along the ramp (for legends); NaN for NaN.
    float normalized(float value) const;
    // "72 °C", "n/a" for NaN, the category label for categorical scales.
    QString formatValue(float value) const;
    QString formatReading(const Reading& r) const;

private:
    Kind m_kind = Kind::Sequential;
    QString m_title;
    QString m_unit;
    float m_min = 0.f;
    float m_max = 1.f;
    float m_displayFactor = 1.f;
    int m_decimals = 0;
    bool m_higherIsWorse = true;
    Mapping m_mapping = Mapping::Linear;
    std::array<QColor, 256> m_lut;
    std::vector<Category> m_categories;
};

QString lensName(Lens lens);

}  // namespace watchfloor::widgets
