#pragma once
// Applies a widgets::Theme to the whole application: the QPalette every stock widget (tables,
// combo boxes, scroll bars) paints with, the base font size, and a small style sheet for the
// console's own chrome (page headers, KPI strip, banner). Custom-painted widgets get the Theme
// itself through setTheme().

#include "ConsoleSettings.h"

#include "Theme.h"

class QApplication;

namespace watchfloor::ui {

widgets::ThemeVariant themeVariantFor(ThemeChoice choice);
void applyApplicationTheme(QApplication& app, const widgets::Theme& theme);

}  // namespace watchfloor::ui
