// A NanScan (`parity nan-scan`) as a Report (report.hpp): text, md, html and
// json. Every format starts with the first record holding NaN or Inf (its
// step, phase, module, op, role, NaN and Inf counts and the index of its first
// non-finite element), then the op that turned clean input into it, then how
// many later records are non-finite.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/compare/nan_scan.hpp"
#include "parity/analyzer/report/report.hpp"

namespace parity::analyzer {

const std::vector<std::string>& nan_scan_report_formats();  // text, md, html, json
Report nan_scan_report(const NanScan& scan);

// Throws parity::Error for an unknown format.
void write_nan_scan_report(const NanScan& scan, std::string_view format, std::ostream& out);

}  // namespace parity::analyzer
