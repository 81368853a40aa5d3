#include "parity/analyzer/compare/compare_report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "parity/analyzer/compare/record_json.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

using importers::DumpRecord;
using nlohmann::ordered_json;
using Rows = std::vector<std::vector<std::string>>;

// Text and md list this many records with no counterpart, unless --all.
constexpr std::size_t kUnpairedListed = 20;

std::string mismatch_entry(const DumpComparison& c, const std::optional<std::size_t>& k) {
  return k ? c.describe(c.diffs[*k]) + ": " + c.diffs[*k].failure : "none";
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

// The compared pairs (every one, or the mismatching ones), for text and md.
Rows pair_rows(const DumpComparison& c, bool all) {
  Rows rows{{"index", "status", "record", "shape", "dtype", "max abs", "at", "mean abs", "max rel",
             "ulp", "cosine", "check"}};
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
    rows.push_back(std::move(row));
  }
  return rows;
}

// The records with no counterpart, for text and md; `more` counts those left out.
Rows unpaired_rows(const DumpComparison& c, bool all, std::size_t& more) {
  Rows rows{{"index", "status", "record", "shape", "dtype"}};
  more = 0;
  for (const RecordDiff& d : c.diffs) {
    if (paired(d)) continue;
    if (!all && rows.size() > kUnpairedListed) {
      ++more;
      continue;
    }
    rows.push_back({index_text(c, d), std::string(status_name(d.status)), c.describe(d),
                    shape_text(c, d), dtype_text(c, d)});
  }
  return rows;
}

// Columns padded to their widest cell; the last one is not padded.
void write_text_table(const Rows& rows, std::ostream& out) {
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t k = 0; k < row.size(); ++k) widths[k] = std::max(widths[k], row[k].size());
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t k = 0; k < row.size(); ++k)
      line += " " +
              (k + 1 < row.size() ? row[k] + std::string(widths[k] - row[k].size(), ' ') : row[k]);
    out << line << '\n';
  }
}

void write_markdown_table(const Rows& rows, std::ostream& out) {
  const auto cell = [](const std::string& text) {
    std::string escaped;
    for (const char ch : text) escaped += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return escaped;
  };
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out << '|';
    for (const std::string& text : rows[r]) out << ' ' << cell(text) << " |";
    out << '\n';
    if (r == 0) {
      out << '|';
      for (std::size_t k = 0; k < rows[r].size(); ++k) out << "---|";
      out << '\n';
    }
  }
}

std::string unpaired_note(std::size_t more) {
  return "... and " + std::to_string(more) + " more (--all lists every one)";
}

void write_text(const DumpComparison& c, std::ostream& out, bool all) {
  out << first_mismatch_line(c) << '\n'
      << "A: " << c.path_a << ' ' << side_text(c.manifest_a, c.records_a.size()) << '\n'
      << "B: " << c.path_b << ' ' << side_text(c.manifest_b, c.records_b.size()) << '\n'
      << "pairing: " << c.pairing << '\n'
      << "summary: " << summary_text(c) << '\n';
  if (c.has_phases())
    out << "first mismatch in update: " << mismatch_entry(c, c.first_update) << '\n';
  if (c.statistics_only() > 0)
    out << "note: " << c.statistics_only()
        << " pairs were compared by their statistics only (mean, std, l2, min, max, NaN and Inf "
           "counts): a side holds no values for them\n";
  const std::size_t unpaired = c.count(RecordStatus::kOnlyInA) + c.count(RecordStatus::kOnlyInB);
  if (unpaired > 0)
    out << "warning: " << unpaired
        << " records have no counterpart (listed below; warnings, not failures)\n";
  out << "read " << format_throughput(c.bytes_read, c.seconds) << '\n';
  const Rows pairs = pair_rows(c, all);
  if (pairs.size() > 1) {
    out << '\n' << (all ? "pairs" : "mismatching pairs") << ", in A's execution order:\n";
    write_text_table(pairs, out);
  }
  std::size_t more = 0;
  const Rows lonely = unpaired_rows(c, all, more);
  if (lonely.size() > 1) {
    out << "\nno counterpart:\n";
    write_text_table(lonely, out);
    if (more > 0) out << "  " << unpaired_note(more) << '\n';
  }
}

void write_markdown(const DumpComparison& c, std::ostream& out, bool all) {
  out << first_mismatch_line(c) << "\n\n"
      << "# parity compare\n\n"
      << "| | |\n|---|---|\n"
      << "| A | `" << c.path_a << "` " << side_text(c.manifest_a, c.records_a.size()) << " |\n"
      << "| B | `" << c.path_b << "` " << side_text(c.manifest_b, c.records_b.size()) << " |\n"
      << "| pairing | " << c.pairing << " |\n"
      << "| summary | " << summary_text(c) << " |\n";
  if (c.has_phases())
    out << "| first mismatch in update | " << mismatch_entry(c, c.first_update) << " |\n";
  const Rows pairs = pair_rows(c, all);
  if (pairs.size() > 1) {
    out << "\n## " << (all ? "Pairs" : "Mismatching pairs") << "\n\n";
    write_markdown_table(pairs, out);
  }
  std::size_t more = 0;
  const Rows lonely = unpaired_rows(c, all, more);
  if (lonely.size() > 1) {
    out << "\n## No counterpart (warnings, not failures)\n\n";
    write_markdown_table(lonely, out);
    if (more > 0) out << '\n' << unpaired_note(more) << '\n';
  }
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

ordered_json first_json(const DumpComparison& c, const std::optional<std::size_t>& k) {
  if (!k) return nullptr;
  const RecordDiff& d = c.diffs[*k];
  return {{"record", c.describe(d)},
          {"failure", d.failure},
          {"a", record_json(c.records_a[*d.a])},
          {"b", record_json(c.records_b[*d.b])}};
}

void write_json(const DumpComparison& c, std::ostream& out) {
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
    if (d.status == RecordStatus::kMismatch) item["failure"] = d.failure;
    records.push_back(std::move(item));
  }
  const ordered_json document{{"first_mismatch",
                               {{"forward", first_json(c, c.first_forward)},
                                {"backward", first_json(c, c.first_backward)},
                                {"update", first_json(c, c.first_update)}}},
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
                                {"bytes_read", c.bytes_read},
                                {"seconds", c.seconds}}},
                              {"records", records}};
  out << document.dump(2) << '\n';
}

void write_csv(const DumpComparison& c, std::ostream& out) {
  out << "# " << first_mismatch_line(c) << '\n'
      << "# " << c.path_a << " vs " << c.path_b << ": " << summary_text(c) << '\n'
      << "index_a,index_b,status,record,shape,dtype,compared,max_abs_diff,max_abs_index,mean_abs_"
         "diff,"
         "max_rel_diff,max_ulp_diff,cosine_similarity,nonfinite_mismatches,rtol,atol,failure\n";
  for (const RecordDiff& d : c.diffs) {
    out << (d.a ? std::to_string(c.records_a[*d.a].index) : "") << ','
        << (d.b ? std::to_string(c.records_b[*d.b].index) : "") << ',' << status_name(d.status)
        << ',' << csv_field(c.describe(d)) << ',' << csv_field(shape_text(c, d)) << ','
        << csv_field(dtype_text(c, d)) << ','
        << (d.metrics ? "values"
            : d.stats ? "statistics"
                      : "")
        << ',';
    if (d.metrics) {
      const TensorMetrics& m = *d.metrics;
      out << format_number(m.max_abs_diff) << ','
          << csv_field(
                 m.max_abs_index < 0 ? "" : element_index(m.max_abs_index, c.records_a[*d.a].shape))
          << ',' << format_number(m.mean_abs_diff) << ',' << format_number(m.max_rel_diff) << ','
          << (m.max_ulp_diff ? std::to_string(*m.max_ulp_diff) : "") << ','
          << format_precise(m.cosine_similarity) << ',' << m.nonfinite_mismatches;
    } else {
      out << ",,,,,,";
    }
    out << ','
        << (paired(d) ? format_number(d.tolerance.rtol) + ',' + format_number(d.tolerance.atol)
                      : ",")
        << ',' << csv_field(d.failure) << '\n';
  }
}

void write_junit_report(const DumpComparison& c, std::ostream& out) {
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
  write_junit(suite, out);
}

}  // namespace

std::vector<std::string> compare_report_formats() { return {"text", "json", "csv", "md", "junit"}; }

std::string first_mismatch_line(const DumpComparison& c) {
  return "first mismatch: forward: " + mismatch_entry(c, c.first_forward) + "; backward: " +
         (c.has_phases() ? mismatch_entry(c, c.first_backward) : "none (a side has no phases)");
}

void write_compare_report(const DumpComparison& comparison, std::string_view format,
                          std::ostream& out, bool all) {
  if (format == "text") return write_text(comparison, out, all);
  if (format == "json") return write_json(comparison, out);
  if (format == "csv") return write_csv(comparison, out);
  if (format == "md") return write_markdown(comparison, out, all);
  if (format == "junit") return write_junit_report(comparison, out);
  throw unknown_report_format(format, compare_report_formats());
}

}  // namespace parity::analyzer
