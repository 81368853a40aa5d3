#include "parity/analyzer/profile/thresholds.hpp"

#include <cmath>
#include <cstdlib>

#include "parity/core/error.hpp"

namespace parity::analyzer {

const std::vector<ThresholdInfo>& thresholds_table() {
  using T = Thresholds;
  static const std::vector<ThresholdInfo> table = {
      {"warmup_steps", &T::warmup_steps, "steps at the start left out of steady-state statistics"},
      {"queue.empty_wait_us", &T::queue_empty_wait_us,
       "a consumer that waited longer than this (us) found the data queue empty"},
      {"data_bound.warning_share", &T::data_bound_warning_share,
       "data wait share of the step from which a run is moderately input-bound (warning)"},
      {"data_bound.error_share", &T::data_bound_error_share,
       "data wait share of the step above which a run is highly input-bound (error)"},
      {"data_bound.queue_empty_ratio", &T::queue_empty_warning_ratio,
       "share of gets that found the queue empty above which the queue is flagged (warning)"},
      {"first_step.info_ratio", &T::first_step_info_ratio,
       "first step / steady median step from which the first step is reported"},
      {"first_step.warning_ratio", &T::first_step_warning_ratio,
       "first step / steady median step from which a long first step is a warning..."},
      {"first_step.warning_min_s", &T::first_step_warning_min_s,
       "...when it also exceeds the median by at least this many seconds"},
      {"jitter.info_spread", &T::jitter_info_spread,
       "(p95 - median) / median of steady step time reported as information"},
      {"jitter.warning_spread", &T::jitter_warning_spread,
       "(p95 - median) / median of steady step time from which jitter is a warning"},
      {"comm_tail.info_share", &T::comm_tail_info_share,
       "exposed communication share of the step reported as information"},
      {"comm_tail.warning_share", &T::comm_tail_warning_share,
       "exposed communication share of the step from which it is a warning"},
      {"launch_bound.small_kernel_us", &T::small_kernel_us,
       "a kernel shorter than this (us) is small"},
      {"launch_bound.small_share", &T::launch_bound_small_share,
       "share of kernels that are small, from which a run may be launch-bound..."},
      {"launch_bound.host_idle_share", &T::launch_bound_host_idle_share,
       "...when the device also idles waiting on the host for this share of the time"},
      {"conversion.info_share", &T::conversion_info_share,
       "share of step time in conversion ops (reorder, cast, transpose) reported as information"},
      {"conversion.warning_share", &T::conversion_warning_share,
       "share of step time in conversion ops from which it is a warning"},
      {"overflow.warning_share", &T::overflow_warning_share,
       "share of steps whose loss scale dropped (fp16 overflow) from which it is a warning"},
      {"memory.warning_share", &T::memory_warning_share, "peak memory / capacity for a warning"},
      {"memory.error_share", &T::memory_error_share, "peak memory / capacity for an error"},
      {"straggler.share", &T::straggler_share,
       "a rank whose work per step (step less exposed communication) exceeds the median rank's by this share is a straggler"},
      {"baseline.max_regression_pct", &T::max_regression_pct,
       "allowed slowdown against the baseline, in % of the baseline's median step"},
  };
  return table;
}

void set_threshold(Thresholds& thresholds, std::string_view assignment) {
  const auto equals = assignment.find('=');
  const std::string name(assignment.substr(0, equals));
  if (equals == std::string_view::npos)
    throw Error("setting '" + name + "' has no value", "--set", "write it as name=value");
  const std::string text(assignment.substr(equals + 1));
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value) || value < 0)
    throw Error("setting " + name + "='" + text + "' is not a non-negative number", "--set");
  for (const ThresholdInfo& info : thresholds_table())
    if (info.name == name) {
      thresholds.*info.field = value;
      return;
    }
  std::string known;
  for (const ThresholdInfo& info : thresholds_table())
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  throw Error("unknown setting '" + name + "'", "--set", "the settings are: " + known);
}

nlohmann::json to_json(const Thresholds& thresholds) {
  nlohmann::json json = nlohmann::json::object();
  for (const ThresholdInfo& info : thresholds_table())
    json[std::string(info.name)] = thresholds.*info.field;
  return json;
}

}  // namespace parity::analyzer
