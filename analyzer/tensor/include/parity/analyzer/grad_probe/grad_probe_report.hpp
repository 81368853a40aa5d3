// The report of `parity grad-probe`: the verdict (the first bad step, or a
// match), the parameters whose signs agree least at that step, the steps
// with their similarity and fall, and the steps only one side holds; as text,
// Markdown, HTML and JSON (which lists every step and every parameter).
#pragma once

#include <string>
#include <vector>

#include "parity/analyzer/grad_probe/grad_probe_compare.hpp"
#include "parity/analyzer/report/report.hpp"

namespace parity::analyzer {

// "FIRST BAD STEP 3: ..." or "MATCH: ..." or "NO COMMON STEP: ...".
std::string grad_probe_verdict(const GradProbeComparison& comparison);

std::vector<std::string> grad_probe_report_formats();
Report grad_probe_report(const GradProbeComparison& comparison);

}  // namespace parity::analyzer
