#include "parity/analyzer/profile/rank_profile.hpp"

#include <algorithm>

#include "parity/core/error.hpp"

namespace parity::analyzer {

RankProfile analyze_trace(const TraceData& trace, const Thresholds& thresholds) {
  RankProfile profile;
  profile.path = trace.path;
  profile.rank = trace.rank;
  profile.world_size = trace.world_size;
  for (const char* key : {"command_line", "host", "tool_version", "created_at",
                          "import.source_kind", "import.not_given"})
    if (const auto it = trace.meta.find(key); it != trace.meta.end())
      profile.meta[key] = it->second;
  profile.complete = trace.complete;
  profile.dropped_records = trace.dropped_records;
  profile.events = trace.events;
  profile.steps = analyze_steps(trace, thresholds);
  profile.ops = analyze_ops(trace, profile.steps, thresholds);
  profile.data = analyze_data(trace, profile.steps, thresholds);
  profile.comm = analyze_comm(trace, profile.steps);
  profile.idle = analyze_idle(trace, profile.steps);
  profile.counters = analyze_counters(trace);
  return profile;
}

RankComparison compare_ranks(const std::vector<RankProfile>& ranks, const Thresholds& thresholds) {
  RankComparison comparison;
  for (const RankProfile& profile : ranks) {
    RankRow row;
    row.rank = profile.rank;
    row.path = profile.path;
    row.steps = static_cast<std::int64_t>(profile.steps.steps.size());
    row.step_time = profile.steps.step_time;
    for (std::size_t p = 0; p < kStepParts; ++p)
      row.part_mean_ns[p] = profile.steps.parts[p].mean_ns;
    std::vector<double> work;
    for (std::size_t i = profile.steps.warmup_steps; i < profile.steps.steps.size(); ++i) {
      const StepBreakdown& step = profile.steps.steps[i];
      work.push_back(static_cast<double>(step.dur_ns - step.part(StepPart::kCommunication)));
    }
    std::sort(work.begin(), work.end());
    row.work_ns = sorted_quantile(work, 0.5);
    comparison.rows.push_back(std::move(row));
  }
  std::sort(comparison.rows.begin(), comparison.rows.end(),
            [](const RankRow& a, const RankRow& b) { return a.rank < b.rank; });
  for (std::size_t i = 1; i < comparison.rows.size(); ++i)
    if (comparison.rows[i].rank == comparison.rows[i - 1].rank)
      throw Error("two traces are rank " + std::to_string(comparison.rows[i].rank) + ": " +
                      comparison.rows[i - 1].path + " and " + comparison.rows[i].path,
                  "", "pass one trace per rank of a single run");
  const auto median_over_ranks = [&](auto value_of) {
    std::vector<double> values;
    for (const RankRow& row : comparison.rows) values.push_back(value_of(row));
    std::sort(values.begin(), values.end());
    return sorted_quantile(values, 0.5);
  };
  comparison.median_step_ns =
      median_over_ranks([](const RankRow& row) { return row.step_time.median_ns; });
  comparison.median_work_ns = median_over_ranks([](const RankRow& row) { return row.work_ns; });
  for (RankRow& row : comparison.rows) {
    row.vs_median = comparison.median_work_ns > 0
                        ? (row.work_ns - comparison.median_work_ns) / comparison.median_work_ns
                        : 0;
    row.straggler = comparison.rows.size() > 1 && row.vs_median > thresholds.straggler_share;
  }
  return comparison;
}

}  // namespace parity::analyzer
