// MindSpore's timeline, ascend_timeline_display_<rank>.json or
// gpu_timeline_display_<rank>.json (timeline_display_<rank>.json before 0.7):
// Chrome trace events in a bare array, read with the Chrome importer's stream
// reader and event parser. Ops become op ranges on their device stream (named
// by their type, Conv2D-op12 -> Conv2D, the instance number as the range's
// arg), AI CPU ops (pid 9000) on a lane of their own, communication rows
// (pid 10000) collectives where no step trace gives them, the Scope Name lane
// layer ranges, GPU activity rows kernels; the Steps lane gives the steps
// where no step trace does. Lanes follow base_timeline_generator.py's
// numbering; a tid may be a number or its text ("519": MindSpore 1.0).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mindspore/mindspore_timeline_data.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

struct TimelineOps {
  // Starts of the device's gradient ops (scoped "Gradients/", or ReluGrad,
  // Conv2DBackpropFilter... where the timeline has no full names), in time
  // order: where each step's backward pass begins.
  std::vector<std::int64_t> gradient_starts;
  std::vector<std::int64_t> op_starts;                // every device op's, in time order
  std::map<std::string, std::int64_t> count_by_type;  // for op_statistic's cross-check
  std::optional<std::int64_t> earliest_op_ns;
  // The starts of every run of the timeline's first device op on its stream
  // (AssignAdd-op414, the step counter, in MindSpore 0.5-1.0's), and the end
  // of the last op: where steps begin, for a timeline without a Steps lane.
  std::string first_op;
  std::vector<std::int64_t> first_op_starts;
  std::int64_t last_end_ns = 0;
  std::int64_t lane_steps = 0;  // steps the Steps lane gave
  // The earliest start of TimelineOptions::anchor's op on its stream.
  std::optional<std::int64_t> anchor_ns;
};

struct TimelineOptions {
  bool steps_from_timeline = true;  // false where the step trace gives them
  std::int64_t rank = 0;
  std::optional<TimelineAnchor> anchor;  // the op whose start TimelineOps::anchor_ns gives
};

// Throws parity::Error naming the file and the byte offset for input that is
// not such a document.
TimelineOps read_mindspore_timeline(const std::filesystem::path& in, const ImportOptions& options,
                                    const TimelineOptions& timeline, TraceAssembly& assembly,
                                    ImportSummary& summary);

// Whether the first bytes of a JSON file are MindSpore's timeline: a bare
// array whose events use MindSpore's lanes (tid 100000 "Steps", 100001
// "Scope Name") or name ops the way it does ("Conv2D-op12").
bool looks_like_mindspore_timeline(std::string_view head);

// The op's type: "Conv2D-op12" -> "Conv2D"; the name itself where it has no "-op<N>".
std::string_view op_type(std::string_view name);

// "ReluGrad", "Conv2DBackpropFilter": an op of the backward pass.
bool is_gradient_op(std::string_view type);

}  // namespace parity::importers::trace
