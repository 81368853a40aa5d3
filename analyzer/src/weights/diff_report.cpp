#include "parity/analyzer/weights/diff_report.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>

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

void write_text(const WeightDiff& diff, std::ostream& out) {
  out << "A: " << diff.path_a << " (" << diff.format_a << ")\n"
      << "B: " << diff.path_b << " (" << diff.format_b << ")\n"
      << "pairing: " << diff.pairing << "\n"
      << "verdict: " << verdict(diff) << "\n"
      << "summary: " << summary_line(diff) << "; " << diff.ambiguous_pairs() << " ambiguous pairs\n"
      << "read " << format_throughput(diff.bytes_read, diff.seconds) << "\n";
  if (!diff.training_state.empty())
    out << "training state: " << training_state_counts(diff) << ", " << kNotCompared << "\n";
  bool header = false;
  for (const ParameterDiff& p : diff.parameters) {
    if (status_agrees(p.status) && p.rival_b.empty()) continue;
    if (!header) out << "\nfindings:\n";
    header = true;
    out << "  " << std::left << std::setw(15) << status_name(p.status) << " "
        << (p.name_a.empty() ? "-" : p.name_a) << " <-> " << (p.name_b.empty() ? "-" : p.name_b)
        << "  " << shape_text(p) << " " << dtypes_text(p);
    if (p.metrics && !p.metrics->all_close())
      out << "  max abs " << format_number(p.metrics->max_abs_diff)
          << where_text(p, p.metrics->max_abs_index) << ", max rel "
          << format_number(p.metrics->max_rel_diff) << ", cosine "
          << format_number(p.metrics->cosine_similarity) << ", " << percent_within(*p.metrics)
          << " within rtol " << format_number(p.tolerance.rtol) << " atol "
          << format_number(p.tolerance.atol)
          << (p.metrics->nan_elements ? ", " + std::to_string(p.metrics->nan_elements) + " NaN"
                                      : "");
    if (!p.rival_b.empty())
      out << "  ambiguous: '" << p.rival_b << "' scored almost as well (confidence "
          << format_number(p.confidence) << ")";
    if (!p.note.empty()) out << "  (" << p.note << ")";
    out << '\n';
  }
  out << "\nparameters:\n";
  for (const ParameterDiff& p : diff.parameters) {
    out << "  " << std::left << std::setw(15) << status_name(p.status) << " "
        << (p.name_a.empty() ? "-" : p.name_a);
    if (p.name_b != p.name_a) out << " <-> " << (p.name_b.empty() ? "-" : p.name_b);
    out << "  " << shape_text(p) << " " << dtypes_text(p);
    if (p.metrics)
      out << "  max abs " << format_number(p.metrics->max_abs_diff) << "  cosine "
          << format_number(p.metrics->cosine_similarity);
    if (p.confidence < 1) out << "  pairing confidence " << format_number(p.confidence);
    out << '\n';
  }
  if (diff.training_state.empty()) return;
  out << "\ntraining state (" << kNotCompared << "):\n";
  for (const TrainingStateEntry& t : diff.training_state)
    out << "  " << (t.in_a ? "A " : "B ") << std::left << std::setw(16) << kind_text(t) << t.name
        << "  " << importers::shape_to_string(t.shape) << " " << dtype_name(t.dtype) << "  ("
        << t.state.description() << ")\n";
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

void write_json(const WeightDiff& diff, std::ostream& out) {
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
  const nlohmann::json document = {
      {"summary",
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
  out << document.dump(2) << '\n';
}

void write_csv(const WeightDiff& diff, std::ostream& out) {
  out << "# " << csv_field(diff.path_a) << " vs " << csv_field(diff.path_b) << ": " << verdict(diff)
      << "; " << summary_line(diff) << "; training state " << training_state_counts(diff) << "\n";
  out << "status,a,b,shape,dtype,max_abs_diff,max_abs_index,max_rel_diff,mean_abs_diff,"
         "cosine_similarity,share_within_tolerance,rtol,atol,pairing_confidence,note\n";
  for (const ParameterDiff& p : diff.parameters) {
    out << status_name(p.status) << ',' << csv_field(p.name_a) << ',' << csv_field(p.name_b) << ','
        << csv_field(shape_text(p)) << ',' << csv_field(dtypes_text(p)) << ',';
    if (p.metrics)
      out << format_number(p.metrics->max_abs_diff) << ','
          << csv_field(p.metrics->max_abs_index < 0
                           ? ""
                           : element_index(p.metrics->max_abs_index, p.shape_a))
          << ',' << format_number(p.metrics->max_rel_diff) << ','
          << format_number(p.metrics->mean_abs_diff) << ','
          << format_number(p.metrics->cosine_similarity) << ','
          << format_precise(p.metrics->share_within_tolerance());
    else
      out << ",,,,,";
    out << ','
        << (p.metrics ? format_number(p.tolerance.rtol) + ',' + format_number(p.tolerance.atol)
                      : ",")
        << ',' << format_number(p.confidence) << ',' << csv_field(p.note) << '\n';
  }
  // Training state: its kind as the status, the name on its side, no metrics.
  for (const TrainingStateEntry& t : diff.training_state)
    out << kind_text(t) << ',' << csv_field(t.in_a ? t.name : "") << ','
        << csv_field(t.in_a ? "" : t.name) << ',' << csv_field(importers::shape_to_string(t.shape))
        << ',' << dtype_name(t.dtype) << ",,,,,,,,,," << csv_field(t.state.description()) << '\n';
}

void write_markdown(const WeightDiff& diff, std::ostream& out) {
  out << "# Weight diff: " << verdict(diff) << "\n\n"
      << "| | |\n|---|---|\n"
      << "| A | `" << diff.path_a << "` (" << diff.format_a << ") |\n"
      << "| B | `" << diff.path_b << "` (" << diff.format_b << ") |\n"
      << "| pairing | " << diff.pairing << " |\n";
  for (const DiffStatus status : kAllStatuses)
    out << "| " << status_name(status) << " | " << diff.count(status) << " |\n";
  out << "| ambiguous pairs | " << diff.ambiguous_pairs() << " |\n"
      << "| training state | " << training_state_counts(diff) << " |\n\n"
      << "| status | A | B | shape | dtype | max abs | max rel | cosine | within tol |\n"
      << "|---|---|---|---|---|---|---|---|---|\n";
  for (const ParameterDiff& p : diff.parameters) {
    out << "| " << status_name(p.status) << " | `" << p.name_a << "` | `" << p.name_b << "` | "
        << shape_text(p) << " | " << dtypes_text(p) << " | ";
    if (p.metrics)
      out << format_number(p.metrics->max_abs_diff) << " | "
          << format_number(p.metrics->max_rel_diff) << " | "
          << format_number(p.metrics->cosine_similarity) << " | " << percent_within(*p.metrics)
          << " |\n";
    else
      out << " | | | " << p.note << " |\n";
  }
  if (diff.training_state.empty()) return;
  out << "\n## Training state, " << kNotCompared << "\n\n"
      << "| side | name | kind | shape | dtype | what |\n|---|---|---|---|---|---|\n";
  for (const TrainingStateEntry& t : diff.training_state)
    out << "| " << (t.in_a ? "A" : "B") << " | `" << t.name << "` | " << kind_text(t) << " | "
        << importers::shape_to_string(t.shape) << " | " << dtype_name(t.dtype) << " | "
        << t.state.description() << " |\n";
}

void write_junit(const WeightDiff& diff, std::ostream& out) {
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
  write_junit(suite, out);
}

}  // namespace

std::vector<std::string> diff_report_formats() { return {"text", "json", "csv", "md", "junit"}; }

void write_diff_report(const WeightDiff& diff, std::string_view format, std::ostream& out) {
  if (format == "text") return write_text(diff, out);
  if (format == "json") return write_json(diff, out);
  if (format == "csv") return write_csv(diff, out);
  if (format == "md") return write_markdown(diff, out);
  if (format == "junit") return write_junit(diff, out);
  throw unknown_report_format(format, diff_report_formats());
}

}  // namespace parity::analyzer
