// A WeightDiff as a Report (report.hpp) for people and machines: text (a
// terminal), md, html, json, junit (CI) and csv. Every format puts the
// summary first.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/report/report.hpp"
#include "parity/analyzer/weights/weight_diff.hpp"

namespace parity::analyzer {

const std::vector<std::string>& diff_report_formats();  // text, md, html, json, junit, csv
Report diff_report(const WeightDiff& diff);
// Throws parity::Error for an unknown format, listing the known ones.
void write_diff_report(const WeightDiff& diff, std::string_view format, std::ostream& out);

}  // namespace parity::analyzer
