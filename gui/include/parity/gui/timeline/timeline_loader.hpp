// Reads a trace database into TimelineData: each large table on its own
// connection and thread, rows in their clustered (track, start) order, so a
// trace of ten million events loads in about a second on two cores.
#pragma once

#include <filesystem>

#include "parity/gui/background_task.hpp"
#include "parity/gui/timeline/timeline_data.hpp"

namespace parity::gui {

// Throws parity::Error naming the file for one that is not a readable Parity
// trace of this schema (profiler::TraceReader's checks) or is truncated, and
// TaskCancelled once `control` is cancelled. `control` may be null.
TimelineData load_timeline(const std::filesystem::path& path, TaskControl* control = nullptr);

}  // namespace parity::gui
