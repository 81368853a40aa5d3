// Ctrl+F on the timeline: the next (or previous) event whose name contains a
// text, across every row of every trace shown.
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

#include "parity/gui/timeline/timeline_layout.hpp"

namespace parity::gui {

struct SearchHit {
  EventRef event;
  TimeWindow span;  // on the common time axis
};

// The event starting first after `from_ns` (forward) or last before it
// (backward) whose name holds `text`, case-insensitively. Rows are scanned
// from the binary-searched position, so a common name is found at once and a
// rare one costs at most one pass over the events.
std::optional<SearchHit> find_event(const std::vector<TraceView>& traces, const QString& text,
                                    std::int64_t from_ns, bool forward);

}  // namespace parity::gui
