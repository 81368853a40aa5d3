#include "parity/analyzer/profile/baseline.hpp"

#include <algorithm>
#include <map>

#include "parity/analyzer/profile/units.hpp"

namespace parity::analyzer {
namespace {

// What the checks compare, reduced over a run's ranks.
struct RunTimes {
  double step_ns = 0;                         // the slowest rank's median step
  std::array<double, kStepParts> parts{};     // mean over ranks of each part's steady mean
  std::map<std::string, double> op_per_step;  // mean over ranks of each op's time per step
  std::vector<std::string> heaviest_ops;      // by time per step, largest first
};

RunTimes run_times(const std::vector<RankProfile>& ranks) {
  RunTimes times;
  const double n = static_cast<double>(ranks.size());
  for (const RankProfile& rank : ranks) {
    times.step_ns = std::max(times.step_ns, rank.steps.step_time.median_ns);
    for (std::size_t p = 0; p < kStepParts; ++p) times.parts[p] += rank.steps.parts[p].mean_ns / n;
    const double steps = static_cast<double>(std::max<std::size_t>(1, rank.steps.steady_count()));
    for (const OpStat& op : rank.ops.ops)
      times.op_per_step[op.name] += op.time.total_ns / steps / n;
  }
  for (const auto& [name, ns] : times.op_per_step) times.heaviest_ops.push_back(name);
  std::sort(
      times.heaviest_ops.begin(), times.heaviest_ops.end(),
      [&](const auto& a, const auto& b) { return times.op_per_step[a] > times.op_per_step[b]; });
  return times;
}

std::string signed_percent(double pct) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.2f%%", pct);
  return text;
}

}  // namespace

bool BaselineComparison::regressed() const {
  return std::any_of(checks.begin(), checks.end(),
                     [](const RegressionCheck& c) { return c.regressed; });
}

BaselineComparison compare_to_baseline(const std::vector<RankProfile>& current,
                                       const std::vector<RankProfile>& baseline,
                                       double max_regression_pct) {
  BaselineComparison comparison;
  comparison.max_regression_pct = max_regression_pct;
  for (const RankProfile& rank : baseline) comparison.baseline_paths.push_back(rank.path);
  RunTimes now = run_times(current);
  RunTimes base = run_times(baseline);
  const auto check = [&](std::string name, double base_ns, double now_ns) {
    RegressionCheck c{std::move(name), base_ns, now_ns, 0, false};
    c.change_pct = base.step_ns > 0 ? (now_ns - base_ns) / base.step_ns * 100 : 0;
    c.regressed = c.change_pct > max_regression_pct;
    comparison.checks.push_back(std::move(c));
  };
  check("step time", base.step_ns, now.step_ns);
  for (const StepPart part : kAllStepParts) {
    const auto p = static_cast<std::size_t>(part);
    check(std::string(step_part_name(part)) + " per step", base.parts[p], now.parts[p]);
  }
  for (std::size_t i = 0; i < std::min(kBaselineOpChecks, base.heaviest_ops.size()); ++i) {
    const std::string& op = base.heaviest_ops[i];
    check("op " + op + " per step", base.op_per_step[op], now.op_per_step[op]);
  }
  return comparison;
}

nlohmann::json to_json(const BaselineComparison& comparison) {
  nlohmann::json checks = nlohmann::json::array();
  for (const RegressionCheck& c : comparison.checks)
    checks.push_back({{"name", c.name},
                      {"baseline_ns", c.baseline_ns},
                      {"current_ns", c.current_ns},
                      {"change_pct", c.change_pct},
                      {"regressed", c.regressed}});
  return {{"baseline", comparison.baseline_paths},
          {"max_regression_pct", comparison.max_regression_pct},
          {"regressed", comparison.regressed()},
          {"checks", checks}};
}

std::string failed_checks_text(const BaselineComparison& comparison) {
  std::vector<const RegressionCheck*> failed;
  for (const RegressionCheck& check : comparison.checks)
    if (check.regressed) failed.push_back(&check);
  std::stable_sort(failed.begin(), failed.end(),
                   [](const auto* a, const auto* b) { return a->change_pct > b->change_pct; });
  std::string text;
  for (const RegressionCheck* check : failed)
    text += (text.empty() ? "" : ", ") + check->name + " " + signed_percent(check->change_pct) +
            " (" + format_duration(check->baseline_ns) + " -> " +
            format_duration(check->current_ns) + ")";
  return text;
}

std::vector<JunitCase> junit_cases(const BaselineComparison& comparison,
                                   const std::string& classname, const std::string& reference) {
  std::vector<JunitCase> cases;
  for (const RegressionCheck& check : comparison.checks) {
    JunitCase test{classname, check.name, std::nullopt, std::nullopt};
    if (check.regressed)
      test.failure = check.name + " slower by " + signed_percent(check.change_pct) + " of " +
                     reference + "'s median step (" + format_duration(check.baseline_ns) + " -> " +
                     format_duration(check.current_ns) + "; allowed " +
                     signed_percent(comparison.max_regression_pct) + ")";
    cases.push_back(std::move(test));
  }
  return cases;
}

}  // namespace parity::analyzer
