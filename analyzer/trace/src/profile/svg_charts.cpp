#include "svg_charts.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>

#include "parity/analyzer/profile/units.hpp"
#include "parity/analyzer/report/svg_canvas.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

constexpr double kNsPerMs = 1e6;
// Tableau 10: distinct, and still distinct for most colour-blind readers.
constexpr std::array<std::string_view, kStepParts> kPartColours = {
    "#e15759",  // data_wait
    "#4e79a7",  // forward
    "#59a14f",  // backward
    "#f28e2b",  // optimizer
    "#b07aa1",  // communication
    "#bab0ac",  // other
};
constexpr std::string_view kOverlappedColour = "#76b7b2";
constexpr std::string_view kExposedColour = "#e15759";
constexpr std::string_view kBarColour = "#4e79a7";
constexpr std::string_view kStragglerColour = "#e15759";
constexpr std::string_view kStepBackColour = "#d9d9d9";

using namespace svg;

// ---- steps ----

// One bar of the step chart: one step, or the mean of neighbouring steps.
struct StepBar {
  std::int64_t first_step = 0, last_step = 0;
  std::size_t steps = 0;
  std::array<double, kStepParts> part_ns{};
  double total_ns() const {
    double total = 0;
    for (const double ns : part_ns) total += ns;
    return total;
  }
};

std::size_t steps_per_bar(std::size_t steps) { return (steps + kMaxStepBars - 1) / kMaxStepBars; }

std::vector<StepBar> step_bars(const std::vector<StepBreakdown>& steps) {
  const std::size_t per_bar = steps_per_bar(steps.size());
  std::vector<StepBar> bars;
  for (std::size_t begin = 0; begin < steps.size(); begin += per_bar) {
    const std::size_t end = std::min(steps.size(), begin + per_bar);
    StepBar bar{steps[begin].step, steps[end - 1].step, end - begin, {}};
    for (std::size_t s = begin; s < end; ++s)
      for (std::size_t p = 0; p < kStepParts; ++p)
        bar.part_ns[p] += static_cast<double>(std::max<std::int64_t>(steps[s].parts[p], 0));
    for (double& ns : bar.part_ns) ns /= static_cast<double>(bar.steps);
    bars.push_back(bar);
  }
  return bars;
}

std::string step_bar_tip(const StepBar& bar) {
  std::string tip = bar.steps == 1 ? "step " + std::to_string(bar.first_step)
                                   : "steps " + std::to_string(bar.first_step) + "-" +
                                         std::to_string(bar.last_step) + " (mean of " +
                                         std::to_string(bar.steps) + ")";
  tip += "\ntotal " + format_duration(bar.total_ns());
  for (const StepPart part : kAllStepParts)
    tip += "\n" + std::string(step_part_name(part)) + " " +
           format_duration(bar.part_ns[static_cast<std::size_t>(part)]);
  return tip;
}

std::vector<LegendEntry> step_legend() {
  std::vector<LegendEntry> entries;
  for (const StepPart part : kAllStepParts)
    entries.push_back(
        {std::string(step_part_name(part)), kPartColours[static_cast<std::size_t>(part)]});
  return entries;
}

// A light band behind the warm-up steps, which the statistics leave out.
void warmup_band(Svg& svg, const Plot& plot, const StepAnalysis& steps, double bar_width) {
  if (steps.warmup_steps == 0) return;
  const std::size_t per_bar = steps_per_bar(steps.steps.size());
  const std::size_t bars =
      (std::min(steps.warmup_steps, steps.steps.size()) + per_bar - 1) / per_bar;
  const double width = static_cast<double>(bars) * bar_width;
  svg.rect(plot.left, plot.top, width, plot.height, "#f3f3f3",
           "warm-up: the first " + std::to_string(steps.warmup_steps) +
               " steps, left out of the steady-state statistics");
  svg.text(plot.left + 3, plot.top + 11, "warm-up", "start", "#999");
}

// ---- comm ----

struct CommBar {
  std::string label, tip;
  double overlapped_ns = 0, exposed_ns = 0;
};

std::vector<CommBar> comm_bars(const CommAnalysis& comm) {
  std::vector<CommBar> bars;
  for (const BucketStats& b : comm.buckets) {
    const double exposed = static_cast<double>(b.exposed_ns);
    const std::string label = "bucket " + std::to_string(b.bucket) + " (" +
                              format_bytes(static_cast<double>(b.bytes)) + ")";
    bars.push_back({label, label + ", " + std::to_string(b.time.count) + " calls",
                    std::max(b.time.total_ns - exposed, 0.0), exposed});
  }
  if (!bars.empty()) return bars;
  for (const CollectiveStats& c : comm.ops)
    bars.push_back({c.op,
                    c.op + ", " + std::to_string(c.time.count) + " calls of " +
                        format_bytes(static_cast<double>(c.bytes)) + ", bus " +
                        format_gbps(c.bus_gbps),
                    static_cast<double>(c.overlapped_ns), static_cast<double>(c.exposed_ns)});
  return bars;
}

// Bars past kMaxCommBars become one bar, their mean: a sum would dwarf the
// others and squash them to slivers.
void fold_comm_bars(std::vector<CommBar>& bars) {
  if (bars.size() <= kMaxCommBars) return;
  const std::size_t folded = bars.size() - kMaxCommBars + 1;
  CommBar rest;
  for (std::size_t i = kMaxCommBars - 1; i < bars.size(); ++i) {
    rest.overlapped_ns += std::max(bars[i].overlapped_ns, 0.0);
    rest.exposed_ns += std::max(bars[i].exposed_ns, 0.0);
  }
  rest.label = std::to_string(folded) + " more (mean)";
  rest.tip = bars[kMaxCommBars - 1].label + " to " + bars.back().label + ": in all exposed " +
             format_duration(rest.exposed_ns) + " of " +
             format_duration(rest.overlapped_ns + rest.exposed_ns) + "; the mean of each";
  rest.overlapped_ns /= static_cast<double>(folded);
  rest.exposed_ns /= static_cast<double>(folded);
  bars.resize(kMaxCommBars - 1);
  bars.push_back(std::move(rest));
}

// ---- queues ----

// The steps of a queue's depth as a line: flat until the next sample.
std::vector<std::pair<double, double>> depth_line(const std::vector<QueueDepthPoint>& series,
                                                  const Plot& plot, std::int64_t t0, double span_ns,
                                                  double max_depth) {
  // The analysis keeps at most kDepthSeriesPoints; a longer series is thinned
  // rather than trusted to be short.
  const std::size_t stride = std::max<std::size_t>(1, series.size() / kDepthSeriesPoints);
  std::vector<std::pair<double, double>> points;
  double previous_y = 0;
  for (std::size_t i = 0; i < series.size(); i += stride) {
    const double x =
        plot.left + scale(static_cast<double>(series[i].ts_ns - t0), span_ns, plot.width);
    const double y = plot.bottom() - scale(series[i].depth, max_depth, plot.height);
    if (!points.empty()) points.emplace_back(x, previous_y);
    points.emplace_back(x, y);
    previous_y = y;
  }
  return points;
}

// ---- ranks ----

std::string rank_tip(const RankRow& row) {
  return "rank " + std::to_string(row.rank) + "\nmedian step " +
         format_duration(row.step_time.median_ns) + ", p95 " +
         format_duration(row.step_time.p95_ns) + "\nwork " + format_duration(row.work_ns) + ", " +
         (row.vs_median >= 0 ? "+" : "") + format_percent(row.vs_median) +
         " against the ranks' median work" + (row.straggler ? "\nstraggler" : "");
}

}  // namespace

std::string step_chart(const StepAnalysis& steps) {
  if (steps.steps.empty()) return {};
  const std::vector<StepBar> bars = step_bars(steps.steps);
  double max_ns = 0;
  for (const StepBar& bar : bars) max_ns = std::max(max_ns, bar.total_ns());
  const Ticks ticks = nice_ticks(max_ns / kNsPerMs);
  constexpr double kHeight = 280;
  const Plot plot = plot_in(kHeight, 56, 36, 12, 34);
  Svg svg(kHeight, "step breakdown over steps");
  legend(svg, plot.left, 14, step_legend());
  const double bar_width = plot.width / static_cast<double>(bars.size());
  const double gap = bar_width > 4 ? bar_width * 0.15 : 0;
  warmup_band(svg, plot, steps, bar_width);
  y_axis(svg, plot, ticks, "ms");
  for (std::size_t b = 0; b < bars.size(); ++b) {
    const double x = plot.left + static_cast<double>(b) * bar_width + gap / 2;
    double y = plot.bottom();
    svg.open_group(step_bar_tip(bars[b]));
    for (std::size_t p = 0; p < kStepParts; ++p) {
      if (!(bars[b].part_ns[p] > 0)) continue;
      const double h = scale(bars[b].part_ns[p] / kNsPerMs, ticks.top, plot.height);
      y -= h;
      svg.rect(x, y, bar_width - gap, h, kPartColours[p]);
    }
    svg.close_group();
  }
  const std::size_t label_every = (bars.size() + 7) / 8;
  for (std::size_t b = 0; b < bars.size(); b += label_every)
    svg.text(plot.left + (static_cast<double>(b) + 0.5) * bar_width, plot.bottom() + 14,
             std::to_string(bars[b].first_step), "middle");
  svg.text(plot.right(), plot.bottom() + 28,
           bars.size() < steps.steps.size()
               ? "step (each bar the mean of " + std::to_string(bars.front().steps) + ")"
               : "step",
           "end");
  return std::move(svg).finish();
}

std::string op_chart(const std::vector<OpStat>& ops, std::size_t max_bars) {
  const std::size_t rows = std::min(ops.size(), max_bars);
  if (rows == 0) return {};
  double max_ns = 0;
  for (std::size_t i = 0; i < rows; ++i) max_ns = std::max(max_ns, ops[i].time.total_ns);
  constexpr double kRow = 22, kLabelWidth = 250, kValueWidth = 150;
  const double height = 16 + kRow * static_cast<double>(rows);
  Svg svg(height, "operators by total time");
  const double bar_area = kWidth - kLabelWidth - kValueWidth;
  for (std::size_t i = 0; i < rows; ++i) {
    const OpStat& op = ops[i];
    const double y = 8 + kRow * static_cast<double>(i);
    const double w = scale(op.time.total_ns, max_ns, bar_area);
    const std::string name = op.phase.empty() ? op.name : op.name + " (" + op.phase + ")";
    svg.text(kLabelWidth - 8, y + 15, clip(name, 36), "end");
    svg.rect(kLabelWidth, y + 4, w, kRow - 8, kBarColour,
             name + "\n" + std::to_string(op.time.count) + " calls, total " +
                 format_duration(op.time.total_ns) + ", mean " + format_duration(op.time.mean_ns) +
                 ", p95 " + format_duration(op.time.p95_ns) + "\n" + format_percent(op.step_share) +
                 " of step time");
    svg.text(kLabelWidth + w + 6, y + 15,
             format_duration(op.time.total_ns) + "  " + format_percent(op.step_share));
  }
  return std::move(svg).finish();
}

std::string queue_chart(const std::vector<QueueStats>& queues) {
  std::int64_t t0 = 0, t1 = 0;
  double max_depth = 0;
  bool any = false;
  for (const QueueStats& q : queues) {
    max_depth = std::max<double>(max_depth, q.capacity);
    for (const QueueDepthPoint& p : q.depth_series) {
      t0 = any ? std::min(t0, p.ts_ns) : p.ts_ns;
      t1 = any ? std::max(t1, p.ts_ns) : p.ts_ns;
      max_depth = std::max<double>(max_depth, p.depth);
      any = true;
    }
  }
  if (!any) return {};
  const Ticks depth_ticks = count_ticks(max_depth);
  const double span_ns = std::max(static_cast<double>(t1 - t0), 1.0);
  constexpr double kHeight = 240;
  const Plot plot = plot_in(kHeight, 56, 36, 12, 34);
  Svg svg(kHeight, "data queue depth over time");
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < queues.size(); ++i)
    entries.push_back({queues[i].name, kSeriesColours[i % kSeriesColours.size()]});
  entries.push_back({"capacity", kAxisColour, true});
  legend(svg, plot.left, 14, entries);
  y_axis(svg, plot, depth_ticks, "depth");
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const QueueStats& q = queues[i];
    const std::string_view colour = kSeriesColours[i % kSeriesColours.size()];
    if (q.capacity > 0) {
      const double y = plot.bottom() - scale(q.capacity, depth_ticks.top, plot.height);
      svg.line(plot.left, y, plot.right(), y, colour, true,
               q.name + " capacity " + std::to_string(q.capacity));
    }
    if (!q.depth_series.empty())
      svg.polyline(depth_line(q.depth_series, plot, t0, span_ns, depth_ticks.top), colour,
                   q.name + ": mean depth " + format_number(q.mean_depth) + ", " +
                       format_percent(q.empty_ratio) + " of gets found it empty");
  }
  // One sample, or all at one time: only the origin gets a tick.
  const Ticks time_ticks = t1 > t0 ? nice_ticks(span_ns / 1e9) : Ticks{1, 0};
  for (int i = 0; i <= tick_count(time_ticks); ++i) {
    const double seconds = i * time_ticks.step;
    if (seconds * 1e9 > span_ns * (1 + 1e-9)) break;
    const double x = plot.left + scale(seconds * 1e9, span_ns, plot.width);
    svg.line(x, plot.bottom(), x, plot.bottom() + 4, kAxisColour);
    svg.text(x, plot.bottom() + 16, tick_label(seconds), "middle");
  }
  svg.text(plot.right(), plot.bottom() + 30, "seconds since the first sample", "end");
  return std::move(svg).finish();
}

std::string comm_chart(const CommAnalysis& comm) {
  std::vector<CommBar> bars = comm_bars(comm);
  if (bars.empty()) return {};
  fold_comm_bars(bars);
  double max_ns = 0;
  for (const CommBar& bar : bars) max_ns = std::max(max_ns, bar.overlapped_ns + bar.exposed_ns);
  constexpr double kRow = 22, kLabelWidth = 200, kValueWidth = 190, kTop = 28;
  const double height = kTop + 8 + kRow * static_cast<double>(bars.size());
  Svg svg(height, "communication overlapped and exposed");
  legend(svg, kLabelWidth, 14,
         {{"overlapped with compute", kOverlappedColour}, {"exposed", kExposedColour}});
  const double bar_area = kWidth - kLabelWidth - kValueWidth;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const CommBar& bar = bars[i];
    const double y = kTop + kRow * static_cast<double>(i);
    const double overlapped = scale(bar.overlapped_ns, max_ns, bar_area);
    const double exposed = scale(bar.exposed_ns, max_ns, bar_area - overlapped);
    const std::string total = format_duration(bar.overlapped_ns + bar.exposed_ns);
    svg.text(kLabelWidth - 8, y + 15, clip(bar.label, 30), "end");
    svg.open_group(bar.tip + "\noverlapped " + format_duration(bar.overlapped_ns) + "\nexposed " +
                   format_duration(bar.exposed_ns) + "\ntotal " + total);
    svg.rect(kLabelWidth, y + 4, overlapped, kRow - 8, kOverlappedColour);
    svg.rect(kLabelWidth + overlapped, y + 4, exposed, kRow - 8, kExposedColour);
    svg.close_group();
    svg.text(kLabelWidth + overlapped + exposed + 6, y + 15,
             "exposed " + format_duration(bar.exposed_ns) + " of " + total);
  }
  return std::move(svg).finish();
}

std::string rank_chart(const RankComparison& comparison) {
  const std::vector<RankRow>& rows = comparison.rows;
  if (rows.empty()) return {};
  double max_ns = comparison.median_work_ns;
  for (const RankRow& row : rows) max_ns = std::max({max_ns, row.step_time.median_ns, row.work_ns});
  const Ticks ticks = nice_ticks(max_ns / kNsPerMs);
  constexpr double kHeight = 240;
  const Plot plot = plot_in(kHeight, 56, 36, 12, 34);
  Svg svg(kHeight, "median step and work per rank");
  legend(svg, plot.left, 14,
         {{"median step", kStepBackColour},
          {"work (step less exposed communication)", kBarColour},
          {"straggler", kStragglerColour},
          {"median work of the ranks", kLabelColour, true}});
  y_axis(svg, plot, ticks, "ms");
  const double bar_width = plot.width / static_cast<double>(rows.size());
  const double gap = bar_width > 4 ? bar_width * 0.2 : 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RankRow& row = rows[i];
    const double x = plot.left + static_cast<double>(i) * bar_width + gap / 2;
    const double step = scale(row.step_time.median_ns / kNsPerMs, ticks.top, plot.height);
    const double work = scale(row.work_ns / kNsPerMs, ticks.top, plot.height);
    // The work in front of the step: what shows of the step above it is the
    // time the rank spent in exposed communication, mostly waiting for others.
    svg.open_group(rank_tip(row));
    svg.rect(x, plot.bottom() - step, bar_width - gap, step, kStepBackColour);
    svg.rect(x, plot.bottom() - work, bar_width - gap, work,
             row.straggler ? kStragglerColour : kBarColour);
    svg.close_group();
  }
  const std::size_t label_every = (rows.size() + 15) / 16;
  for (std::size_t i = 0; i < rows.size(); i += label_every)
    svg.text(plot.left + (static_cast<double>(i) + 0.5) * bar_width, plot.bottom() + 14,
             std::to_string(rows[i].rank), "middle");
  svg.text(plot.right(), plot.bottom() + 28, "rank", "end");
  const double median_y =
      plot.bottom() - scale(comparison.median_work_ns / kNsPerMs, ticks.top, plot.height);
  svg.line(plot.left, median_y, plot.right(), median_y, kLabelColour, true,
           "median work of the ranks: " + format_duration(comparison.median_work_ns));
  return std::move(svg).finish();
}

}  // namespace parity::analyzer
