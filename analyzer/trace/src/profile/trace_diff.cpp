#include "parity/analyzer/profile/trace_diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/profile/report_document.hpp"
#include "parity/analyzer/profile/units.hpp"
#include "parity/analyzer/report/document.hpp"
#include "parity/analyzer/report/report_formats.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

// Ops and kernels count in the steady-state steps (op_analysis.hpp).
double steps_of(const RankProfile& profile) {
  return static_cast<double>(std::max<std::size_t>(1, profile.steps.steady_count()));
}

DiffSide side(const Distribution& time, double steps) {
  return {static_cast<double>(time.count) / steps, time.total_ns / steps, time.mean_ns};
}

template <typename Stat>
std::vector<DiffRow> diff_rows(const std::vector<Stat>& a, double a_steps,
                               const std::vector<Stat>& b, double b_steps) {
  std::map<std::string, DiffRow> rows;
  for (const Stat& stat : a) rows[stat.name].a = side(stat.time, a_steps);
  for (const Stat& stat : b) rows[stat.name].b = side(stat.time, b_steps);
  std::vector<DiffRow> sorted;
  for (auto& [name, row] : rows) {
    row.name = name;
    sorted.push_back(std::move(row));
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const DiffRow& x, const DiffRow& y) {
    return std::fabs(x.delta_per_step_ns()) > std::fabs(y.delta_per_step_ns());
  });
  return sorted;
}

std::string signed_duration(double ns) { return (ns > 0 ? "+" : "") + format_duration(ns); }

std::string change(double a, double b) {
  if (a <= 0) return b > 0 ? "new" : "";
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", (b - a) / a * 100);
  return text;
}

Table rows_table(const std::vector<DiffRow>& rows, std::size_t limit, const std::string& what) {
  Table table{
      {what, "calls/step A", "calls/step B", "time/step A", "time/step B", "difference", "change"},
      {},
      {}};
  table.names = {true};
  for (std::size_t i = 0; i < std::min(limit, rows.size()); ++i) {
    const DiffRow& row = rows[i];
    const auto calls = [](const std::optional<DiffSide>& s) {
      return s ? format_number(s->calls_per_step) : "-";
    };
    const auto time = [](const std::optional<DiffSide>& s) {
      return s ? format_duration(s->time_per_step_ns) : "-";
    };
    table.rows.push_back({row.name, calls(row.a), calls(row.b), time(row.a), time(row.b),
                          signed_duration(row.delta_per_step_ns()),
                          row.a && row.b ? change(row.a->time_per_step_ns, row.b->time_per_step_ns)
                                         : (row.a ? "gone" : "new")});
  }
  return table;
}

// What failed, worst first, with values and the limit; what passed only when
// everything did.
std::string headline(const TraceDiff& diff) {
  const BaselineComparison& regression = diff.regression;
  const std::string allowed = "+" + format_number(regression.max_regression_pct) + "%";
  if (regression.regressed()) {
    const auto failed = std::count_if(regression.checks.begin(), regression.checks.end(),
                                      [](const RegressionCheck& c) { return c.regressed; });
    return "REGRESSED (" + std::to_string(failed) + " of " +
           std::to_string(regression.checks.size()) + " checks; each may grow by " + allowed +
           " of A's median step): " + failed_checks_text(regression);
  }
  char step[32];
  std::snprintf(step, sizeof step, "%+.2f%%", regression.checks.front().change_pct);
  return "OK: all " + std::to_string(regression.checks.size()) + " checks within " + allowed +
         " of A's median step; B's median step is " + step + " of A's";
}

Document diff_document(const TraceDiff& diff, std::size_t limit) {
  Document doc;
  doc.heading("Parity trace diff", 1);
  doc.paragraph("A: " + diff.a_path + " (" + std::to_string(diff.a_steps) + " steps)");
  doc.paragraph("B: " + diff.b_path + " (" + std::to_string(diff.b_steps) + " steps)");
  doc.verdict(headline(diff), !diff.regression.regressed());
  doc.heading("Step breakdown (steady-state mean)", 2, "steps");
  Table parts{{"part", "A", "B", "difference", "change"}, {}, {}};
  for (const PartDiff& part : diff.parts)
    parts.rows.push_back(
        {part.part, format_duration(part.a_mean_ns), format_duration(part.b_mean_ns),
         signed_duration(part.b_mean_ns - part.a_mean_ns), change(part.a_mean_ns, part.b_mean_ns)});
  doc.table(std::move(parts));
  add_category_sections(doc, diff.categories);
  if (!diff.ops.empty()) {
    doc.heading("Operators (largest differences first)", 2, "ops");
    doc.table(rows_table(diff.ops, limit, "op"));
  }
  if (!diff.kernels.empty()) {
    doc.heading("GPU kernels (largest differences first)", 2, "kernels");
    doc.table(rows_table(diff.kernels, limit, "kernel"));
  }
  doc.heading("Regression checks (change in percent of A's median step)", 2, "checks");
  doc.table(checks_table(diff.regression, "A", "B"));
  return doc;
}

nlohmann::json side_json(const std::optional<DiffSide>& s) {
  if (!s) return nullptr;
  return {{"calls_per_step", s->calls_per_step},
          {"time_per_step_ns", s->time_per_step_ns},
          {"mean_ns", s->mean_ns}};
}

nlohmann::json rows_json(const std::vector<DiffRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const DiffRow& row : rows)
    list.push_back({{"name", row.name},
                    {"a", side_json(row.a)},
                    {"b", side_json(row.b)},
                    {"delta_per_step_ns", row.delta_per_step_ns()}});
  return list;
}

// JUnit: one test case per regression check.
JunitSuite checks_suite(const TraceDiff& diff) {
  JunitSuite suite;
  suite.name = "parity diff-trace";
  suite.properties = {{"a", diff.a_path},
                      {"b", diff.b_path},
                      {"max_regression_pct", format_number(diff.regression.max_regression_pct)}};
  suite.cases = junit_cases(diff.regression, "parity.diff_trace", "A");
  return suite;
}

}  // namespace

double DiffRow::delta_per_step_ns() const {
  return (b ? b->time_per_step_ns : 0) - (a ? a->time_per_step_ns : 0);
}

TraceDiff diff_traces(const RankProfile& a, const RankProfile& b, double max_regression_pct) {
  TraceDiff diff;
  diff.a_path = a.path;
  diff.b_path = b.path;
  diff.a_steps = static_cast<std::int64_t>(a.steps.steps.size());
  diff.b_steps = static_cast<std::int64_t>(b.steps.steps.size());
  diff.parts.push_back({"step", a.steps.step_time.mean_ns, b.steps.step_time.mean_ns});
  for (const StepPart part : kAllStepParts)
    diff.parts.push_back({std::string(step_part_name(part)), a.steps.part(part).mean_ns,
                          b.steps.part(part).mean_ns});
  diff.ops = diff_rows(a.ops.ops, steps_of(a), b.ops.ops, steps_of(b));
  diff.kernels = diff_rows(a.ops.kernels, steps_of(a), b.ops.kernels, steps_of(b));
  diff.regression = compare_to_baseline({b}, {a}, max_regression_pct);
  return diff;
}

TraceDiff diff_trace_files(const TraceDiffInputs& inputs) {
  std::vector<CategoryProfile> categories(2);
  const auto profiles =
      analyze_traces({inputs.a, inputs.b}, inputs.thresholds, inputs.progress,
                     [&](std::size_t i, const TraceData& trace, const RankProfile& profile) {
                       categories[i] = analyze_categories(trace, profile.steps, inputs.categories);
                     });
  // analyze_traces orders by rank; keep A and B as given.
  const bool swapped = profiles[0].path != inputs.a;
  TraceDiff diff =
      diff_traces(profiles[swapped ? 1 : 0], profiles[swapped ? 0 : 1], inputs.max_regression_pct);
  diff.categories = diff_categories(categories[0], categories[1]);
  return diff;
}

nlohmann::json to_json(const TraceDiff& diff) {
  nlohmann::json parts = nlohmann::json::array();
  for (const PartDiff& part : diff.parts)
    parts.push_back(
        {{"part", part.part}, {"a_mean_ns", part.a_mean_ns}, {"b_mean_ns", part.b_mean_ns}});
  return {{"diff_version", 1},
          {"a", {{"path", diff.a_path}, {"steps", diff.a_steps}}},
          {"b", {{"path", diff.b_path}, {"steps", diff.b_steps}}},
          {"parts", parts},
          {"categories", to_json(diff.categories)},
          {"ops", rows_json(diff.ops)},
          {"kernels", rows_json(diff.kernels)},
          {"regression", to_json(diff.regression)}};
}

const std::vector<std::string>& trace_diff_formats() { return profile_report_formats(); }

Report trace_diff_report(const TraceDiff& diff, std::size_t rows) {
  Report report;
  report.document = diff_document(diff, rows);
  report.data = to_json(diff);
  report.checks = checks_suite(diff);
  return report;
}

void write_trace_diff(const TraceDiff& diff, const std::string& format, std::ostream& out,
                      std::size_t rows) {
  render_report(trace_diff_report(diff, rows), format, trace_diff_formats(), out);
}

}  // namespace parity::analyzer
