#include "parity/analyzer/profile/report_document.hpp"

#include <algorithm>

#include "parity/analyzer/profile/units.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

std::string duration(double ns) { return format_duration(ns); }
std::string count(std::int64_t n) { return std::to_string(n); }

std::string verdict_line(const ProfileReport& report) {
  int errors = 0, warnings = 0, infos = 0;
  for (const Finding& f : report.findings)
    (f.severity == Severity::kError     ? errors
     : f.severity == Severity::kWarning ? warnings
                                        : infos)++;
  std::string line = report.failed() ? "FAIL" : "PASS";
  line += ": " + count(errors) + " errors, " + count(warnings) + " warnings, " + count(infos) +
          " notes (failing on " + std::string(severity_name(report.fail_on)) + ")";
  if (report.baseline)
    line += report.baseline->regressed()
                ? "; slower than the baseline (allowed +" +
                      format_number(report.baseline->max_regression_pct) +
                      "% of its median step): " + failed_checks_text(*report.baseline)
                : "; no regression against the baseline";
  return line;
}

void findings_section(const ProfileReport& report, Document& doc) {
  doc.heading("Findings", 2, "findings");
  if (report.findings.empty()) {
    doc.paragraph("No rule found anything to report.");
    return;
  }
  for (const Finding& f : report.findings) {
    std::string head = "[" + std::string(severity_name(f.severity)) + "] " + f.rule;
    if (f.rank) head += " (rank " + count(*f.rank) + ")";
    doc.paragraph(head + ": " + f.title);
    std::vector<std::string> items = f.evidence;
    items.push_back("next: " + f.next_step);
    doc.bullets(std::move(items));
  }
}

void steps_section(const RankProfile& rank, Document& doc) {
  const StepAnalysis& steps = rank.steps;
  doc.heading("Steps", 2, "steps");
  doc.paragraph(count(static_cast<std::int64_t>(steps.steps.size())) +
                " steps; steady state: " + count(steps.step_time.count) + " steps after " +
                count(static_cast<std::int64_t>(steps.warmup_steps)) +
                " warm-up; iteration gap mean " + duration(steps.gap.mean_ns));
  Table table{{"part", "mean", "median", "p95", "cv", "share"}, {}, {}};
  const auto row = [&](const std::string& name, const Distribution& d, double share) {
    table.rows.push_back({name, duration(d.mean_ns), duration(d.median_ns), duration(d.p95_ns),
                          format_percent(d.cv), format_percent(share)});
  };
  row("step", steps.step_time, 1);
  for (const StepPart part : kAllStepParts)
    row(std::string(step_part_name(part)), steps.part(part), steps.share(part));
  doc.table(std::move(table));
  if (steps.warmup_steps > 0) {
    const StepBreakdown& first = steps.steps.front();
    std::string parts;
    for (const StepPart part : kAllStepParts)
      if (first.part(part) > 0)
        parts += (parts.empty() ? "" : ", ") + std::string(step_part_name(part)) + " " +
                 duration(static_cast<double>(first.part(part)));
    doc.paragraph("first step (" + count(first.step) +
                  "): " + duration(static_cast<double>(first.dur_ns)) +
                  (parts.empty() ? "" : " = " + parts));
  }
}

// Ops, or layers (with_phase: the phase they ran in), each with its self time after the total.
Table op_table(const std::vector<OpStat>& stats, bool with_phase) {
  Table table;
  table.header = {"name"};
  if (with_phase) table.header.push_back("phase");
  table.header.push_back("calls");
  table.header.push_back("total");
  table.header.push_back("self");
  for (const char* column : {"mean", "p50", "p95", "of step"}) table.header.push_back(column);
  table.numeric.assign(table.header.size(), true);
  table.numeric[0] = false;
  if (with_phase) table.numeric[1] = false;
  table.names = {true};
  for (std::size_t i = 0; i < std::min(kTopRows, stats.size()); ++i) {
    const OpStat& s = stats[i];
    std::vector<std::string> row{s.name};
    if (with_phase) row.push_back(s.phase);
    row.push_back(count(s.time.count));
    row.push_back(duration(s.time.total_ns));
    row.push_back(duration(s.self_ns));
    for (std::string cell : {duration(s.time.mean_ns), duration(s.time.median_ns),
                             duration(s.time.p95_ns), format_percent(s.step_share)})
      row.push_back(std::move(cell));
    table.rows.push_back(std::move(row));
  }
  return table;
}

void ops_section(const RankProfile& rank, Document& doc) {
  const OpAnalysis& ops = rank.ops;
  if (!ops.ops.empty()) {
    doc.heading("Operators", 2, "ops");
    doc.paragraph("host op ranges that start in the steady-state steps, by type, heaviest " +
                  count(static_cast<std::int64_t>(std::min(kTopRows, ops.ops.size()))) + " of " +
                  count(static_cast<std::int64_t>(ops.ops.size())) + "; conversion ops " +
                  format_percent(ops.conversion_share) +
                  " of step time; self is the total less the ops nested inside (aten::addmm in "
                  "aten::linear)");
    doc.table(op_table(ops.ops, false));
  }
  if (!ops.layers.empty()) {
    doc.heading("Layers", 2, "layers");
    doc.paragraph("by self time (a layer's time less that of the layers inside it)");
    doc.table(op_table(ops.layers, true));
  }
  if (!ops.kernels.empty()) {
    doc.heading("GPU kernels", 2, "kernels");
    doc.paragraph(count(ops.kernel_count) + " kernels in the steady-state steps, " +
                  duration(ops.kernel_time_ns) + " in all; " + count(ops.small_kernel_count) +
                  " under the small-kernel threshold");
    Table table{{"kernel", "calls", "total", "mean", "p95", "launch", "queue", "of GPU"}, {}, {}};
    table.names = {true};
    for (std::size_t i = 0; i < std::min(kTopRows, ops.kernels.size()); ++i) {
      const KernelStat& k = ops.kernels[i];
      table.rows.push_back({k.name, count(k.time.count), duration(k.time.total_ns),
                            duration(k.time.mean_ns), duration(k.time.p95_ns),
                            duration(k.launch.mean_ns), duration(k.queue.mean_ns),
                            format_percent(k.device_share)});
    }
    doc.table(std::move(table));
  }
}

void data_section(const RankProfile& rank, Document& doc) {
  const DataAnalysis& data = rank.data;
  doc.heading("Input pipeline", 2, "data");
  doc.paragraph(std::string(input_bound_name(data.input_bound)) +
                " input-bound: " + format_percent(data.input_bound_share) +
                " of steady step time waits for data (" + data.share_source + ")");
  if (data.queues.empty()) return;
  Table table{{"queue", "gets", "empty", "wait of step", "producer/s", "consumer/s", "mean depth",
               "capacity"},
              {},
              {}};
  for (const QueueStats& q : data.queues)
    table.rows.push_back({q.name, count(q.gets), format_percent(q.empty_ratio),
                          format_percent(q.consumer_wait_share), format_number(q.producer_rate),
                          format_number(q.consumer_rate), format_number(q.mean_depth),
                          count(q.capacity)});
  doc.table(std::move(table));
}

void comm_section(const RankProfile& rank, Document& doc) {
  const CommAnalysis& comm = rank.comm;
  if (comm.ops.empty()) return;
  doc.heading("Communication", 2, "communication");
  doc.paragraph("exposed communication " + format_percent(comm.exposed_share) +
                " of steady step time; overlap measured against " + comm.compute_source);
  Table table{
      {"collective", "calls", "bytes", "total", "mean", "algbw", "busbw", "overlapped", "exposed"},
      {},
      {}};
  for (const CollectiveStats& c : comm.ops)
    table.rows.push_back({c.op, count(c.time.count), format_bytes(static_cast<double>(c.bytes)),
                          duration(c.time.total_ns), duration(c.time.mean_ns),
                          format_gbps(c.algorithm_gbps), format_gbps(c.bus_gbps),
                          duration(static_cast<double>(c.overlapped_ns)),
                          duration(static_cast<double>(c.exposed_ns))});
  doc.table(std::move(table));
}

void idle_section(const RankProfile& rank, Document& doc) {
  if (rank.idle.empty()) return;
  doc.heading("Device idle", 2, "idle");
  doc.paragraph("shares of the steady-state steps' time");
  Table table{{"track", "busy", "idle", "waiting on host", "on data", "on communication"}, {}, {}};
  for (const IdleTrack& t : rank.idle) {
    const auto share = [&](std::int64_t ns) {
      return format_percent(
          t.window_ns > 0 ? static_cast<double>(ns) / static_cast<double>(t.window_ns) : 0);
    };
    table.rows.push_back(
        {t.track, share(t.busy_ns), share(t.idle_ns),
         share(t.idle_by_cause[static_cast<std::size_t>(IdleCause::kHost)]),
         share(t.idle_by_cause[static_cast<std::size_t>(IdleCause::kData)]),
         share(t.idle_by_cause[static_cast<std::size_t>(IdleCause::kCommunication)])});
  }
  doc.table(std::move(table));
}

void ranks_section(const ProfileReport& report, Document& doc) {
  if (report.ranks.size() < 2) return;
  doc.heading("Ranks", 2, "ranks");
  Table table{{"rank", "steps", "median step", "p95", "data_wait", "forward", "backward",
               "optimizer", "communication", "work", "vs median"},
              {},
              {}};
  for (const RankRow& row : report.rank_comparison.rows) {
    std::vector<std::string> cells{count(row.rank), count(row.steps),
                                   duration(row.step_time.median_ns),
                                   duration(row.step_time.p95_ns)};
    for (const StepPart part : {StepPart::kDataWait, StepPart::kForward, StepPart::kBackward,
                                StepPart::kOptimizer, StepPart::kCommunication})
      cells.push_back(duration(row.part_mean_ns[static_cast<std::size_t>(part)]));
    cells.push_back(duration(row.work_ns));
    cells.push_back((row.vs_median >= 0 ? "+" : "") + format_percent(row.vs_median) +
                    (row.straggler ? " straggler" : ""));
    table.rows.push_back(std::move(cells));
  }
  doc.table(std::move(table));
}

void baseline_section(const ProfileReport& report, Document& doc) {
  if (!report.baseline) return;
  const BaselineComparison& baseline = *report.baseline;
  doc.heading("Baseline", 2, "baseline");
  std::string paths;
  for (const std::string& path : baseline.baseline_paths)
    paths += (paths.empty() ? "" : ", ") + path;
  doc.paragraph("against " + paths + "; a check fails above +" +
                format_number(baseline.max_regression_pct) + "% of the baseline's median step");
  doc.table(checks_table(baseline, "baseline", "current"));
}

}  // namespace

Table checks_table(const BaselineComparison& comparison, const std::string& baseline,
                   const std::string& current) {
  Table table{{"check", baseline, current, "change", "result"}, {}, {}};
  table.names = {true};
  for (const RegressionCheck& c : comparison.checks) {
    char change[32];
    std::snprintf(change, sizeof change, "%+.2f%%", c.change_pct);
    table.rows.push_back({c.name, duration(c.baseline_ns), duration(c.current_ns), change,
                          c.regressed ? "REGRESSED" : "ok"});
  }
  return table;
}

namespace {

// For a trace imported from another profiler: what it came from, and what
// that source cannot give (sections left empty for want of it).
void source_section(const RankProfile& rank, Document& doc) {
  const auto kind = rank.meta.find("import.source_kind");
  if (kind == rank.meta.end()) return;
  doc.heading("Source", 2, "source");
  doc.paragraph("imported from a " + kind->second + " trace (parity import); it does not give:");
  std::vector<std::string> lines;
  if (const auto notes = rank.meta.find("import.not_given"); notes != rank.meta.end()) {
    std::string_view rest = notes->second;
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      if (end != 0) lines.emplace_back(rest.substr(0, end));
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
    }
  }
  doc.bullets(lines);
}

}  // namespace

Document report_document(const ProfileReport& report) {
  Document doc;
  doc.heading("Parity profile report", 1);
  std::string inputs;
  for (const RankProfile& rank : report.ranks) inputs += (inputs.empty() ? "" : ", ") + rank.path;
  doc.paragraph(inputs);
  doc.verdict(verdict_line(report), !report.failed());
  findings_section(report, doc);
  baseline_section(report, doc);
  ranks_section(report, doc);
  const RankProfile& focus = report.focus_rank();
  if (report.ranks.size() > 1)
    doc.paragraph("The sections below show rank " + count(focus.rank) +
                  ", the one with the most work per step (every rank waits for it); the JSON "
                  "report holds every rank.");
  source_section(focus, doc);
  steps_section(focus, doc);
  data_section(focus, doc);
  comm_section(focus, doc);
  idle_section(focus, doc);
  ops_section(focus, doc);
  return doc;
}

}  // namespace parity::analyzer
