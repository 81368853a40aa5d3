// Thresholds: every number the analysis and its rules compare against, with
// its default, settable by name (`parity report --set data_bound.warning_share=0.1`).
// docs/rules.md documents each one; `thresholds_table()` is the list that page
// and `parity report --list-settings` are made from.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace parity::analyzer {

struct Thresholds {
  double warmup_steps = 1;          // steps left out of the steady state
  double queue_empty_wait_us = 10;  // a consumer wait longer than this found the queue empty
  double data_bound_warning_share =
      0.05;  // TensorFlow: under 5% of the step is not input-bound, 5-20% moderately
  double data_bound_error_share = 0.20;     // over 20%: highly input-bound
  double queue_empty_warning_ratio = 0.30;  // MindInsight: queue empty on over 30% of steps
  double first_step_info_ratio = 3;         // first step / steady median
  double first_step_warning_ratio = 10;
  double first_step_warning_min_s = 1;  // ... and at least this long beyond the median
  // Jitter is (p95 - median) / median of steady step time: unlike the coefficient
  // of variation, one-off outliers (a checkpoint, a page-cache miss) do not trip it.
  double jitter_info_spread = 0.10;
  double jitter_warning_spread = 0.25;
  double comm_tail_info_share = 0.05;  // exposed communication / step time
  double comm_tail_warning_share = 0.10;
  double small_kernel_us = 10;                // a kernel shorter than this is "small"
  double launch_bound_small_share = 0.5;      // share of kernels that are small...
  double launch_bound_host_idle_share = 0.2;  // ...and device time idle waiting on the host
  double conversion_info_share = 0.02;        // reorders, casts, transposes / step time
  double conversion_warning_share = 0.05;
  double overflow_warning_share = 0.05;  // steps whose loss scale dropped
  double memory_warning_share = 0.90;    // peak memory / capacity
  double memory_error_share = 0.97;
  double straggler_share = 0.05;  // a rank slower than the ranks' median by this much
  double max_regression_pct = 5;  // baseline: allowed slowdown, % of the baseline step
};

struct ThresholdInfo {
  std::string_view name;
  double Thresholds::*field;
  std::string_view meaning;
};
const std::vector<ThresholdInfo>& thresholds_table();

// Sets one threshold from "name=value"; throws parity::Error naming the known
// settings for an unknown name, and refuses a value that is not a number.
void set_threshold(Thresholds& thresholds, std::string_view assignment);
nlohmann::json to_json(const Thresholds& thresholds);

}  // namespace parity::analyzer
