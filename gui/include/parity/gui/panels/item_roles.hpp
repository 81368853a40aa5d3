// The item data roles the panels' models add to Qt's.
#pragma once

#include <Qt>

namespace parity::gui {

// The raw value of a cell (a number for numeric columns), which proxies sort
// by: the display text ("12.4 ms") does not order numerically.
inline constexpr int kSortRole = Qt::UserRole + 1;
// A rich-text description of the whole row (the findings' detail pane).
inline constexpr int kDetailRole = Qt::UserRole + 2;

}  // namespace parity::gui
