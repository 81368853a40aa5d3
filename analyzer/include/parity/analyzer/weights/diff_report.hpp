// Renders a WeightDiff for people and machines: text (a terminal), md, csv,
// json and junit (CI). Every format puts the summary first.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/weights/weight_diff.hpp"

namespace parity::analyzer {

std::vector<std::string> diff_report_formats();  // text, json, csv, md, junit
// Throws parity::Error for an unknown format, listing the known ones.
void write_diff_report(const WeightDiff& diff, std::string_view format, std::ostream& out);

}  // namespace parity::analyzer
