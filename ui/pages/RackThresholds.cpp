#include "RackThresholds.h"

namespace watchfloor::ui {

namespace {

KpiLevel judged(const client::Reading& r, bool critical, bool warning) {
    if (!r.hasValue()) return KpiLevel::Missing;
    return critical ? KpiLevel::Critical : warning ? KpiLevel::Warning : KpiLevel::Ok;
}

}  // namespace

// The comparisons are false against a NaN design value, which is what makes such a value Ok.
KpiLevel rackPowerLevel(const client::Reading& powerKw, double designKw) {
    return judged(powerKw, powerKw.value > designKw, powerKw.value > 0.95 * designKw);
}

KpiLevel hottestGpuLevel(const client::Reading& temperatureC, double slowdownC) {
    return judged(temperatureC, temperatureC.value >= slowdownC, temperatureC.value >= slowdownC - 5);
}

KpiLevel coolantFlowLevel(const client::Reading& flowLpm, double designLpm) {
    return judged(flowLpm, flowLpm.value < 0.7 * designLpm, flowLpm.value < 0.9 * designLpm);
}

KpiLevel coolantDeltaLevel(const client::Reading& deltaC) {
    return deltaC.hasValue() ? KpiLevel::Neutral : KpiLevel::Missing;
}

KpiLevel gpusUpLevel(const client::Reading& down, const client::Reading& degraded) {
    return judged(down, down.value >= 4, down.value > 0 || (degraded.hasValue() && degraded.value > 0));
}

KpiLevel leakLevel(const client::Reading& wet, const client::Reading& faulted) {
    return judged(wet, wet.value > 0, faulted.hasValue() && faulted.value > 0);
}

}  // namespace watchfloor::ui
