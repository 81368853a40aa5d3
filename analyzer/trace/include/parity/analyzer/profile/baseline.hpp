// Baseline comparison: is this run slower than a baseline run? Every check
// measures its slowdown in percent of the baseline's median step, so a part
// that is a sliver of the step cannot fail the run on noise:
//   step time          median steady step (the slowest rank's, which every rank waits for);
//   <part> per step    mean steady time of each step part;
//   op <name>          time per step of the baseline's heaviest host ops.
// A check regresses when its slowdown exceeds the allowed percentage.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "parity/analyzer/profile/rank_profile.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {

struct RegressionCheck {
  std::string name;
  double baseline_ns = 0, current_ns = 0;
  double change_pct = 0;  // (current - baseline) / baseline median step x 100
  bool regressed = false;
};

struct BaselineComparison {
  std::vector<std::string> baseline_paths;
  double max_regression_pct = 0;
  std::vector<RegressionCheck> checks;
  bool regressed() const;
};
inline constexpr std::size_t kBaselineOpChecks = 10;

BaselineComparison compare_to_baseline(const std::vector<RankProfile>& current,
                                       const std::vector<RankProfile>& baseline,
                                       double max_regression_pct);

nlohmann::json to_json(const BaselineComparison& comparison);

// The failed checks, worst first, each with its change and times:
// "data_wait per step +57.00% (1.20 ms -> 7.04 ms), step time +6.10% (...)";
// empty when none failed.
std::string failed_checks_text(const BaselineComparison& comparison);
// One JUnit test case per check, failing when it regressed; `reference`
// names the baseline run in the messages ("the baseline", "A").
std::vector<JunitCase> junit_cases(const BaselineComparison& comparison,
                                   const std::string& classname, const std::string& reference);

}  // namespace parity::analyzer
