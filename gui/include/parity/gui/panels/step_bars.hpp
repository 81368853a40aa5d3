// Step bars: the bars of the step breakdown chart. Thousands of bars are
// neither readable nor quick to draw, so the chart draws at most max_bars:
//   - when the visible time window holds at most max_bars steps, one bar per
//     step: those steps and their neighbours up to max_bars, centred on the
//     window (a run of at most max_bars steps is always drawn whole);
//   - when it holds more, bars that are each the mean of neighbouring steps
//     (as the HTML report's chart does), grouped from multiples of the group
//     size so that panning does not regroup them.
// A bar's range spans its steps, so showing a group's range zooms the window
// onto it, and the chart then draws its steps one bar each.
// With two runs open, the second run's bars are aligned by step number to the
// first run's: each covers the same steps (aligned_step_bars).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "parity/analyzer/profile/step_analysis.hpp"
#include "parity/gui/view_state.hpp"

namespace parity::gui {

inline constexpr std::size_t kMaxStepBars = 300;

struct StepBar {
  std::size_t first = 0, last = 0;                     // indices into StepAnalysis::steps
  std::array<double, analyzer::kStepParts> part_ms{};  // the mean over the bar's steps
  bool warmup = false;                                 // holds a warm-up step
  TimeWindow range;  // from the first step's start to the last step's end

  std::size_t steps() const { return last - first + 1; }
};

// The bars for `window` (on the trace's clock); `max_bars` is at least 2.
std::vector<StepBar> step_bars(const analyzer::StepAnalysis& steps, TimeWindow window,
                               std::size_t max_bars = kMaxStepBars);

// For each of `bars` (bars of `shown`), the bar of `other`'s steps numbered
// as that bar's steps are (from its first step's number to its last's); none
// where `other` has none of them. Steps are numbered in time order.
std::vector<std::optional<StepBar>> aligned_step_bars(const analyzer::StepAnalysis& other,
                                                      const analyzer::StepAnalysis& shown,
                                                      const std::vector<StepBar>& bars);

}  // namespace parity::gui
