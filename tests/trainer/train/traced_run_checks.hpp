// What a traced parity-train run must hold, checked one promise of the trace
// schema at a time: the meta, the ranges as a tree (step > phase > layer >
// op), the parameter table, the gradient-ready events, the loss and lr
// counters and the data queue's samples. training_run_test.cpp trains once
// and runs every check on that one trace.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parity/profiler/trace_reader.hpp"

namespace traced_run {

using parity::profiler::Category;
using parity::profiler::ParameterRow;
using parity::profiler::TraceReader;

// A range of the trace, its end and name resolved.
struct Range {
  std::int64_t id, start, end;
  std::optional<std::int64_t> parent, arg;
  Category category;
  std::string name;
};

// Every range by id, to walk from a layer up to its phase and step.
class RangeTree {
 public:
  explicit RangeTree(TraceReader& trace);

  const std::map<std::int64_t, Range>& ranges() const { return ranges_; }
  // The nearest enclosing range of a category, or null.
  const Range* ancestor(const Range& range, Category category) const;
  // The step ranges by step number; checks there is one per step, named "step".
  std::map<std::int64_t, const Range*> steps() const;
  // (step, phase name) -> the phase's range.
  std::map<std::pair<std::int64_t, std::string>, const Range*> phases() const;

 private:
  std::map<std::int64_t, Range> ranges_;
};

using Steps = std::map<std::int64_t, const Range*>;
using Phases = std::map<std::pair<std::int64_t, std::string>, const Range*>;

// The config, the command line and a clean finish.
void check_meta(TraceReader& trace);
// Each step holds data_wait, forward, backward and optimizer, in that order.
void check_step_phases(const RangeTree& tree, const Steps& steps);
// ResNet-18's 62 parameters with torchvision's names, in order.
void check_parameters(const std::vector<ParameterRow>& parameters);
// One forward and one backward layer range per module with a weight, per step.
void check_layer_ranges(const RangeTree& tree, const std::vector<ParameterRow>& parameters,
                        std::int64_t step_count);
// An op range per module op, inside its layer range, around no other module.
void check_op_ranges(const RangeTree& tree, const std::vector<ParameterRow>& parameters,
                     std::int64_t step_count);
// The backend's layout conversions are op ranges named reorder.
void check_reorders(TraceReader& trace);
// Exactly one gradient_ready per parameter per step, inside that step's backward.
void check_gradient_ready(TraceReader& trace, const Phases& phases,
                          const std::vector<ParameterRow>& parameters, std::int64_t step_count);
// A loss and an lr counter per step: the printed loss and the schedule's rate.
void check_loss_and_lr(TraceReader& trace, const Steps& steps,
                       const std::vector<std::string>& printed_losses);
// The training queue has producer and consumer samples, at least one a step.
void check_queue_samples(TraceReader& trace, std::int64_t step_count);

}  // namespace traced_run
