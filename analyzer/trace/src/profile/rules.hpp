// The rules evaluate_rules() runs, one function each. A rule appends the
// findings it makes (none when all is well) to `out`.
#pragma once

#include <vector>

#include "parity/analyzer/profile/findings.hpp"

namespace parity::analyzer::rules {

// Step-time rules (step_rules.cpp).
void data_bound(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);
void queue_empty(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);
void long_first_step(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);
void step_jitter(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);
void comm_tail(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);

// Device and numeric rules (device_rules.cpp).
void launch_bound(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);
void conversion_ops(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);
void loss_scale_overflow(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);
void non_finite(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);
void memory_capacity(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);

// Whole-run rules (run_rules.cpp).
void trace_quality(const RankProfile& profile, const Thresholds& t, std::vector<Finding>& out);
void stragglers(const RankComparison& comparison, const std::vector<RankProfile>& ranks,
                const Thresholds& t, std::vector<Finding>& out);

// A finding about `profile`'s rank, or about the run when there is one rank.
Finding finding(const RankProfile& profile, std::string rule, Severity severity, std::string title);

}  // namespace parity::analyzer::rules
