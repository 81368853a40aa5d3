// Trace diff: two runs side by side (`parity diff-trace A.db B.db`): the step
// breakdown, the step time by op category (which pairs runs of different
// frameworks, category_diff.hpp), and every op and kernel with its calls and
// time per step in each run. Per step, because two runs rarely record the
// same number of steps.
// B is the run under test; its regression checks are those of a baseline
// comparison with A as the baseline (baseline.hpp). Rendered in every format
// of a profile report: text, Markdown and HTML from one Document, JSON, and
// JUnit with one test case per regression check.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "parity/analyzer/profile/baseline.hpp"
#include "parity/analyzer/profile/category_diff.hpp"
#include "parity/analyzer/profile/op_category_map.hpp"
#include "parity/analyzer/profile/rank_profile.hpp"
#include "parity/analyzer/report/report.hpp"

namespace parity::analyzer {

struct DiffSide {
  double calls_per_step = 0, time_per_step_ns = 0, mean_ns = 0;
};

struct DiffRow {
  std::string name;
  std::optional<DiffSide> a, b;  // none: the run never ran it
  double delta_per_step_ns() const;
};

struct PartDiff {
  std::string part;  // "step", "data_wait", ...
  double a_mean_ns = 0, b_mean_ns = 0;
};

struct TraceDiff {
  std::string a_path, b_path;
  std::int64_t a_steps = 0, b_steps = 0;
  std::vector<PartDiff> parts;
  std::vector<DiffRow> ops, kernels;  // by |time per step difference|, largest first
  BaselineComparison regression;
  CategoryDiff categories;  // empty unless made by diff_trace_files
};

TraceDiff diff_traces(const RankProfile& a, const RankProfile& b, double max_regression_pct);

struct TraceDiffInputs {
  std::string a, b;  // trace paths: A the reference, B the run under test
  Thresholds thresholds;
  double max_regression_pct = Thresholds{}.max_regression_pct;
  OpCategoryMap categories = OpCategoryMap::builtin();
  std::function<void(double)> progress;  // fraction of the loading done
};
// Loads and analyzes both traces (two at once) and diffs them, op
// categories included. Throws parity::Error for a trace that cannot be read.
TraceDiff diff_trace_files(const TraceDiffInputs& inputs);

const std::vector<std::string>& trace_diff_formats();  // text, md, html, json, junit
// Every rendering: the side-by-side Document (the op and kernel tables
// `rows` long), the JSON and one JUnit test case per regression check.
Report trace_diff_report(const TraceDiff& diff, std::size_t rows);
// Throws parity::Error for a format that is not one of trace_diff_formats().
void write_trace_diff(const TraceDiff& diff, const std::string& format, std::ostream& out,
                      std::size_t rows);
nlohmann::json to_json(const TraceDiff& diff);

}  // namespace parity::analyzer
