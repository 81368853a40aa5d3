// Renders a NanScan (`parity nan-scan`) as text or json. Both start with the
// first record holding NaN or Inf (its step, phase, module, op, role, NaN and
// Inf counts and the index of its first non-finite element), then the op
// that turned clean input into it, then how many later records are
// non-finite.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/compare/nan_scan.hpp"

namespace parity::analyzer {

std::vector<std::string> nan_scan_report_formats();  // text, json

// Throws parity::Error for an unknown format.
void write_nan_scan_report(const NanScan& scan, std::string_view format, std::ostream& out);

}  // namespace parity::analyzer
