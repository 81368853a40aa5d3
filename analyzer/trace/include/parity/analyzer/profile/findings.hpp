// Findings: the rules that read a profile the way the seeds' tuning guide
// does (long first step, long iteration gap, long forward/backward, long
// tail, memory) and say what they saw and what to do. Every rule is listed in
// rules_table() and documented in docs/rules.md; its thresholds are settings
// (thresholds.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/profile/rank_profile.hpp"
#include "parity/analyzer/profile/thresholds.hpp"

namespace parity::analyzer {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };
std::string_view severity_name(Severity severity);
// "info", "warning" or "error"; throws parity::Error for anything else.
Severity parse_severity(std::string_view name);

struct Finding {
  std::string rule;
  Severity severity = Severity::kInfo;
  std::optional<std::int64_t> rank;                   // none for a finding about the whole run
  std::string title;                                  // one line
  std::vector<std::string> evidence;                  // the numbers, steps and ops behind it
  nlohmann::json numbers = nlohmann::json::object();  // the same, machine-readable
  std::string next_step;                              // what to do about it
};

struct RuleInfo {
  std::string_view id;
  std::string_view checks;
};
const std::vector<RuleInfo>& rules_table();

// Findings of every rule, most severe first, then by rule and rank.
std::vector<Finding> evaluate_rules(const std::vector<RankProfile>& ranks,
                                    const RankComparison& comparison, const Thresholds& thresholds);

nlohmann::json to_json(const Finding& finding);

}  // namespace parity::analyzer
