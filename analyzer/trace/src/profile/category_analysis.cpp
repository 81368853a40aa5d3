#include "parity/analyzer/profile/category_analysis.hpp"

#include <algorithm>
#include <unordered_map>

#include "parity/analyzer/profile/range_nesting.hpp"

namespace parity::analyzer {
namespace {

constexpr int kNone = -1;

// Each name's category index (kNone: none) and phase, matched once per name.
class NameLookup {
 public:
  NameLookup(const TraceData& trace, const OpCategoryMap& map) : trace_(trace), map_(map) {}
  int category(profiler::NameId name) {
    const auto [it, added] = categories_.try_emplace(name, kNone);
    if (added)
      if (const auto index = map_.category_of(trace_.name(name)))
        it->second = static_cast<int>(*index);
    return it->second;
  }
  OpPhase phase(profiler::NameId name) {
    const auto [it, added] = phases_.try_emplace(name, OpPhase::kUnknown);
    if (added) it->second = map_.phase_of(trace_.name(name));
    return it->second;
  }

 private:
  const TraceData& trace_;
  const OpCategoryMap& map_;
  std::unordered_map<profiler::NameId, int> categories_;
  std::unordered_map<profiler::NameId, OpPhase> phases_;
};

// Whether a range runs on the thread of the steady-state step that holds it.
bool in_steady_step(const TraceData& trace, const StepAnalysis& steps, const TraceRange& range) {
  if (range.category == profiler::Category::kStep || range.category == profiler::Category::kLayer)
    return false;
  const auto it = std::lower_bound(trace.steps.begin(), trace.steps.end(), range.step,
                                   [](const TraceStep& s, std::int64_t n) { return s.step < n; });
  return it != trace.steps.end() && it->step == range.step && it->track == range.track &&
         static_cast<std::size_t>(it - trace.steps.begin()) >= steps.warmup_steps;
}

// What a counted range inherits and passes on to the ranges inside it.
struct RangeContext {
  int category = kNone;
  bool claimed = false;  // inside a range of a claims_nested category
  OpPhase phase = OpPhase::kUnknown;
};

std::vector<CategoryTime> empty_times(const OpCategoryMap& map) {
  std::vector<CategoryTime> times;
  for (const OpCategory& category : map.categories()) times.push_back({category.name});
  times.push_back({kUncategorised});
  return times;
}

void add_time(CategoryTime& time, double ns, OpPhase phase) {
  time.total_ns += ns;
  if (phase == OpPhase::kForward) time.forward_ns += ns;
  if (phase == OpPhase::kBackward) time.backward_ns += ns;
}

std::vector<CategoryTime> host_times(const TraceData& trace, const StepAnalysis& steps,
                                     const OpCategoryMap& map, NameLookup& names) {
  std::vector<char> counted(trace.ranges.size(), 0);
  for (std::size_t i = 0; i < trace.ranges.size(); ++i)
    counted[i] = in_steady_step(trace, steps, trace.ranges[i]);
  const auto both_counted = [&](const TraceRange& parent, const TraceRange& child) {
    return counted[static_cast<std::size_t>(&parent - trace.ranges.data())] &&
           counted[static_cast<std::size_t>(&child - trace.ranges.data())];
  };
  const std::vector<std::int64_t> nested = nested_ns(trace, both_counted);

  std::vector<CategoryTime> times = empty_times(map);
  std::vector<RangeContext> context(trace.ranges.size());
  walk_nesting(trace, [&](std::size_t i, std::span<const std::size_t> open) {
    if (!counted[i]) return;
    const TraceRange& range = trace.ranges[i];
    RangeContext outer;
    for (auto it = open.rbegin(); it != open.rend(); ++it)
      if (counted[*it]) {
        outer = context[*it];
        break;
      }
    RangeContext& own = context[i];
    own = outer;
    const int category = names.category(range.name);
    if (!outer.claimed && category != kNone) {
      own.category = category;
      own.claimed = map.categories()[static_cast<std::size_t>(category)].claims_nested;
    }
    if (const OpPhase phase = names.phase(range.name); phase != OpPhase::kUnknown)
      own.phase = phase;
    if (own.category == kNone) return;  // its time stays uncategorised
    const double self = static_cast<double>(std::max<std::int64_t>(0, range.dur_ns() - nested[i]));
    add_time(times[static_cast<std::size_t>(own.category)], self, own.phase);
  });
  return times;
}

std::vector<CategoryTime> device_times(const TraceData& trace, const StepAnalysis& steps,
                                       const OpCategoryMap& map, NameLookup& names,
                                       double& device_ns) {
  std::vector<CategoryTime> times = empty_times(map);
  bool any = false;
  for (const TraceGpuActivity& activity : trace.gpu_activities) {
    if (activity.kind == profiler::GpuActivityKind::kSync ||
        !steps.in_steady_state(activity.start_ns))
      continue;
    any = true;
    const int category = names.category(activity.name);
    const auto ns = static_cast<double>(activity.dur_ns());
    device_ns += ns;
    add_time(category == kNone ? times.back() : times[static_cast<std::size_t>(category)], ns,
             names.phase(activity.name));
  }
  if (!any) times.clear();
  return times;
}

}  // namespace

double CategoryProfile::paired_share() const {
  if (step_ns <= 0 || host.empty()) return 0;
  return (step_ns - host.back().total_ns) / step_ns;
}

CategoryProfile analyze_categories(const TraceData& trace, const StepAnalysis& steps,
                                   const OpCategoryMap& map) {
  CategoryProfile profile;
  profile.map = map.description();
  profile.steps = steps.steady_count();
  profile.step_ns = steps.steady_ns();
  NameLookup names(trace, map);
  profile.host = host_times(trace, steps, map, names);
  double categorised = 0;
  for (std::size_t i = 0; i + 1 < profile.host.size(); ++i) categorised += profile.host[i].total_ns;
  // Gaps and uncategorised ranges: the rest of the step, never below zero
  // (a range may outlast its step).
  profile.host.back().total_ns = std::max(0.0, profile.step_ns - categorised);
  profile.device = device_times(trace, steps, map, names, profile.device_ns);
  return profile;
}

}  // namespace parity::analyzer
