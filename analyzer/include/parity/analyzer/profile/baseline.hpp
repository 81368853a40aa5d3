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

}  // namespace parity::analyzer
