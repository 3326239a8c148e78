#pragma once
// How a headline number reads: the colour of its KPI card.

namespace watchfloor::ui {

// Silent: a count of things whose source went silent, in the theme's silent colour.
enum class KpiLevel { Neutral, Ok, Warning, Critical, Missing, Silent };

}  // namespace watchfloor::ui
