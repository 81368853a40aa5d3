// Renders a DumpComparison (`parity compare`) as text, json, csv, md or
// junit. Every format starts with the first mismatch in forward order and in
// backward order, each with the check that failed; then the summary; then
// the pairs in A's execution order (text and md: the mismatching ones unless
// `all`; json, csv and junit: every pair) and the records with no counterpart.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/compare/dump_compare.hpp"

namespace parity::analyzer {

std::vector<std::string> compare_report_formats();  // text, json, csv, md, junit

// "first mismatch: forward: step 0 forward conv1 (output): allclose: ...;
// backward: step 0 backward fc (grad_output): nan positions differ: ..."
std::string first_mismatch_line(const DumpComparison& comparison);

// Throws parity::Error for an unknown format.
void write_compare_report(const DumpComparison& comparison, std::string_view format,
                          std::ostream& out, bool all = false);

}  // namespace parity::analyzer
