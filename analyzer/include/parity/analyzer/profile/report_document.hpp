// The content of a profile report as a Document: what text, Markdown and
// HTML show. Headings carry ids (findings, steps, ops, layers, kernels, data,
// communication, idle, ranks, baseline) that the HTML uses to place charts.
#pragma once

#include <cstddef>

#include "parity/analyzer/profile/document.hpp"
#include "parity/analyzer/profile/profile_report.hpp"

namespace parity::analyzer {

inline constexpr std::size_t kTopRows = 15;  // rows of the op, layer and kernel tables

Document report_document(const ProfileReport& report);

}  // namespace parity::analyzer
