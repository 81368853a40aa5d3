// Paints a laid-out Frame with QPainter (on a widget or an image): the
// ruler, trace and lane titles, boxes labelled where they are wide enough,
// folds with their counts, counter lines, the selected range and event, and
// the launch -> kernel flow arrow.
#pragma once

#include <QColor>
#include <QPainter>
#include <vector>

#include "parity/gui/timeline/timeline_layout.hpp"

namespace parity::gui {

// A name's colour: stable for a name, so an op looks the same everywhere.
QColor colour_of_name(const std::string& name);

void paint_timeline(QPainter& painter, const Frame& frame, const std::vector<TraceView>& traces);

}  // namespace parity::gui
