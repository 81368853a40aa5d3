#include "parity/analyzer/profile/op_analysis.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "parity/analyzer/profile/range_nesting.hpp"

namespace parity::analyzer {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <typename Stat>
void sort_by_total(std::vector<Stat>& stats) {
  std::sort(stats.begin(), stats.end(), [](const Stat& a, const Stat& b) {
    return a.time.total_ns != b.time.total_ns ? a.time.total_ns > b.time.total_ns : a.name < b.name;
  });
}

// For each layer or op range, the time of the ranges of its own category
// nested in it with none of that category between (layers in a block, the
// aten::addmm inside aten::linear): what its self time leaves out, as the
// PyTorch profiler's self time does.
std::vector<std::int64_t> nested_same_category_ns(const TraceData& trace) {
  return nested_ns(trace, [](const TraceRange& parent, const TraceRange& child) {
    return parent.category == child.category && (child.category == profiler::Category::kLayer ||
                                                 child.category == profiler::Category::kOp);
  });
}

}  // namespace

bool is_conversion_op(std::string_view name) {
  const std::string text = lower(name);
  // "aten::to" whole: as a part it would take aten::topk and aten::tolist.
  if (text == "aten::to") return true;
  for (const char* word : {"reorder", "cast", "transpose", "transdata", "permute", "convert",
                           "aten::_to_copy", "contiguous"})
    if (text.find(word) != std::string::npos) return true;
  return false;
}

OpAnalysis analyze_ops(const TraceData& trace, const StepAnalysis& steps,
                       const Thresholds& thresholds) {
  OpAnalysis analysis;
  const double step_total = steps.steady_ns();
  const auto share = [&](double ns) { return step_total > 0 ? ns / step_total : 0; };

  std::unordered_map<profiler::NameId, std::vector<std::int64_t>> op_times;
  std::unordered_map<profiler::NameId, double> op_self;
  std::map<std::pair<profiler::NameId, profiler::NameId>, std::vector<std::int64_t>> layer_times;
  std::map<std::pair<profiler::NameId, profiler::NameId>, double> layer_self;
  const std::vector<std::int64_t> nested = nested_same_category_ns(trace);
  for (std::size_t i = 0; i < trace.ranges.size(); ++i) {
    const TraceRange& range = trace.ranges[i];
    if (!steps.in_steady_state(range.start_ns)) continue;
    if (range.category == profiler::Category::kOp) {
      op_times[range.name].push_back(range.dur_ns());
      op_self[range.name] += static_cast<double>(range.dur_ns() - nested[i]);
    } else if (range.category == profiler::Category::kLayer) {
      layer_times[{range.name, range.phase}].push_back(range.dur_ns());
      layer_self[{range.name, range.phase}] += static_cast<double>(range.dur_ns() - nested[i]);
    }
  }
  for (auto& [name, times] : op_times) {
    OpStat stat{trace.name(name), "", distribution_of(times), 0};
    stat.step_share = share(stat.time.total_ns);
    stat.self_ns = op_self[name];
    if (is_conversion_op(stat.name)) analysis.conversion_ns += stat.time.total_ns;
    analysis.ops.push_back(std::move(stat));
  }
  analysis.conversion_share = share(analysis.conversion_ns);
  for (auto& [key, times] : layer_times) {
    OpStat stat{trace.name(key.first), key.second ? trace.name(key.second) : "",
                distribution_of(times), 0};
    stat.step_share = share(stat.time.total_ns);
    stat.self_ns = layer_self[key];
    analysis.layers.push_back(std::move(stat));
  }
  sort_by_total(analysis.ops);
  // A block's time is mostly its children's: self time puts the layers that do the work first.
  std::sort(analysis.layers.begin(), analysis.layers.end(), [](const OpStat& a, const OpStat& b) {
    return a.self_ns != b.self_ns ? a.self_ns > b.self_ns : a.name < b.name;
  });

  struct KernelSamples {
    std::vector<std::int64_t> time, launch, queue;
  };
  std::unordered_map<profiler::NameId, KernelSamples> kernels;
  const auto small_ns = static_cast<std::int64_t>(thresholds.small_kernel_us * 1000);
  for (const TraceGpuActivity& activity : trace.gpu_activities) {
    if (activity.kind != profiler::GpuActivityKind::kKernel ||
        !steps.in_steady_state(activity.start_ns))
      continue;
    KernelSamples& samples = kernels[activity.name];
    samples.time.push_back(activity.dur_ns());
    ++analysis.kernel_count;
    if (activity.dur_ns() < small_ns) ++analysis.small_kernel_count;
    analysis.kernel_time_ns += static_cast<double>(activity.dur_ns());
    const TraceApiCall* launch =
        activity.correlation_id < 0 ? nullptr : trace.launches.find(activity.correlation_id);
    if (launch) {
      samples.launch.push_back(launch->end_ns - launch->start_ns);
      samples.queue.push_back(std::max<std::int64_t>(0, activity.start_ns - launch->end_ns));
    }
  }
  for (auto& [name, samples] : kernels) {
    KernelStat stat{trace.name(name), distribution_of(samples.time), 0,
                    distribution_of(samples.launch), distribution_of(samples.queue)};
    stat.device_share =
        analysis.kernel_time_ns > 0 ? stat.time.total_ns / analysis.kernel_time_ns : 0;
    analysis.kernels.push_back(std::move(stat));
  }
  sort_by_total(analysis.kernels);
  return analysis;
}

}  // namespace parity::analyzer
