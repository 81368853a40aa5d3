#include "parity/analyzer/compare/compare_report.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parity/analyzer/compare/record_json.hpp"
#include "parity/analyzer/element_index.hpp"
#include "parity/analyzer/report/report_formats.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

using importers::DumpRecord;
using nlohmann::ordered_json;

// The Document lists this many records with no counterpart, unless --all.
constexpr std::size_t kUnpairedListed = 20;

std::string mismatch_entry(const DumpComparison& c, const std::optional<std::size_t>& k) {
  return k ? c.describe(c.diffs[*k]) + ": " + c.diffs[*k].failure : "none";
}

// The first divergence of an order: its first structural divergence or its
// first mismatching pair, whichever A's execution reaches first.
std::string divergence_entry(const DumpComparison& c, const std::optional<std::size_t>& mismatch,
                             const std::optional<std::size_t>& structural) {
  return c.structure_first(mismatch, structural) ? "structure: " + c.structure[*structural].message
                                                 : mismatch_entry(c, mismatch);
}

const DumpRecord& shown_record(const DumpComparison& c, const RecordDiff& d) {
  return d.a ? c.records_a[*d.a] : c.records_b[*d.b];
}

bool paired(const RecordDiff& d) { return d.a && d.b; }

std::string shape_text(const DumpComparison& c, const RecordDiff& d) {
  std::string text = importers::shape_to_string(shown_record(c, d).shape);
  if (paired(d) && c.records_a[*d.a].shape != c.records_b[*d.b].shape)
    text += " vs " + importers::shape_to_string(c.records_b[*d.b].shape);
  return text;
}

std::string dtype_text(const DumpComparison& c, const RecordDiff& d) {
  std::string text(dtype_name(shown_record(c, d).dtype));
  if (paired(d) && c.records_a[*d.a].dtype != c.records_b[*d.b].dtype)
    text += " vs " + std::string(dtype_name(c.records_b[*d.b].dtype));
  return text;
}

// What was checked, or why a pair fails.
std::string check_text(const RecordDiff& d) {
  if (d.status == RecordStatus::kMismatch) return d.failure;
  if (d.status != RecordStatus::kMatch) return std::string(status_name(d.status));
  return d.stats ? "statistics only" : "values";
}

std::string index_text(const DumpComparison& c, const RecordDiff& d) {
  return d.a ? std::to_string(c.records_a[*d.a].index)
             : "B " + std::to_string(c.records_b[*d.b].index);
}

std::string summary_text(const DumpComparison& c) {
  return std::to_string(c.pairs()) + " pairs compared, " +
         std::to_string(c.count(RecordStatus::kMatch)) + " match, " +
         std::to_string(c.count(RecordStatus::kMismatch)) + " mismatch, " +
         std::to_string(c.count(RecordStatus::kOnlyInA)) + " only in A, " +
         std::to_string(c.count(RecordStatus::kOnlyInB)) + " only in B; " +
         std::to_string(c.statistics_only()) + " compared by statistics only";
}

// "(manifest, 212 records)"
std::string side_text(bool manifest, std::size_t records) {
  return std::string("(") + (manifest ? "manifest" : "plain .npy directory") + ", " +
         std::to_string(records) + " records)";
}

// The compared pairs (every one, or the mismatching ones), for the Document.
Table pairs_table(const DumpComparison& c, bool all) {
  Table table{{"index", "status", "record", "shape", "dtype", "max abs", "at", "mean abs",
               "max rel", "ulp", "cosine", "check"},
              {},
              {true, false, false, false, false, true, false, true, true, true, true, false}};
  for (const RecordDiff& d : c.diffs) {
    if (!paired(d) || (!all && d.status != RecordStatus::kMismatch)) continue;
    std::vector<std::string> row{index_text(c, d), std::string(status_name(d.status)),
                                 c.describe(d), shape_text(c, d), dtype_text(c, d)};
    if (d.metrics) {
      const TensorMetrics& m = *d.metrics;
      const auto& shape = c.records_a[*d.a].shape;
      row.insert(row.end(), {format_number(m.max_abs_diff),
                             m.max_abs_index < 0 ? "-" : element_index(m.max_abs_index, shape),
                             format_number(m.mean_abs_diff), format_number(m.max_rel_diff),
                             m.max_ulp_diff ? std::to_string(*m.max_ulp_diff) : "-",
                             format_precise(m.cosine_similarity)});
    } else {
      row.insert(row.end(), 6, "-");
    }
    row.push_back(check_text(d));
    table.rows.push_back(std::move(row));
  }
  return table;
}

// Every structural divergence, for the Document.
Table structure_table(const DumpComparison& c) {
  Table table{{"index", "kind", "divergence"}, {}, {true, false, false}};
  for (const StructuralDivergence& d : c.structure)
    table.rows.push_back({d.a ? std::to_string(c.records_a[*d.a].index)
                              : "B " + std::to_string(c.records_b[*d.b].index),
                          std::string(kind_name(d.kind)), d.message});
  return table;
}

// The records with no counterpart, for the Document; `more` counts those left out.
Table unpaired_table(const DumpComparison& c, bool all, std::size_t& more) {
  Table table{
      {"index", "status", "record", "shape", "dtype"}, {}, {true, false, false, false, false}};
  more = 0;
  for (const RecordDiff& d : c.diffs) {
    if (paired(d)) continue;
    if (!all && table.rows.size() >= kUnpairedListed) {
      ++more;
      continue;
    }
    table.rows.push_back({index_text(c, d), std::string(status_name(d.status)), c.describe(d),
                          shape_text(c, d), dtype_text(c, d)});
  }
  return table;
}

// "R: 412 pairs judged against it, A's error within 2x B's on average and
// 10x at most; 3 compared by tolerance (R holds no such record)".
std::string reference_summary(const DumpComparison& c) {
  const std::size_t judged = c.judged_by_reference();
  return c.path_reference + ": " + std::to_string(judged) +
         " pairs judged against it, A's error within " +
         format_number(c.reference_limits.mean_ratio) + "x B's on average and " +
         format_number(c.reference_limits.max_ratio) + "x at most; " +
         std::to_string(c.pairs() - judged) +
         " compared by tolerance (integer records, or records R does not hold)";
}

// "config: lr, momentum; versions: 4; environment: OMP_NUM_THREADS": the
// settings a port should match by name, the versions (expected to differ) by count.
std::string settings_summary(const DumpComparison& c) {
  std::map<std::string, std::vector<std::string>> by_section;
  for (const SettingDifference& d : c.settings) by_section[d.section].push_back(d.name);
  std::string text;
  for (const char* section : {"config", "versions", "environment"}) {
    const auto it = by_section.find(section);
    if (it == by_section.end()) continue;
    if (!text.empty()) text += "; ";
    text += std::string(section) + ": ";
    if (it->first == "versions") {
      text += std::to_string(it->second.size());
      continue;
    }
    for (std::size_t i = 0; i < it->second.size(); ++i) text += (i ? ", " : "") + it->second[i];
  }
  return text + " (listed at the end)";
}

// The settings that differ, for the Document.
Table settings_table(const DumpComparison& c) {
  Table table{{"section", "setting", "A", "B"}, {}, {false, false, false, false}};
  const auto shown = [](const std::optional<std::string>& value) {
    return value ? *value : std::string("(not recorded)");
  };
  for (const SettingDifference& d : c.settings)
    table.rows.push_back({d.section, d.name, shown(d.a), shown(d.b)});
  return table;
}

std::string unpaired_note(std::size_t more) {
  return "... and " + std::to_string(more) + " more (--all lists every one)";
}

// Titled by the first mismatch, so that the first line of the text says it.
Document compare_document(const DumpComparison& c, bool all) {
  Document doc;
  doc.heading(first_mismatch_line(c), 1);
  std::vector<std::vector<std::string>> fields{
      {"A", c.path_a + ' ' + side_text(c.manifest_a, c.records_a.size())},
      {"B", c.path_b + ' ' + side_text(c.manifest_b, c.records_b.size())},
      {"pairing", c.pairing},
      {"summary", summary_text(c)}};
  if (c.has_phases())
    fields.push_back({"structure", std::to_string(c.structure.size()) + " structural divergences"});
  if (!c.path_reference.empty())
    fields.push_back({"reference", reference_summary(c)});
  if (!c.settings.empty()) fields.push_back({"settings that differ", settings_summary(c)});
  fields.push_back({"read", format_throughput(c.bytes_read, c.seconds)});
  doc.fields(std::move(fields));
  if (c.statistics_only() > 0)
    doc.paragraph("note: " + std::to_string(c.statistics_only()) +
                  " pairs were compared by their statistics only (mean, std, l2, min, max, NaN "
                  "and Inf counts): a side holds no values for them");
  const std::size_t unpaired = c.count(RecordStatus::kOnlyInA) + c.count(RecordStatus::kOnlyInB);
  if (unpaired > 0)
    doc.paragraph("warning: " + std::to_string(unpaired) +
                  " records have no counterpart (listed below; " +
                  (c.structure.empty() ? std::string("warnings, not failures)")
                                       : std::string("one missing from a step and phase both "
                                                     "sides dumped is a structural divergence, "
                                                     "and fails)")));
  if (!c.structure.empty()) {
    doc.heading("Structural divergences, in A's execution order", 2, "structure");
    doc.table(structure_table(c));
  }
  Table pairs = pairs_table(c, all);
  if (!pairs.rows.empty()) {
    doc.heading(std::string(all ? "Pairs" : "Mismatching pairs") + ", in A's execution order", 2,
                "pairs");
    doc.table(std::move(pairs));
  }
  std::size_t more = 0;
  Table lonely = unpaired_table(c, all, more);
  if (!lonely.rows.empty()) {
    doc.heading(c.structure.empty() ? "No counterpart (warnings, not failures)" : "No counterpart",
                2, "unpaired");
    doc.table(std::move(lonely));
    if (more > 0) doc.paragraph(unpaired_note(more));
  }
  if (!c.settings.empty()) {
    doc.heading("Settings that differ (hyper-parameters, versions, environment)", 2, "settings");
    doc.table(settings_table(c));
  }
  return doc;
}

ordered_json optional_record(const std::vector<DumpRecord>& records,
                             const std::optional<std::size_t>& k) {
  return k ? record_json(records[*k]) : ordered_json();
}

ordered_json index_json(std::int64_t index, const std::vector<std::int64_t>& shape) {
  return index < 0 ? ordered_json() : ordered_json(multi_index(index, shape));
}

ordered_json metrics_json(const TensorMetrics& m, const std::vector<std::int64_t>& shape) {
  return {{"elements", m.elements},
          {"within_tolerance", m.within_tolerance},
          {"max_abs_diff", json_number(m.max_abs_diff)},
          {"max_abs_index", index_json(m.max_abs_index, shape)},
          {"mean_abs_diff", json_number(m.mean_abs_diff)},
          {"max_rel_diff", json_number(m.max_rel_diff)},
          {"max_rel_index", index_json(m.max_rel_index, shape)},
          {"max_ulp_diff", m.max_ulp_diff ? ordered_json(*m.max_ulp_diff) : ordered_json()},
          {"cosine_similarity", json_number(m.cosine_similarity)},
          {"nan_elements", m.nan_elements},
          {"nonfinite_mismatches", m.nonfinite_mismatches},
          {"first_nonfinite_mismatch", index_json(m.first_nonfinite_mismatch, shape)}};
}

ordered_json stats_json(const importers::TensorStats& s) {
  const auto optional = [](const std::optional<double>& v) {
    return v ? ordered_json(*v) : ordered_json();
  };
  return {{"min", optional(s.min)},
          {"max", optional(s.max)},
          {"mean", optional(s.mean)},
          {"std", optional(s.std)},
          {"l2", s.l2},
          {"nan", s.nan},
          {"inf", s.inf}};
}

ordered_json structural_json(const DumpComparison& c, const StructuralDivergence& d) {
  const auto optional_name = [](const std::optional<std::string>& name) {
    return name ? ordered_json(*name) : ordered_json();
  };
  return {{"kind", kind_name(d.kind)},
          {"message", d.message},
          {"a", optional_record(c.records_a, d.a)},
          {"b", optional_record(c.records_b, d.b)},
          {"after", optional_name(d.after)},
          {"before", optional_name(d.before)},
          {"order", d.order}};
}

// The first divergence of an order (divergence_entry), or null.
ordered_json first_json(const DumpComparison& c, const std::optional<std::size_t>& k,
                        const std::optional<std::size_t>& structural) {
  if (c.structure_first(k, structural)) {
    const StructuralDivergence& d = c.structure[*structural];
    return {{"kind", "structure"},
            {"record", d.message},
            {"failure", kind_name(d.kind)},
            {"a", optional_record(c.records_a, d.a)},
            {"b", optional_record(c.records_b, d.b)}};
  }
  if (!k) return nullptr;
  const RecordDiff& d = c.diffs[*k];
  return {{"kind", "value"},
          {"record", c.describe(d)},
          {"failure", d.failure},
          {"a", record_json(c.records_a[*d.a])},
          {"b", record_json(c.records_b[*d.b])}};
}

ordered_json compare_json(const DumpComparison& c) {
  ordered_json records = ordered_json::array();
  for (const RecordDiff& d : c.diffs) {
    ordered_json item{{"status", status_name(d.status)},
                      {"a", optional_record(c.records_a, d.a)},
                      {"b", optional_record(c.records_b, d.b)}};
    if (paired(d)) {
      item["paired_by"] = d.paired_by;
      item["compared"] = d.metrics ? "values" : d.stats ? "statistics" : "layout";
      item["rtol"] = d.tolerance.rtol;
      item["atol"] = d.tolerance.atol;
    }
    if (d.metrics) item["metrics"] = metrics_json(*d.metrics, c.records_a[*d.a].shape);
    if (d.stats)
      item["statistics"] = {{"a", stats_json(d.stats->a)}, {"b", stats_json(d.stats->b)}};
    if (d.reference)
      item["reference"] = {{"mean_error_a", d.reference->mean_a},
                           {"max_error_a", d.reference->max_a},
                           {"mean_error_b", d.reference->mean_b},
                           {"max_error_b", d.reference->max_b},
                           {"mean_ratio", d.reference->mean_ratio},
                           {"max_ratio", d.reference->max_ratio},
                           {"passed", d.reference->passed}};
    if (d.status == RecordStatus::kMismatch) item["failure"] = d.failure;
    records.push_back(std::move(item));
  }
  ordered_json structure = ordered_json::array();
  for (const StructuralDivergence& d : c.structure) structure.push_back(structural_json(c, d));
  ordered_json settings = ordered_json::array();
  for (const SettingDifference& d : c.settings)
    settings.push_back({{"section", d.section},
                        {"setting", d.name},
                        {"a", d.a ? ordered_json(*d.a) : ordered_json(nullptr)},
                        {"b", d.b ? ordered_json(*d.b) : ordered_json(nullptr)}});
  return {{"first_mismatch",
           {{"forward", first_json(c, c.first_forward, c.first_structural_forward)},
            {"backward", first_json(c, c.first_backward, c.first_structural_backward)},
            {"update", first_json(c, c.first_update, c.first_structural_update)}}},
          {"summary",
           {{"a", c.path_a},
            {"b", c.path_b},
            {"manifest_a", c.manifest_a},
            {"manifest_b", c.manifest_b},
            {"pairing", c.pairing},
            {"passed", c.passed()},
            {"pairs", c.pairs()},
            {"match", c.count(RecordStatus::kMatch)},
            {"mismatch", c.count(RecordStatus::kMismatch)},
            {"only_in_a", c.count(RecordStatus::kOnlyInA)},
            {"only_in_b", c.count(RecordStatus::kOnlyInB)},
            {"statistics_only", c.statistics_only()},
            {"reference", c.path_reference.empty() ? ordered_json(nullptr)
                                                   : ordered_json(c.path_reference)},
            {"judged_by_reference", c.judged_by_reference()},
            {"bytes_read", c.bytes_read},
            {"seconds", c.seconds}}},
          {"structure", structure},
          {"settings", settings},
          {"records", records}};
}

RecordTable compare_records(const DumpComparison& c) {
  RecordTable table;
  table.comments = {first_mismatch_line(c), c.path_a + " vs " + c.path_b + ": " + summary_text(c)};
  table.header = {"index_a",
                  "index_b",
                  "status",
                  "record",
                  "shape",
                  "dtype",
                  "compared",
                  "max_abs_diff",
                  "max_abs_index",
                  "mean_abs_diff",
                  "max_rel_diff",
                  "max_ulp_diff",
                  "cosine_similarity",
                  "nonfinite_mismatches",
                  "rtol",
                  "atol",
                  "failure"};
  for (const RecordDiff& d : c.diffs) {
    std::vector<std::string> row{d.a ? std::to_string(c.records_a[*d.a].index) : "",
                                 d.b ? std::to_string(c.records_b[*d.b].index) : "",
                                 std::string(status_name(d.status)),
                                 c.describe(d),
                                 shape_text(c, d),
                                 dtype_text(c, d),
                                 d.metrics ? "values"
                                 : d.stats ? "statistics"
                                           : ""};
    if (d.metrics) {
      const TensorMetrics& m = *d.metrics;
      row.insert(
          row.end(),
          {format_number(m.max_abs_diff),
           m.max_abs_index < 0 ? "" : element_index(m.max_abs_index, c.records_a[*d.a].shape),
           format_number(m.mean_abs_diff), format_number(m.max_rel_diff),
           m.max_ulp_diff ? std::to_string(*m.max_ulp_diff) : "",
           format_precise(m.cosine_similarity), std::to_string(m.nonfinite_mismatches)});
    } else {
      row.insert(row.end(), 7, "");
    }
    if (paired(d))
      row.insert(row.end(), {format_number(d.tolerance.rtol), format_number(d.tolerance.atol)});
    else
      row.insert(row.end(), 2, "");
    row.push_back(d.failure);
    table.rows.push_back(std::move(row));
  }
  return table;
}

JunitSuite compare_checks(const DumpComparison& c) {
  JunitSuite suite;
  suite.name = "parity compare";
  suite.seconds = c.seconds;
  suite.properties = {{"first_mismatch", first_mismatch_line(c)},
                      {"a", c.path_a},
                      {"b", c.path_b},
                      {"pairing", c.pairing}};
  for (const RecordDiff& d : c.diffs) {
    const DumpRecord& record = shown_record(c, d);
    JunitCase& test = suite.cases.emplace_back();
    test.classname =
        record.phase.empty() ? "dump" : "step" + std::to_string(record.step) + "." + record.phase;
    test.name = c.describe(d);
    if (d.status == RecordStatus::kMismatch) test.failure = d.failure;
    if (!paired(d)) test.skipped = std::string(status_name(d.status)) + ": no counterpart";
  }
  return suite;
}

}  // namespace

const std::vector<std::string>& compare_report_formats() {
  static const std::vector<std::string> formats = format_names(
      {ReportPart::kDocument, ReportPart::kData, ReportPart::kChecks, ReportPart::kRecords});
  return formats;
}

std::string first_mismatch_line(const DumpComparison& c) {
  std::string line = "first mismatch: forward: " +
                     divergence_entry(c, c.first_forward, c.first_structural_forward);
  if (!c.has_phases()) return line + "; backward: none (a side has no phases)";
  return line + "; backward: " + divergence_entry(c, c.first_backward, c.first_structural_backward) +
         "; update: " + divergence_entry(c, c.first_update, c.first_structural_update);
}

Report compare_report(const DumpComparison& comparison, bool all) {
  Report report;
  report.document = compare_document(comparison, all);
  report.data = compare_json(comparison);
  report.checks = compare_checks(comparison);
  report.records = compare_records(comparison);
  return report;
}

void write_compare_report(const DumpComparison& comparison, std::string_view format,
                          std::ostream& out, bool all) {
  render_report(compare_report(comparison, all), format, compare_report_formats(), out);
}

}  // namespace parity::analyzer
