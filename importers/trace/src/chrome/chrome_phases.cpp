#include "chrome/chrome_phases.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

namespace parity::importers::trace {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

// A step's own times are copied: adding the phases moves the ranges' storage.
struct StepPhases {
  TrackId track = 0;
  std::int64_t start = 0, end = 0;
  std::int64_t backward_start = kNever, backward_end = 0;
  std::int64_t data_end = 0;            // the end of the last data wait before backward
  std::int64_t forward_start = kNever;  // the first op after data_end
  std::int64_t forward_end = kNever;    // the first other marker after forward_start
  bool has_backward() const { return backward_start < backward_end; }
};

bool is_data_wait(std::string_view name) { return name.starts_with("enumerate(DataLoader)#"); }

// The step whose time holds `at`, among steps sorted by start.
StepPhases* step_at(std::vector<StepPhases>& steps, std::int64_t at) {
  auto it = std::upper_bound(steps.begin(), steps.end(), at,
                             [](std::int64_t t, const StepPhases& s) { return t < s.start; });
  if (it == steps.begin()) return nullptr;
  --it;
  return at < it->end ? &*it : nullptr;
}

std::vector<StepPhases> steps_of(const TraceAssembly& assembly) {
  std::vector<StepPhases> steps;
  for (const TraceAssembly::Range& range : assembly.ranges())
    if (range.category == Category::kStep)
      steps.push_back({range.track, range.start_ns, range.start_ns + range.dur_ns});
  std::sort(steps.begin(), steps.end(),
            [](const StepPhases& a, const StepPhases& b) { return a.start < b.start; });
  return steps;
}

// Each pass reads what the ones before it found.
void find_backward(const TraceAssembly& assembly, std::vector<StepPhases>& steps) {
  for (const TraceAssembly::Range& range : assembly.ranges()) {
    if (range.category != Category::kOp || !is_backward_op(assembly.text(range.name))) continue;
    if (StepPhases* step = step_at(steps, range.start_ns)) {
      step->backward_start = std::min(step->backward_start, range.start_ns);
      step->backward_end =
          std::max(step->backward_end, std::min(range.start_ns + range.dur_ns, step->end));
    }
  }
}

void find_data_waits(const TraceAssembly& assembly, std::vector<StepPhases>& steps) {
  for (const TraceAssembly::Range& range : assembly.ranges()) {
    if (range.category != Category::kPhase || !is_data_wait(assembly.text(range.name))) continue;
    StepPhases* step = step_at(steps, range.start_ns);
    const std::int64_t end = range.start_ns + range.dur_ns;
    if (step && step->has_backward() && end <= step->backward_start)
      step->data_end = std::max(step->data_end, end);
  }
}

void find_forward_start(const TraceAssembly& assembly, std::vector<StepPhases>& steps) {
  for (const TraceAssembly::Range& range : assembly.ranges()) {
    if (range.category != Category::kOp) continue;
    StepPhases* step = step_at(steps, range.start_ns);
    if (step && step->has_backward() && range.track == step->track &&
        range.start_ns >= step->data_end && range.start_ns < step->backward_start &&
        !is_backward_op(assembly.text(range.name)))
      step->forward_start = std::min(step->forward_start, range.start_ns);
  }
}

void find_forward_end(const TraceAssembly& assembly, std::vector<StepPhases>& steps) {
  for (StepPhases& step : steps) step.forward_end = step.backward_start;
  for (const TraceAssembly::Range& range : assembly.ranges()) {
    if (range.category != Category::kPhase) continue;
    StepPhases* step = step_at(steps, range.start_ns);
    if (step && range.start_ns > step->forward_start)
      step->forward_end = std::min(step->forward_end, range.start_ns);
  }
}

}  // namespace

bool is_backward_op(std::string_view name) {
  if (name.starts_with("autograd::engine::evaluate_function: ")) return true;
  while (!name.empty() && name.back() >= '0' && name.back() <= '9') name.remove_suffix(1);
  return name.ends_with("Backward");
}

std::size_t add_training_phases(TraceAssembly& assembly) {
  std::vector<StepPhases> steps = steps_of(assembly);
  find_backward(assembly, steps);
  find_data_waits(assembly, steps);
  find_forward_start(assembly, steps);
  find_forward_end(assembly, steps);
  const NameId forward = assembly.name("forward"), backward = assembly.name("backward");
  std::size_t phased = 0;
  for (const StepPhases& step : steps) {
    if (!step.has_backward()) continue;
    if (step.forward_start < step.forward_end)
      assembly.add_range(step.track, step.forward_start, step.forward_end - step.forward_start,
                         forward, Category::kPhase);
    assembly.add_range(step.track, step.backward_start, step.backward_end - step.backward_start,
                       backward, Category::kPhase);
    ++phased;
  }
  return phased;
}

}  // namespace parity::importers::trace
