// The Document of a tuning (`parity tune-allreduce`): the input, the link's
// cost, what was measured, every split's prediction, the answer in each
// framework's terms, the projection to more ranks and the notes.
#include <cstdio>

#include "parity/analyzer/profile/units.hpp"
#include "parity/analyzer/report/report_formats.hpp"
#include "parity/analyzer/tune/tune_report.hpp"

namespace parity::analyzer {
namespace {

std::string label(const SplitPrediction& prediction) {
  if (prediction.name == "current") return "current (" + prediction.split + ")";
  if (prediction.name == "none") return "no fusion (none)";
  if (prediction.name == "one") return "one bucket (one)";
  if (prediction.name == "ddp") return "DDP default (" + prediction.split + ")";
  if (prediction.name == "seeds") return "seeds (" + prediction.split + ")";
  if (prediction.name == "asked") return "asked (" + prediction.split + ")";
  if (prediction.name == "mg-wfbp") return "MG-WFBP greedy merge";
  return prediction.name;
}

std::string signed_duration(double ns) { return (ns > 0 ? "+" : "") + format_duration(ns); }

// "[85,160]" from "index:[85,160]".
std::string index_list(const std::string& text) { return text.substr(text.find(':') + 1); }

// printf-style formatting of one line.
template <class... Args>
std::string formatted(const char* format, Args... args) {
  char text[320];
  std::snprintf(text, sizeof text, format, args...);
  return text;
}

std::string mib_list(const std::vector<double>& sizes) {
  std::string text;
  for (const double size : sizes) text += formatted("%s%.3g", text.empty() ? "" : ", ", size);
  return text;
}

void input_section(const TuneResult& result, Document& doc) {
  const TuneInput& input = result.input;
  doc.heading("AllReduce tuning of " + std::to_string(input.paths.size()) + " trace" +
                  (input.paths.size() > 1 ? "s" : "") + " (world size " +
                  std::to_string(input.world_size) +
                  "): " + std::to_string(input.param_names.size()) + " parameters, " +
                  format_bytes(double(input.profile.total_bytes())) + " of gradients a step",
              1);
  doc.bullets(input.paths);
  std::string steps = std::to_string(input.steps.size()) + " used (" +
                      std::to_string(input.steps.front()) + ".." +
                      std::to_string(input.steps.back()) + ")";
  if (input.warm_up_step)
    steps += ", step " + std::to_string(*input.warm_up_step) + " left out as warm-up";
  doc.fields({{"steps", steps}});
}

void cost_table(const CostTable& table, const std::string& kind, Document& doc) {
  doc.paragraph(kind + ", " + std::to_string(table.entries().size()) +
                " message sizes (median of the shortest rank's time per collective):");
  Table rows{{"bytes", "size", "time", "samples"}, {}, {true, true, true, true}};
  for (const CostTable::Entry& entry : table.entries())
    rows.rows.push_back({std::to_string(std::int64_t(entry.bytes)), format_bytes(entry.bytes),
                         format_duration(entry.ns), std::to_string(entry.samples)});
  doc.table(std::move(rows));
  doc.paragraph("least-squares line " + format_duration(table.line().intercept_ns) +
                formatted(" + %.4g ns/B", table.line().slope_ns_per_byte));
}

void link_section(const CostModel& cost, std::int64_t ranks, Document& doc) {
  doc.heading("Link", 2, "link");
  const std::string params =
      "alpha " + format_duration(cost.params().alpha_ns) +
      formatted(", beta %.4g ns/B (%.3g GB/s)", cost.params().beta_ns_per_byte,
                1.0 / cost.params().beta_ns_per_byte);
  if (!cost.table()) {
    doc.paragraph("link: " + std::string(link_name(cost.link())) + " preset, " +
                  std::string(preset_description(cost.link())));
    doc.paragraph("ring model: " + params);
  } else {
    doc.paragraph("link: measured, AllReduce time per message size");
    cost_table(*cost.table(),
               "idle (nothing else running: the calibration sweep and buckets reduced after "
               "backward)",
               doc);
    if (cost.busy_table())
      cost_table(*cost.busy_table(), "busy (during backward, sharing the rank's cores)", doc);
    else
      doc.paragraph("busy: no two message sizes ran during backward; the idle costs stand in");
    doc.paragraph("idle line as a ring at " + std::to_string(cost.traced_ranks()) +
                  " ranks: " + params);
  }
  doc.paragraph("predicting for " + std::to_string(ranks) + " rank" + (ranks == 1 ? "" : "s") +
                " (ring model)");
}

std::string contention_text(const ContentionFit& fit) {
  if (fit.used() && fit.loss.has_knee())
    return formatted(
        "each byte reduced during backward costs backward %.3g ns (+- %.2g) in messages of up "
        "to %s and %.3g ns (+- %.2g) in larger ones (the knee fits best between the sizes %s "
        "and %s), fitted on %zu runs",
        fit.loss.ns_per_byte, fit.knee->below.standard_error,
        format_bytes(fit.loss.knee_bytes).c_str(), fit.loss.above_knee_ns_per_byte,
        fit.knee->above.standard_error, format_bytes(fit.knee->smaller_size).c_str(),
        format_bytes(fit.knee->larger_size).c_str(), fit.runs);
  if (fit.used())
    return formatted(
        "each byte reduced during backward costs backward %.3g ns (+- %.2g; %.1f ms per 100 "
        "MB), fitted on %zu runs",
        fit.loss.ns_per_byte, fit.uniform->standard_error, fit.loss.ns_per_byte * 100, fit.runs);
  if (fit.determined())
    return formatted("AllReduces slow backward down by at most 2%% (%.3g +- %.2g ns a byte)",
                     fit.uniform->ns_per_byte, fit.uniform->standard_error);
  return "how much AllReduces slow backward down is unknown (see the notes): not modelled";
}

void measured_section(const TuneResult& result, Document& doc) {
  const TuneInput& input = result.input;
  doc.heading("Measured", 2, "measured");
  std::string wait = input.allreduce_wait_ns
                         ? format_duration(*input.allreduce_wait_ns) + " (median allreduce_wait)"
                         : std::string("not traced");
  std::string line = "step " + format_duration(input.step_ns) +
                     ", waiting for AllReduce after backward " + wait +
                     "; predicted for the current split at " + std::to_string(input.world_size) +
                     " ranks " + format_duration(result.current_wait_at_traced_ns);
  if (const auto error = result.prediction_error_percent())
    line += formatted(" (error %+.1f%%)", *error);
  doc.paragraph(line);
  doc.paragraph("backward runs on " + format_duration(input.backward_tail_ns) +
                " after its last gradient; the step waits for the exposed communication less "
                "that");
  doc.paragraph(contention_text(result.contention));
}

void splits_section(const TuneResult& result, Document& doc) {
  doc.heading("Splits", 2, "splits");
  const double current = result.split("current").step_ns;
  Table table{{"split", "buckets", "exposed", "wait", "backward", "step", "vs current"}, {}, {}};
  for (const SplitPrediction& prediction : result.splits)
    table.rows.push_back(
        {label(prediction), std::to_string(prediction.schedule.buckets.size()),
         format_duration(prediction.schedule.exposed_ns), format_duration(prediction.wait_ns),
         format_duration(prediction.schedule.backward_ns), format_duration(prediction.step_ns),
         signed_duration(prediction.step_ns - current)});
  doc.table(std::move(table));
}

void answer_section(const TuneResult& result, Document& doc) {
  doc.heading("Answer", 2, "answer");
  doc.fields({{"MG-WFBP greedy merge", "--set allreduce_split=" + result.split("mg-wfbp").split}});
  const SplitPrediction& optimum = result.split("optimum");
  const std::vector<profiler::GradientBucket> buckets = optimum.buckets();
  doc.paragraph(std::string("optimum (") +
                (result.objective == SplitObjective::kStep ? "least modelled step time"
                                                           : "least exposed communication") +
                "): " + std::to_string(buckets.size()) + " bucket" +
                (buckets.size() == 1 ? "" : "s") + ", exposed " +
                format_duration(optimum.schedule.exposed_ns) + ", step " +
                format_duration(optimum.step_ns));
  doc.fields({{"parity-train", "--set allreduce_split=" + optimum.split},
              {"MindSpore, segment ends",
               "all_reduce_fusion_config=" + index_list(profiler::end_index_text(buckets)) +
                   "  (the seeds' reading)"},
              {"MindSpore, split points",
               "all_reduce_fusion_config=" + index_list(profiler::split_point_text(buckets))},
              {"DDP bucket sizes (MiB, last bucket first)", mib_list(optimum.bucket_mib())}});
}

void projection_section(const TuneResult& result, Document& doc) {
  if (result.projection.empty()) return;
  doc.heading("Projection", 2, "projection");
  doc.paragraph(
      "What communication adds to the step (the wait after backward and backward's slowdown) "
      "with DDP's default (" +
      std::string(kDdpDefaultSplit) +
      ") and with the optimum at each size, the same gradient-ready times.");
  Table table{{"ranks", "model", "DDP", "optimum", "gain", "buckets"},
              {},
              {true, false, true, true, true, true}};
  for (const ScalePoint& point : result.projection)
    table.rows.push_back(
        {std::to_string(point.ranks), std::string(algorithm_name(point.algorithm)),
         format_duration(point.ddp_added_ns), format_duration(point.optimum_added_ns),
         formatted("%.1f%%",
                   point.ddp_added_ns > 0 ? point.gain_ns() / point.ddp_added_ns * 100.0 : 0.0),
         std::to_string(point.optimum.size())});
  doc.table(std::move(table));
}

Document tune_document(const TuneResult& result) {
  Document doc;
  input_section(result, doc);
  link_section(result.cost, result.ranks, doc);
  measured_section(result, doc);
  splits_section(result, doc);
  answer_section(result, doc);
  projection_section(result, doc);
  if (!result.input.notes.empty()) {
    doc.heading("Notes", 2, "notes");
    doc.bullets(result.input.notes);
  }
  return doc;
}

}  // namespace

const std::vector<std::string>& tune_report_formats() {
  static const std::vector<std::string> formats =
      format_names({ReportPart::kDocument, ReportPart::kData});
  return formats;
}

Report tune_report(const TuneResult& result) {
  Report report;
  report.document = tune_document(result);
  report.data = tune_json(result);
  return report;
}

}  // namespace parity::analyzer
