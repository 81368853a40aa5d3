// Category analysis: one rank's steady-state step time by op category
// (op_category_map.hpp), so that runs of different frameworks, whose op
// names differ, can be set side by side (`parity diff-trace`).
//
// Host: the ranges (phases, ops, annotations; not steps or layers) on the
// thread that ran each steady-state step, by SELF time: a range's time less
// that of the ranges nested in it (range_nesting.hpp), so each nanosecond of
// the step counts once. A range takes the first category whose pattern
// matches its name; one that matches none takes that of the range around it;
// a range inside one of a `claims_nested` category (the optimizer, data
// loading, the loss, communication) takes that category whatever its name.
// What no categorised range covers (uncategorised ranges, gaps) is
// "uncategorised", so the categories and it add up to the step time.
// Device: GPU kernels, copies and sets that start in a steady-state step, by
// their own names (device time).
// Forward and backward: a range's phase is that of the nearest of it and the
// ranges around it whose name the map's phase patterns match.
#pragma once

#include <string>
#include <vector>

#include "parity/analyzer/profile/op_category_map.hpp"
#include "parity/analyzer/profile/step_analysis.hpp"
#include "parity/analyzer/profile/trace_data.hpp"

namespace parity::analyzer {

inline constexpr const char* kUncategorised = "uncategorised";

struct CategoryTime {
  std::string category;
  double total_ns = 0;                     // over the steady-state steps
  double forward_ns = 0, backward_ns = 0;  // the parts whose phase is known
};

struct CategoryProfile {
  std::string map;                   // the map's description ("built-in", "built-in + my.yaml")
  std::size_t steps = 0;             // steady-state steps counted
  double step_ns = 0;                // their total time
  double device_ns = 0;              // GPU time counted
  std::vector<CategoryTime> host;    // in the map's order, then uncategorised
  std::vector<CategoryTime> device;  // in the map's order, then uncategorised; empty without GPU
  // Categorised host time / step time: how much of the step the map explains.
  double paired_share() const;
};

CategoryProfile analyze_categories(const TraceData& trace, const StepAnalysis& steps,
                                   const OpCategoryMap& map);

}  // namespace parity::analyzer
