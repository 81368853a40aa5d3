#include "parity/gui/panels/step_bars.hpp"

#include <algorithm>

namespace parity::gui {

namespace {

using analyzer::StepBreakdown;

StepBar make_bar(const analyzer::StepAnalysis& analysis, std::size_t first, std::size_t last) {
  StepBar bar;
  bar.first = first;
  bar.last = last;
  bar.warmup = first < analysis.warmup_steps;
  for (std::size_t s = first; s <= last; ++s)
    for (std::size_t p = 0; p < analyzer::kStepParts; ++p)
      bar.part_ms[p] += static_cast<double>(analysis.steps[s].parts[p]);
  const double scale = 1e-6 / static_cast<double>(bar.steps());
  for (double& ms : bar.part_ms) ms *= scale;
  const StepBreakdown& end = analysis.steps[last];
  bar.range = {analysis.steps[first].start_ns, end.start_ns + end.dur_ns};
  return bar;
}

}  // namespace

std::vector<StepBar> step_bars(const analyzer::StepAnalysis& analysis, TimeWindow window,
                               std::size_t max_bars) {
  const auto& steps = analysis.steps;
  const std::size_t count = steps.size();
  max_bars = std::max<std::size_t>(max_bars, 2);
  if (count == 0) return {};

  // The steps overlapping the window, [begin, end); steps are in time order.
  auto begin = static_cast<std::size_t>(std::partition_point(steps.begin(), steps.end(),
                                                             [&](const StepBreakdown& s) {
                                                               return s.start_ns + s.dur_ns <=
                                                                      window.start_ns;
                                                             }) -
                                        steps.begin());
  auto end = static_cast<std::size_t>(
      std::partition_point(steps.begin(), steps.end(),
                           [&](const StepBreakdown& s) { return s.start_ns < window.end_ns; }) -
      steps.begin());
  end = std::max(end, begin);

  std::size_t per_bar = 1;
  if (end - begin <= max_bars) {
    const std::size_t width = std::min(count, max_bars);
    const std::size_t middle = (begin + end) / 2;
    begin = std::min(middle > width / 2 ? middle - width / 2 : 0, count - width);
    end = begin + width;
  } else {
    // Groups of per_bar, aligned down to a multiple of it: the span grows by
    // under one group, and (max_bars - 1) groups cover the window's steps,
    // so at most max_bars bars.
    per_bar = (end - begin + max_bars - 2) / (max_bars - 1);
    begin -= begin % per_bar;
  }

  std::vector<StepBar> bars;
  bars.reserve((end - begin + per_bar - 1) / per_bar);
  for (std::size_t first = begin; first < end; first += per_bar)
    bars.push_back(make_bar(analysis, first, std::min(end, first + per_bar) - 1));
  return bars;
}

std::vector<std::optional<StepBar>> aligned_step_bars(const analyzer::StepAnalysis& other,
                                                      const analyzer::StepAnalysis& shown,
                                                      const std::vector<StepBar>& bars) {
  const auto& steps = other.steps;
  const auto index_of_step = [&steps](std::int64_t number) {
    return static_cast<std::size_t>(
        std::partition_point(steps.begin(), steps.end(),
                             [number](const StepBreakdown& s) { return s.step < number; }) -
        steps.begin());
  };
  std::vector<std::optional<StepBar>> aligned;
  aligned.reserve(bars.size());
  for (const StepBar& bar : bars) {
    const std::size_t first = index_of_step(shown.steps[bar.first].step);
    const std::size_t end = index_of_step(shown.steps[bar.last].step + 1);
    aligned.push_back(first < end ? std::optional(make_bar(other, first, end - 1)) : std::nullopt);
  }
  return aligned;
}

}  // namespace parity::gui
