#include "parity/analyzer/weights/diff_report.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "parity/analyzer/element_index.hpp"
#include "parity/analyzer/report/report_formats.hpp"
#include "parity/analyzer/report_format.hpp"
#include "parity/importers/named_tensor.hpp"

namespace parity::analyzer {
namespace {

constexpr DiffStatus kAllStatuses[] = {DiffStatus::kEqual,        DiffStatus::kClose,
                                       DiffStatus::kMismatch,     DiffStatus::kShapeMismatch,
                                       DiffStatus::kDtypeDiffers, DiffStatus::kOnlyInA,
                                       DiffStatus::kOnlyInB,      DiffStatus::kNoCounterpart};

// The share within tolerance as a percentage that reads 100 only when it is.
std::string percent_within(const TensorMetrics& m) {
  if (m.all_close()) return "100%";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g%%", std::min(100.0 * m.share_within_tolerance(), 99.9999));
  return text;
}

std::string dtype_text(const std::optional<DType>& dtype) {
  return dtype ? std::string(dtype_name(*dtype)) : "";
}

std::string shape_text(const ParameterDiff& p) {
  const auto& shape = p.name_a.empty() ? p.shape_b : p.shape_a;
  std::string text = importers::shape_to_string(shape);
  if (!p.name_a.empty() && !p.name_b.empty() && p.shape_a != p.shape_b)
    text += " vs " + importers::shape_to_string(p.shape_b);
  return text;
}

std::string dtypes_text(const ParameterDiff& p) {
  if (p.dtype_a && p.dtype_b && *p.dtype_a != *p.dtype_b)
    return dtype_text(p.dtype_a) + " vs " + dtype_text(p.dtype_b);
  return dtype_text(p.dtype_a ? p.dtype_a : p.dtype_b);
}

std::string summary_line(const WeightDiff& diff) {
  std::string text;
  for (const DiffStatus status : kAllStatuses) {
    if (!text.empty()) text += ", ";
    text += std::to_string(diff.count(status)) + " " + std::string(status_name(status));
  }
  return text;
}

constexpr std::string_view kNotCompared = "not compared (--strict pairs and compares it)";

std::size_t training_state_count(const WeightDiff& diff, bool in_a) {
  return static_cast<std::size_t>(std::count_if(diff.training_state.begin(),
                                                diff.training_state.end(),
                                                [in_a](const auto& t) { return t.in_a == in_a; }));
}

// "164 in A, 0 in B"
std::string training_state_counts(const WeightDiff& diff) {
  return std::to_string(training_state_count(diff, true)) + " in A, " +
         std::to_string(training_state_count(diff, false)) + " in B";
}

std::string_view kind_text(const TrainingStateEntry& t) {
  return importers::training_state_kind_name(t.state.kind);
}

std::size_t findings(const WeightDiff& diff) {
  std::size_t count = 0;
  for (const ParameterDiff& p : diff.parameters) count += status_agrees(p.status) ? 0 : 1;
  return count;
}

std::string verdict(const WeightDiff& diff) {
  return diff.all_agree() ? "AGREE" : "DIFFER (" + std::to_string(findings(diff)) + " findings)";
}

std::string where_text(const ParameterDiff& p, std::int64_t index) {
  return index < 0 ? "" : " at " + element_index(index, p.shape_a);
}

std::string name_or_dash(const std::string& name) { return name.empty() ? "-" : name; }

// "mismatch fc.weight <-> fc.weight  [2, 3] float32  max abs 0.5 at [0, 2], ..."
std::string finding_text(const ParameterDiff& p) {
  std::string text = std::string(status_name(p.status)) + " " + name_or_dash(p.name_a) + " <-> " +
                     name_or_dash(p.name_b) + "  " + shape_text(p) + " " + dtypes_text(p);
  if (p.metrics && !p.metrics->all_close())
    text +=
        "  max abs " + format_number(p.metrics->max_abs_diff) +
        where_text(p, p.metrics->max_abs_index) + ", max rel " +
        format_number(p.metrics->max_rel_diff) + ", cosine " +
        format_number(p.metrics->cosine_similarity) + ", " + percent_within(*p.metrics) +
        " within rtol " + format_number(p.tolerance.rtol) + " atol " +
        format_number(p.tolerance.atol) +
        (p.metrics->nan_elements ? ", " + std::to_string(p.metrics->nan_elements) + " NaN" : "");
  if (!p.rival_b.empty())
    text += "  ambiguous: '" + p.rival_b + "' scored almost as well (confidence " +
            format_number(p.confidence) + ")";
  if (!p.note.empty()) text += "  (" + p.note + ")";
  return text;
}

Table parameters_table(const WeightDiff& diff) {
  Table table{{"status", "A", "B", "shape", "dtype", "max abs", "max rel", "cosine", "within tol",
               "pairing", "note"},
              {},
              {false, false, false, false, false, true, true, true, true, true, false}};
  for (const ParameterDiff& p : diff.parameters) {
    std::vector<std::string> row{std::string(status_name(p.status)), p.name_a, p.name_b,
                                 shape_text(p), dtypes_text(p)};
    if (p.metrics)
      row.insert(row.end(),
                 {format_number(p.metrics->max_abs_diff), format_number(p.metrics->max_rel_diff),
                  format_number(p.metrics->cosine_similarity), percent_within(*p.metrics)});
    else
      row.insert(row.end(), 4, "");
    row.push_back(p.name_a.empty() || p.name_b.empty() ? "" : format_number(p.confidence));
    row.push_back(p.note);
    table.rows.push_back(std::move(row));
  }
  return table;
}

Document diff_document(const WeightDiff& diff) {
  Document doc;
  doc.heading("Weight diff: " + verdict(diff), 1);
  std::vector<std::vector<std::string>> fields{
      {"A", diff.path_a + " (" + diff.format_a + ")"},
      {"B", diff.path_b + " (" + diff.format_b + ")"},
      {"pairing", diff.pairing},
      {"summary",
       summary_line(diff) + "; " + std::to_string(diff.ambiguous_pairs()) + " ambiguous pairs"},
      {"read", format_throughput(diff.bytes_read, diff.seconds)}};
  if (!diff.training_state.empty())
    fields.push_back(
        {"training state", training_state_counts(diff) + ", " + std::string(kNotCompared)});
  doc.fields(std::move(fields));
  std::vector<std::string> findings;
  for (const ParameterDiff& p : diff.parameters)
    if (!status_agrees(p.status) || !p.rival_b.empty()) findings.push_back(finding_text(p));
  if (!findings.empty()) {
    doc.heading("Findings", 2, "findings");
    doc.bullets(std::move(findings));
  }
  doc.heading("Parameters", 2, "parameters");
  doc.table(parameters_table(diff));
  if (diff.training_state.empty()) return doc;
  doc.heading("Training state, " + std::string(kNotCompared), 2, "training-state");
  Table state{{"side", "name", "kind", "shape", "dtype", "what"}, {}, std::vector<bool>(6, false)};
  for (const TrainingStateEntry& t : diff.training_state)
    state.rows.push_back({t.in_a ? "A" : "B", t.name, std::string(kind_text(t)),
                          importers::shape_to_string(t.shape), std::string(dtype_name(t.dtype)),
                          t.state.description()});
  doc.table(std::move(state));
  return doc;
}

nlohmann::json metrics_json(const ParameterDiff& p) {
  const TensorMetrics& m = *p.metrics;
  return {
      {"elements", m.elements},
      {"equal_elements", m.equal_elements},
      {"within_tolerance", m.within_tolerance},
      {"share_within_tolerance", m.share_within_tolerance()},
      {"nan_elements", m.nan_elements},
      {"max_abs_diff", json_number(m.max_abs_diff)},
      {"max_abs_index", m.max_abs_index < 0 ? nlohmann::json() : nlohmann::json(m.max_abs_index)},
      {"max_rel_diff", json_number(m.max_rel_diff)},
      {"max_rel_index", m.max_rel_index < 0 ? nlohmann::json() : nlohmann::json(m.max_rel_index)},
      {"mean_abs_diff", json_number(m.mean_abs_diff)},
      {"cosine_similarity", json_number(m.cosine_similarity)}};
}

nlohmann::json diff_json(const WeightDiff& diff) {
  nlohmann::json counts = nlohmann::json::object();
  for (const DiffStatus status : kAllStatuses)
    counts[std::string(status_name(status))] = diff.count(status);
  nlohmann::json params = nlohmann::json::array();
  for (const ParameterDiff& p : diff.parameters) {
    nlohmann::json item = {
        {"status", status_name(p.status)},
        {"a", p.name_a.empty() ? nlohmann::json() : nlohmann::json(p.name_a)},
        {"b", p.name_b.empty() ? nlohmann::json() : nlohmann::json(p.name_b)},
        {"dtype_a", p.dtype_a ? nlohmann::json(dtype_text(p.dtype_a)) : nlohmann::json()},
        {"dtype_b", p.dtype_b ? nlohmann::json(dtype_text(p.dtype_b)) : nlohmann::json()},
        {"shape_a", p.name_a.empty() ? nlohmann::json() : nlohmann::json(p.shape_a)},
        {"shape_b", p.name_b.empty() ? nlohmann::json() : nlohmann::json(p.shape_b)}};
    if (!p.name_a.empty() && !p.name_b.empty()) {
      item["rtol"] = p.tolerance.rtol;
      item["atol"] = p.tolerance.atol;
      item["pairing_confidence"] = p.confidence;
      item["paired_by"] = p.paired_by;
      if (!p.rival_b.empty()) item["ambiguous_with"] = p.rival_b;
    }
    if (p.metrics) item["metrics"] = metrics_json(p);
    if (!p.note.empty()) item["note"] = p.note;
    params.push_back(std::move(item));
  }
  nlohmann::json training_state = nlohmann::json::array();
  for (const TrainingStateEntry& t : diff.training_state)
    training_state.push_back({{"side", t.in_a ? "A" : "B"},
                              {"name", t.name},
                              {"kind", kind_text(t)},
                              {"dtype", dtype_name(t.dtype)},
                              {"shape", t.shape},
                              {"note", t.state.description()}});
  return {{"summary",
           {{"a", diff.path_a},
            {"b", diff.path_b},
            {"format_a", diff.format_a},
            {"format_b", diff.format_b},
            {"pairing", diff.pairing},
            {"agree", diff.all_agree()},
            {"counts", counts},
            {"ambiguous_pairs", diff.ambiguous_pairs()},
            {"training_state",
             {{"a", training_state_count(diff, true)}, {"b", training_state_count(diff, false)}}},
            {"bytes_read", diff.bytes_read},
            {"seconds", diff.seconds}}},
          {"parameters", params},
          {"training_state", training_state}};
}

RecordTable diff_records(const WeightDiff& diff) {
  RecordTable table;
  table.comments = {csv_field(diff.path_a) + " vs " + csv_field(diff.path_b) + ": " +
                    verdict(diff) + "; " + summary_line(diff) + "; training state " +
                    training_state_counts(diff)};
  table.header = {"status",
                  "a",
                  "b",
                  "shape",
                  "dtype",
                  "max_abs_diff",
                  "max_abs_index",
                  "max_rel_diff",
                  "mean_abs_diff",
                  "cosine_similarity",
                  "share_within_tolerance",
                  "rtol",
                  "atol",
                  "pairing_confidence",
                  "note"};
  for (const ParameterDiff& p : diff.parameters) {
    std::vector<std::string> row{std::string(status_name(p.status)), p.name_a, p.name_b,
                                 shape_text(p), dtypes_text(p)};
    if (p.metrics)
      row.insert(
          row.end(),
          {format_number(p.metrics->max_abs_diff),
           p.metrics->max_abs_index < 0 ? "" : element_index(p.metrics->max_abs_index, p.shape_a),
           format_number(p.metrics->max_rel_diff), format_number(p.metrics->mean_abs_diff),
           format_number(p.metrics->cosine_similarity),
           format_precise(p.metrics->share_within_tolerance()), format_number(p.tolerance.rtol),
           format_number(p.tolerance.atol)});
    else
      row.insert(row.end(), 8, "");
    row.insert(row.end(), {format_number(p.confidence), p.note});
    table.rows.push_back(std::move(row));
  }
  // Training state: its kind as the status, the name on its side, no metrics.
  for (const TrainingStateEntry& t : diff.training_state) {
    std::vector<std::string> row{std::string(kind_text(t)), t.in_a ? t.name : "",
                                 t.in_a ? "" : t.name, importers::shape_to_string(t.shape),
                                 std::string(dtype_name(t.dtype))};
    row.insert(row.end(), 9, "");
    row.push_back(t.state.description());
    table.rows.push_back(std::move(row));
  }
  return table;
}

JunitSuite diff_checks(const WeightDiff& diff) {
  JunitSuite suite;
  suite.name = "parity diff";
  suite.seconds = diff.seconds;
  suite.properties = {{"a", diff.path_a}, {"b", diff.path_b}, {"pairing", diff.pairing}};
  for (const ParameterDiff& p : diff.parameters) {
    JunitCase& test = suite.cases.emplace_back();
    test.classname = "weights";
    test.name = p.name_a.empty() ? p.name_b : p.name_a;
    if (status_agrees(p.status)) continue;
    std::string message =
        std::string(status_name(p.status)) + ": " + (p.name_a.empty() ? "-" : p.name_a) + " <-> " +
        (p.name_b.empty() ? "-" : p.name_b) + " " + shape_text(p) + " " + dtypes_text(p);
    if (p.metrics)
      message += ", max abs " + format_number(p.metrics->max_abs_diff) +
                 where_text(p, p.metrics->max_abs_index) + ", " + percent_within(*p.metrics) +
                 " within tolerance";
    test.failure = std::move(message);
  }
  for (const TrainingStateEntry& t : diff.training_state) {
    JunitCase& test = suite.cases.emplace_back();
    test.classname = "training_state";
    test.name = t.name;
    test.skipped = std::string(kind_text(t)) + " in " + (t.in_a ? "A" : "B") + ", " +
                   std::string(kNotCompared) + ": " + t.state.description();
  }
  return suite;
}

}  // namespace

const std::vector<std::string>& diff_report_formats() {
  static const std::vector<std::string> formats = format_names(
      {ReportPart::kDocument, ReportPart::kData, ReportPart::kChecks, ReportPart::kRecords});
  return formats;
}

Report diff_report(const WeightDiff& diff) {
  Report report;
  report.document = diff_document(diff);
  report.data = diff_json(diff);
  report.checks = diff_checks(diff);
  report.records = diff_records(diff);
  return report;
}

void write_diff_report(const WeightDiff& diff, std::string_view format, std::ostream& out) {
  render_report(diff_report(diff), format, diff_report_formats(), out);
}

}  // namespace parity::analyzer
