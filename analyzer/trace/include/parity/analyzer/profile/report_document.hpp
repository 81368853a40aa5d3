// The content of a profile report as a Document: what text, Markdown and
// HTML show. Headings carry ids (findings, steps, ops, layers, kernels, data,
// communication, idle, ranks, baseline) that the HTML uses to place charts.
#pragma once

#include <cstddef>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/report/document.hpp"

namespace parity::analyzer {

inline constexpr std::size_t kTopRows = 15;  // rows of the op, layer and kernel tables

Document report_document(const ProfileReport& report);

// A baseline comparison's checks, one row each: the check, its time in the
// baseline run and in the current run (columns named `baseline`, `current`),
// the change in percent of the baseline's median step, the result.
Table checks_table(const BaselineComparison& comparison, const std::string& baseline,
                   const std::string& current);

}  // namespace parity::analyzer
