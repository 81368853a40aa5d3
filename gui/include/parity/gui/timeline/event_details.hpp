// What the details pane says about a clicked event: its name, lane, times
// and duration from TimelineData, and what only the database holds (a
// range's category and argument, a kernel's launch configuration and bytes,
// a collective's bucket), read by the event's clustered key.
#pragma once

#include <QString>
#include <utility>
#include <vector>

#include "parity/gui/timeline/timeline_data.hpp"
#include "parity/profiler/trace_reader.hpp"

namespace parity::gui {

using DetailLines = std::vector<std::pair<QString, QString>>;

// `reader` is the event's trace, opened by the caller (kept open while the
// trace is shown). Times are relative to the trace's first event.
DetailLines describe_event(const TimelineData& data, const EventRef& event,
                           profiler::TraceReader& reader);

}  // namespace parity::gui
