// Reads a trace database into TimelineData: each large table on its own
// connection and thread, rows in their clustered (track, start) order, so a
// trace of ten million events loads in about a second on two cores.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "parity/gui/background_task.hpp"
#include "parity/gui/timeline/timeline_data.hpp"

namespace parity::gui {

enum class TimelineParts {
  kAll,
  // Everything but the CUDA API calls (about a third of a GPU trace's rows),
  // which read_api_calls() brings afterwards: the window paints sooner.
  kWithoutApiCalls,
};

// Throws parity::Error naming the file for one that is not a readable Parity
// trace of this schema (profiler::TraceReader's checks) or is truncated, and
// TaskCancelled once `control` is cancelled. `control` may be null.
TimelineData load_timeline(const std::filesystem::path& path, TaskControl* control = nullptr,
                           TimelineParts parts = TimelineParts::kAll);

// The CUDA API rows of a trace, by thread, ready to merge.
struct ApiCallRows {
  std::map<profiler::TrackId, std::vector<EventRow>> rows;
  std::map<profiler::TrackId, std::string> titles;  // of every thread track
};
ApiCallRows read_api_calls(const std::filesystem::path& path, TaskControl* control = nullptr);
// Adds them to their threads' lanes (a thread with no lane yet gets one at
// the end, so existing lane indices stay valid) and updates events and extent.
void merge_api_calls(TimelineData& data, ApiCallRows api_calls);

}  // namespace parity::gui
