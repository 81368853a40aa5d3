#include "mindspore/mindspore_import.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "mindspore/mindspore_op_statistic.hpp"
#include "mindspore/mindspore_profile_dir.hpp"
#include "mindspore/mindspore_queue_rows.hpp"
#include "mindspore/mindspore_step_rows.hpp"
#include "mindspore/mindspore_timeline.hpp"
#include "mindspore/mindspore_timeline_data.hpp"
#include "mindspore/mindspore_timeline_steps.hpp"
#include "parity/core/error.hpp"
#include "rank_choice.hpp"

namespace parity::importers::trace {
namespace {

namespace fs = std::filesystem;

// World size where the folder shows it: ranks 0..n-1 all present. Early 1.x
// named the files by device id, so a lone rank 1 says nothing of the others.
std::optional<std::int64_t> world_size_of(const std::vector<MindSporeRankFiles>& ranks) {
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i].rank != static_cast<std::int64_t>(i)) return std::nullopt;
  return static_cast<std::int64_t>(ranks.size());
}

// The shift that puts the step trace on the timeline's clock: MindSpore
// 0.5-1.x moved the timeline JSON's times to begin near 0, and its
// output_timeline_data file keeps the device's times, which the step trace
// shares. 0 (with a note where they do not meet) without that file.
std::int64_t step_trace_shift(const MindSporeRankFiles& files, const TimelineOptions& timeline,
                              const TimelineOps& ops, const std::vector<StepTraceStep>& steps,
                              ImportSummary& summary) {
  if (files.timeline.empty() || steps.empty()) return 0;
  const std::optional<TimelineAnchor>& anchor = timeline.anchor;
  if (anchor && ops.anchor_ns) {
    summary.notes.push_back("the timeline's times moved to the step trace's clock by " +
                            files.timeline_data.filename().string() + " (its first op, " +
                            anchor->op + ")");
    return *ops.anchor_ns - anchor->start_ns;
  }
  const bool apart = ops.earliest_op_ns && (*ops.earliest_op_ns < steps.front().start_ns ||
                                            *ops.earliest_op_ns > steps.back().end_ns);
  if (apart)
    summary.notes.push_back(
        "the timeline's clock does not meet the step trace's, and no output_timeline_data "
        "file ties them: the ops lie outside their steps");
  return 0;
}

void shift_steps(std::vector<StepTraceStep>& steps, std::int64_t by) {
  for (StepTraceStep& step : steps) {
    step.start_ns += by;
    step.end_ns += by;
    step.fp_ns += by;
    if (step.bp_ns) *step.bp_ns += by;
    for (StepTraceReduce& reduce : step.reduces) {
      reduce.start_ns += by;
      reduce.end_ns += by;
    }
  }
}

void read_profile_dir(const fs::path& dir, const ImportOptions& options, TraceAssembly& assembly,
                      ImportSummary& summary) {
  const std::vector<MindSporeRankFiles> ranks = find_mindspore_ranks(dir);
  if (ranks.empty())
    throw Error("no MindSpore profiler files in the folder", dir.string(),
                "give the profiler/ folder that Profiler.analyse() wrote");
  const MindSporeRankFiles& files = chosen_rank(dir, ranks, options, summary, "profiler files");
  const std::string rank = std::to_string(files.rank);
  if (files.step_trace.empty())
    throw Error("no step trace (step_trace_raw_" + rank + "_detail_time.csv) for rank " + rank,
                dir.string(),
                "Profiler.analyse() writes it beside the timeline; copy the whole profiler/ "
                "folder, or give the timeline JSON alone (steps only, no phases)");
  summary.source = "MindSpore profiler (rank " + rank + ")";
  assembly.set_meta("rank", rank);
  if (const auto world_size = world_size_of(ranks))
    assembly.set_meta("world_size", std::to_string(*world_size));

  TimelineOptions timeline{false, files.rank, std::nullopt};
  if (!files.timeline_data.empty()) timeline.anchor = read_timeline_anchor(files.timeline_data);
  TimelineOps ops;
  if (!files.timeline.empty())
    ops = read_mindspore_timeline(files.timeline, options, timeline, assembly, summary);
  else
    summary.notes.push_back("no timeline (*_timeline_display_" + rank + ".json), so no ops");
  StepTraceTable trace = parse_step_trace(read_csv(files.step_trace));
  if (trace.rows_without_times > 0)
    summary.not_imported["step trace rows with no times (the average row of a one-step trace)"] +=
        trace.rows_without_times;
  std::vector<StepTraceStep>& steps = trace.steps;
  shift_steps(steps, step_trace_shift(files, timeline, ops, steps, summary));
  add_step_trace(steps, ops, files.rank, assembly, summary);
  summary.events += steps.size() + trace.rows_without_times;

  if (!files.queue_trace.empty()) {
    const auto records =
        parse_queue_trace(read_text_file(files.queue_trace), files.queue_trace.string());
    std::map<std::int64_t, std::int64_t> step_starts;
    for (const StepTraceStep& step : steps) step_starts[step.step] = step.start_ns;
    add_queue_samples(records, step_starts, mindspore_steps_track(assembly), assembly, summary);
    summary.events += records.size();
  } else {
    summary.notes.push_back("no data-queue trace (device_queue_profiling_" + rank +
                            ".txt), so no queue samples");
  }
  if (!files.op_statistic.empty())
    cross_check_op_statistic(read_csv(files.op_statistic), ops.count_by_type, "the timeline",
                             "MindSpore cuts the timeline at 20 MB, so its later ops are missing",
                             assembly, summary);
  if (!files.pipeline.empty())
    summary.notes.push_back(
        "minddata_pipeline_raw_" + rank +
        ".csv not read: its queue samples carry no time (the device queue's trace gives the "
        "queue the device saw)");
  summary.notes.push_back(
      "step trace times read as 10 ns ticks (MindSpore's GPU unit; Ascend's counter at 100 MHz)");
  summary.notes.push_back("collectives without their sizes: MindSpore's profiler records none");
  const std::vector<std::string> unread = unread_files(files);
  if (!unread.empty()) {
    std::string names;
    for (const std::string& name : unread) names += (names.empty() ? "" : ", ") + name;
    summary.not_imported["files of the folder Parity does not read (" + names + ")"] +=
        unread.size();
  }
}

}  // namespace

bool is_mindspore_profile_dir(const fs::path& dir) { return !find_mindspore_ranks(dir).empty(); }

std::vector<fs::path> mindspore_profile_files(const fs::path& dir) {
  std::vector<fs::path> all;
  for (const MindSporeRankFiles& rank : find_mindspore_ranks(dir))
    for (const fs::path& file : files_of(rank)) all.push_back(file);
  return all;
}

void read_mindspore_profile(const fs::path& in, const ImportOptions& options,
                            TraceAssembly& assembly, ImportSummary& summary) {
  if (fs::is_directory(in)) return read_profile_dir(in, options, assembly, summary);
  summary.source = "MindSpore profiler timeline";
  const TimelineOps ops = read_mindspore_timeline(in, options, {}, assembly, summary);
  if (ops.lane_steps == 0) add_steps_from_first_op(ops, assembly, summary);
  summary.notes.push_back(
      "a timeline alone: no phases or data queue; give the profiler/ folder "
      "(with step_trace_raw_<rank>_detail_time.csv) for them");
}

}  // namespace parity::importers::trace
