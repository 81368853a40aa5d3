#include <cstdio>
#include <iomanip>

#include "parity/analyzer/profile/units.hpp"
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

std::string mib_list(const std::vector<double>& sizes) {
  std::string text;
  for (const double size : sizes) {
    char item[32];
    std::snprintf(item, sizeof item, "%s%.3g", text.empty() ? "" : ", ", size);
    text += item;
  }
  return text;
}

void write_input(const TuneResult& result, std::ostream& out) {
  const TuneInput& input = result.input;
  out << "AllReduce tuning of " << input.paths.size() << " trace"
      << (input.paths.size() > 1 ? "s" : "") << " (world size " << input.world_size
      << "): " << input.param_names.size() << " parameters, "
      << format_bytes(double(input.profile.total_bytes())) << " of gradients a step\n";
  for (const std::string& path : input.paths) out << "  " << path << '\n';
  out << "steps: " << input.steps.size() << " used (" << input.steps.front() << ".."
      << input.steps.back() << ")";
  if (input.warm_up_step) out << ", step " << *input.warm_up_step << " left out as warm-up";
  out << '\n';
}

void write_cost_table(const CostTable& table, const std::string& kind, std::ostream& out) {
  out << "  " << kind << ", " << table.entries().size() << " message sizes (median of the "
      << "shortest rank's time per collective):\n";
  out << "  " << std::right << std::setw(12) << "bytes" << std::setw(10) << "" << std::setw(10)
      << "time" << std::setw(9) << "samples\n";
  for (const CostTable::Entry& entry : table.entries())
    out << "  " << std::setw(12) << std::int64_t(entry.bytes) << std::setw(10)
        << format_bytes(entry.bytes) << std::setw(10) << format_duration(entry.ns) << std::setw(8)
        << entry.samples << '\n';
  out << std::left;
  char line[96];
  std::snprintf(line, sizeof line, "%s + %.4g ns/B",
                format_duration(table.line().intercept_ns).c_str(), table.line().slope_ns_per_byte);
  out << "  least-squares line " << line << '\n';
}

void write_link(const CostModel& cost, std::int64_t ranks, std::ostream& out) {
  char params[96];
  std::snprintf(params, sizeof params, "alpha %s, beta %.4g ns/B (%.3g GB/s)",
                format_duration(cost.params().alpha_ns).c_str(), cost.params().beta_ns_per_byte,
                1.0 / cost.params().beta_ns_per_byte);
  if (!cost.table()) {
    out << "link: " << link_name(cost.link()) << " preset, " << preset_description(cost.link())
        << "\n  ring model: " << params << '\n';
  } else {
    out << "link: measured, AllReduce time per message size\n";
    write_cost_table(*cost.table(),
                     "idle (nothing else running: the calibration sweep and "
                     "buckets reduced after backward)",
                     out);
    if (cost.busy_table())
      write_cost_table(*cost.busy_table(), "busy (during backward, sharing the rank's cores)", out);
    else
      out << "  busy: no two message sizes ran during backward; the idle costs stand in\n";
    out << "  idle line as a ring at " << cost.traced_ranks() << " ranks: " << params << '\n';
  }
  out << "predicting for " << ranks << " rank" << (ranks == 1 ? "" : "s") << " (ring model)\n";
}

void write_contention(const ContentionFit& fit, std::ostream& out) {
  char text[320];
  if (fit.used() && fit.loss.has_knee())
    std::snprintf(text, sizeof text,
                  "each byte reduced during backward costs backward %.3g ns (+- %.2g) in messages "
                  "of up to %s and %.3g ns (+- %.2g) in larger ones (the knee fits best between "
                  "the sizes %s and %s), fitted on %zu runs\n",
                  fit.loss.ns_per_byte, fit.knee->below.standard_error,
                  format_bytes(fit.loss.knee_bytes).c_str(), fit.loss.above_knee_ns_per_byte,
                  fit.knee->above.standard_error, format_bytes(fit.knee->smaller_size).c_str(),
                  format_bytes(fit.knee->larger_size).c_str(), fit.runs);
  else if (fit.used())
    std::snprintf(text, sizeof text,
                  "each byte reduced during backward costs backward %.3g ns (+- %.2g; %.1f ms "
                  "per 100 MB), fitted on %zu runs\n",
                  fit.loss.ns_per_byte, fit.uniform->standard_error, fit.loss.ns_per_byte * 100,
                  fit.runs);
  else if (fit.determined())
    std::snprintf(text, sizeof text,
                  "AllReduces slow backward down by at most 2%% (%.3g +- %.2g ns a byte)\n",
                  fit.uniform->ns_per_byte, fit.uniform->standard_error);
  else
    std::snprintf(text, sizeof text,
                  "how much AllReduces slow backward down is unknown (see the notes): not "
                  "modelled\n");
  out << text;
}

void write_measured(const TuneResult& result, std::ostream& out) {
  const TuneInput& input = result.input;
  out << "\nmeasured: step " << format_duration(input.step_ns)
      << ", waiting for AllReduce after backward ";
  if (input.allreduce_wait_ns)
    out << format_duration(*input.allreduce_wait_ns) << " (median allreduce_wait)";
  else
    out << "not traced";
  out << "; predicted for the current split at " << input.world_size << " ranks "
      << format_duration(result.current_wait_at_traced_ns);
  if (const auto error = result.prediction_error_percent()) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", *error);
    out << " (error " << text << ")";
  }
  out << "\nbackward runs on " << format_duration(input.backward_tail_ns)
      << " after its last gradient; the step waits for the exposed communication less that\n";
  write_contention(result.contention, out);
  out << '\n';
}

void write_splits(const TuneResult& result, std::ostream& out) {
  const double current = result.split("current").step_ns;
  out << std::left << std::setw(34) << "split" << std::right << std::setw(8) << "buckets"
      << std::setw(11) << "exposed" << std::setw(11) << "wait" << std::setw(11) << "backward"
      << std::setw(11) << "step" << std::setw(13) << "vs current" << '\n';
  for (const SplitPrediction& prediction : result.splits)
    out << std::left << std::setw(34) << label(prediction) << std::right << std::setw(8)
        << prediction.schedule.buckets.size() << std::setw(11)
        << format_duration(prediction.schedule.exposed_ns) << std::setw(11)
        << format_duration(prediction.wait_ns) << std::setw(11)
        << format_duration(prediction.schedule.backward_ns) << std::setw(11)
        << format_duration(prediction.step_ns) << std::setw(13)
        << signed_duration(prediction.step_ns - current) << '\n';
  out << std::left;
}

void write_answer(const TuneResult& result, std::ostream& out) {
  const SplitPrediction& greedy = result.split("mg-wfbp");
  out << "\nMG-WFBP greedy merge: --set allreduce_split=" << greedy.split << '\n';
  const SplitPrediction& optimum = result.split("optimum");
  const std::vector<GradientBucket> buckets = optimum.buckets();
  out << "optimum ("
      << (result.objective == SplitObjective::kStep ? "least modelled step time"
                                                    : "least exposed communication")
      << "): " << buckets.size() << " bucket" << (buckets.size() == 1 ? "" : "s") << ", exposed "
      << format_duration(optimum.schedule.exposed_ns) << ", step "
      << format_duration(optimum.step_ns) << '\n'
      << "  parity-train            --set allreduce_split=" << optimum.split << '\n'
      << "  MindSpore, segment ends all_reduce_fusion_config="
      << index_list(end_index_text(buckets)) << "  (the seeds' reading)\n"
      << "  MindSpore, split points all_reduce_fusion_config="
      << index_list(split_point_text(buckets)) << '\n'
      << "  DDP bucket sizes (MiB, last bucket first): " << mib_list(optimum.bucket_mib()) << '\n';
}

void write_projection(const TuneResult& result, std::ostream& out) {
  if (result.projection.empty()) return;
  out << "\nprojection: what communication adds to the step (the wait after backward and "
         "backward's slowdown) with DDP's default ("
      << kDdpDefaultSplit << ") and with the optimum at each size, the same gradient-ready times\n"
      << std::right << std::setw(6) << "ranks" << std::setw(7) << "model" << std::setw(12) << "DDP"
      << std::setw(12) << "optimum" << std::setw(12) << "gain" << std::setw(9) << "buckets\n";
  for (const ScalePoint& point : result.projection) {
    char gain[32];
    std::snprintf(gain, sizeof gain, "%.1f%%",
                  point.ddp_added_ns > 0 ? point.gain_ns() / point.ddp_added_ns * 100.0 : 0.0);
    out << std::setw(6) << point.ranks << std::setw(7) << algorithm_name(point.algorithm)
        << std::setw(12) << format_duration(point.ddp_added_ns) << std::setw(12)
        << format_duration(point.optimum_added_ns) << std::setw(12) << gain << std::setw(8)
        << point.optimum.size() << '\n';
  }
  out << std::left;
}

}  // namespace

void write_tune_text(const TuneResult& result, std::ostream& out) {
  write_input(result, out);
  write_link(result.cost, result.ranks, out);
  write_measured(result, out);
  write_splits(result, out);
  write_answer(result, out);
  write_projection(result, out);
  if (!result.input.notes.empty()) out << "\nnotes:\n";
  for (const std::string& note : result.input.notes) out << "  - " << note << '\n';
}

}  // namespace parity::analyzer
