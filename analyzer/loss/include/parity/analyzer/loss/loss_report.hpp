// The report of `parity loss-compare`: the verdict, the first-loss check, the
// counts, the largest gap, the parted steps and steps only one side has, as
// text, Markdown, HTML (with the curves' SVG chart) and JSON.
#pragma once

#include <string>
#include <vector>

#include "parity/analyzer/loss/loss_compare.hpp"
#include "parity/analyzer/report/report.hpp"

namespace parity::analyzer {

// The one-line verdict: "MATCH: ..." or "PARTED at step N: a=..., b=...,
// |Δ|=..., allowed=...", as the report and the viewer show it.
std::string loss_verdict(const LossComparison& comparison);
// What the first common step says, in the seeds' reading.
std::string first_loss_reading(const LossComparison& comparison);

std::vector<std::string> loss_report_formats();
Report loss_report(const LossComparison& comparison);

}  // namespace parity::analyzer
