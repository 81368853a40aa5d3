// A DumpComparison (`parity compare`) as a Report (report.hpp): text, md,
// html, json, junit and csv. Every format starts with the first mismatch in
// forward order and in backward order, each with the check that failed; then
// the summary; then the pairs in A's execution order (text, md and html: the
// mismatching ones unless `all`; json, junit and csv: every pair) and the
// records with no counterpart.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/compare/dump_compare.hpp"
#include "parity/analyzer/report/report.hpp"

namespace parity::analyzer {

const std::vector<std::string>& compare_report_formats();  // text, md, html, json, junit, csv

// "first mismatch: forward: step 0 forward conv1 (output): allclose: ...;
// backward: step 0 backward fc (grad_output): nan positions differ: ..."
std::string first_mismatch_line(const DumpComparison& comparison);

Report compare_report(const DumpComparison& comparison, bool all = false);
// Throws parity::Error for an unknown format.
void write_compare_report(const DumpComparison& comparison, std::string_view format,
                          std::ostream& out, bool all = false);

}  // namespace parity::analyzer
