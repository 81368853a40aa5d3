// MindSpore's timeline, ascend_timeline_display_<rank>.json or
// gpu_timeline_display_<rank>.json: Chrome trace events in a bare array, read
// with the Chrome importer's stream reader and event parser. Ops become op
// ranges on their device stream (named by their type, Conv2D-op12 -> Conv2D,
// the instance number as the range's arg), the Scope Name lane layer ranges,
// GPU activity rows kernels; the Steps lane gives the steps where no step
// trace does. Lanes follow base_timeline_generator.py's numbering.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

struct TimelineOps {
  // Starts of the device's gradient ops (ReluGrad, Conv2DBackpropFilter...),
  // in time order: where each step's backward pass begins.
  std::vector<std::int64_t> gradient_starts;
  std::map<std::string, std::int64_t> count_by_type;  // for op_statistic's cross-check
};

struct TimelineOptions {
  bool steps_from_timeline = true;  // false where the step trace gives them
  std::int64_t rank = 0;
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
