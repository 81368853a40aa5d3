// The whole-run rules: trace-quality and straggler.
#include <algorithm>

#include "parity/analyzer/profile/units.hpp"
#include "rules.hpp"

namespace parity::analyzer::rules {

void trace_quality(const RankProfile& profile, const Thresholds&, std::vector<Finding>& out) {
  if (profile.dropped_records > 0) {
    Finding f = finding(profile, "trace-quality", Severity::kWarning,
                        "the recorder lost " + std::to_string(profile.dropped_records) +
                            " records: totals and counts in this report are too low");
    f.evidence.push_back(profile.path +
                         ": meta.dropped_records = " + std::to_string(profile.dropped_records));
    f.numbers = {{"dropped_records", profile.dropped_records}};
    f.next_step = "record again with larger per-thread rings or fewer ranges (trace fewer layers)";
    out.push_back(std::move(f));
  }
  if (!profile.complete) {
    Finding f = finding(profile, "trace-quality", Severity::kWarning,
                        "the recording process did not finish cleanly: the trace ends early");
    f.evidence.push_back(profile.path + ": meta.complete is not 1; the last step recorded is " +
                         std::to_string(profile.steps.steps.back().step));
    f.numbers = {{"complete", false}};
    f.next_step =
        "check why the run stopped (crash, kill, time limit); the steps it did record are analyzed";
    out.push_back(std::move(f));
  }
}

void stragglers(const RankComparison& comparison, const std::vector<RankProfile>& ranks,
                const Thresholds&, std::vector<Finding>& out) {
  for (const RankRow& row : comparison.rows) {
    if (!row.straggler) continue;
    Finding f;
    f.rule = "straggler";
    f.severity = Severity::kWarning;
    f.rank = row.rank;
    f.title = "rank " + std::to_string(row.rank) + " is " + format_percent(row.vs_median) +
              " slower than the median rank: the others wait for it";
    // The part in which this rank exceeds the others' median most.
    StepPart slowest = StepPart::kOther;
    double excess = -1;
    for (const StepPart part : kAllStepParts) {
      std::vector<double> others;
      for (const RankRow& other : comparison.rows)
        others.push_back(other.part_mean_ns[static_cast<std::size_t>(part)]);
      std::sort(others.begin(), others.end());
      const double over =
          row.part_mean_ns[static_cast<std::size_t>(part)] - sorted_quantile(others, 0.5);
      if (over > excess) excess = over, slowest = part;
    }
    f.evidence.push_back("work per step (the step less exposed communication) " +
                         format_duration(row.work_ns) + " against the median " +
                         format_duration(comparison.median_work_ns) + " of " +
                         std::to_string(ranks.size()) +
                         " ranks; the others spend the difference waiting in collectives");
    f.evidence.push_back("its " + std::string(step_part_name(slowest)) + " part is " +
                         format_duration(excess) + " longer per step than the median rank's");
    f.numbers = {{"work_ns", row.work_ns},
                 {"ranks_median_work_ns", comparison.median_work_ns},
                 {"slower_by", row.vs_median},
                 {"slowest_part", step_part_name(slowest)}};
    f.next_step = "every rank waits for the slowest at each AllReduce: check rank " +
                  std::to_string(row.rank) + "'s host (" + row.path +
                  ") for other load, a slower device or data shard, or thermal throttling";
    out.push_back(std::move(f));
  }
}

}  // namespace parity::analyzer::rules
