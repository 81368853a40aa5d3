#include "parity/analyzer/profile/findings.hpp"

#include <algorithm>

#include "parity/core/error.hpp"
#include "rules.hpp"

namespace parity::analyzer {

std::string_view severity_name(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "info";
}

Severity parse_severity(std::string_view name) {
  for (const Severity s : {Severity::kInfo, Severity::kWarning, Severity::kError})
    if (severity_name(s) == name) return s;
  throw Error("unknown severity '" + std::string(name) + "'", "", "use info, warning or error");
}

const std::vector<RuleInfo>& rules_table() {
  static const std::vector<RuleInfo> table = {
      {"data-bound", "the share of step time spent waiting for input"},
      {"queue-empty", "how often the consumer found the data queue empty"},
      {"long-first-step", "the first step against the steady-state median"},
      {"step-jitter", "the spread of steady-state step times"},
      {"comm-tail", "communication exposed at the end of the step (the iteration tail)"},
      {"launch-bound", "many small kernels with the device waiting on the host"},
      {"conversion-ops", "time in reorders, casts and transposes"},
      {"loss-scale-overflow", "mixed-precision overflows (loss-scale drops)"},
      {"non-finite", "NaN or Inf in the loss or the NaN/Inf counters"},
      {"memory-capacity", "peak memory against capacity"},
      {"trace-quality", "records lost by the recorder, or a run that did not finish"},
      {"straggler", "a rank slower than the others"},
  };
  return table;
}

namespace rules {

Finding finding(const RankProfile& profile, std::string rule, Severity severity,
                std::string title) {
  Finding f;
  f.rule = std::move(rule);
  f.severity = severity;
  if (profile.world_size > 1) f.rank = profile.rank;
  f.title = std::move(title);
  return f;
}

}  // namespace rules

std::vector<Finding> evaluate_rules(const std::vector<RankProfile>& ranks,
                                    const RankComparison& comparison,
                                    const Thresholds& thresholds) {
  using Rule = void (*)(const RankProfile&, const Thresholds&, std::vector<Finding>&);
  static constexpr Rule per_rank[] = {
      rules::data_bound, rules::queue_empty,     rules::long_first_step, rules::step_jitter,
      rules::comm_tail,  rules::launch_bound,    rules::conversion_ops,  rules::loss_scale_overflow,
      rules::non_finite, rules::memory_capacity, rules::trace_quality};
  std::vector<Finding> findings;
  for (const RankProfile& profile : ranks)
    for (const Rule rule : per_rank) rule(profile, thresholds, findings);
  rules::stragglers(comparison, ranks, thresholds, findings);
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.rule != b.rule) return a.rule < b.rule;
    return a.rank.value_or(-1) < b.rank.value_or(-1);
  });
  return findings;
}

nlohmann::json to_json(const Finding& finding) {
  nlohmann::json json{{"rule", finding.rule},       {"severity", severity_name(finding.severity)},
                      {"title", finding.title},     {"evidence", finding.evidence},
                      {"numbers", finding.numbers}, {"next_step", finding.next_step}};
  json["rank"] = finding.rank ? nlohmann::json(*finding.rank) : nlohmann::json(nullptr);
  return json;
}

}  // namespace parity::analyzer
