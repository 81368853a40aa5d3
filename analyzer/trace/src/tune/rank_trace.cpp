#include "parity/analyzer/tune/rank_trace.hpp"

#include <charconv>

#include "parity/core/error.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"

namespace parity::analyzer {
namespace {

namespace schema = profiler::schema;
using profiler::Category;
using profiler::CollectiveRow;
using profiler::GradReadyRow;
using profiler::RangeRow;
using profiler::TraceReader;

// An allreduce with the name of its lane (profiler::kCalibrationLane for the sweep).
struct LaneAllreduce : CollectiveRow {
  std::string lane;
};
constexpr auto kLaneAllreduces = schema::projection<LaneAllreduce>(
    "collective",
    "collective c LEFT JOIN track t ON t.id = c.track_id LEFT JOIN string s ON s.id = t.name_id",
    schema::column<LaneAllreduce>("c.step", &LaneAllreduce::step),
    schema::column<LaneAllreduce>("c.first_param", &LaneAllreduce::first_param),
    schema::column<LaneAllreduce>("c.last_param", &LaneAllreduce::last_param),
    schema::column<LaneAllreduce>("c.bytes", &LaneAllreduce::bytes),
    schema::column<LaneAllreduce>("c.start_ns", &LaneAllreduce::start_ns),
    schema::column<LaneAllreduce>("c.dur_ns", &LaneAllreduce::dur_ns),
    schema::column<LaneAllreduce>("IFNULL(s.text, '')", &LaneAllreduce::lane));

std::int64_t meta_int(const TraceReader& reader, const std::string& key, std::int64_t fallback) {
  const std::optional<std::string> text = reader.meta_value(key);
  if (!text || text->empty()) return fallback;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < 0)
    throw Error("meta." + key + " is not a non-negative integer: '" + *text + "'",
                reader.path().string(), "the trace is damaged; record the run again");
  return value;
}

// Each step's duration, and its backward and allreduce_wait phases: the phase
// ranges that lie inside a step range of their own track.
void load_steps(TraceReader& reader, RankTrace& trace) {
  std::int64_t track = -1, step = -1, step_end = -1;
  schema::for_each<schema::kTable<RangeRow>, &RangeRow::track, &RangeRow::start_ns,
                   &RangeRow::dur_ns, &RangeRow::name, &RangeRow::category, &RangeRow::arg>(
      reader.db(), "WHERE category IN (1, 2) ORDER BY track_id, start_ns, id",
      [&](const RangeRow& row) {
        const std::int64_t start = row.start_ns, dur = row.dur_ns;
        if (row.track != track) {
          track = row.track;
          step = step_end = -1;
        }
        if (row.category == Category::kStep) {
          if (!row.arg) return;
          step = *row.arg;
          step_end = start + dur;
          trace.steps[step].step_ns = dur;
          return;
        }
        if (row.category != Category::kPhase || step < 0 || start + dur > step_end) return;
        const std::string& name = reader.string(row.name);
        RankStep& timing = trace.steps[step];
        if (name == "backward" && !timing.backward_start_ns) {
          timing.backward_start_ns = start;
          timing.backward_end_ns = start + dur;
        }
        if (name == "allreduce_wait")
          timing.allreduce_wait_ns = timing.allreduce_wait_ns.value_or(0) + dur;
      });
}

void load_ready(TraceReader& reader, RankTrace& trace) {
  const auto params = static_cast<std::int64_t>(trace.param_names.size());
  schema::for_each<schema::kTable<GradReadyRow>, &GradReadyRow::step, &GradReadyRow::param_index,
                   &GradReadyRow::ts_ns, &GradReadyRow::bytes>(
      reader.db(), "ORDER BY step, param_idx, ts_ns", [&](const GradReadyRow& ready) {
        const GradientReady row{ready.step, ready.param_index, ready.ts_ns, ready.bytes};
        if (row.param < 0 || row.param >= params || row.bytes < 0)
          throw Error("corrupt grad_ready row: parameter " + std::to_string(row.param) + ", " +
                          std::to_string(row.bytes) + " bytes, but the model has " +
                          std::to_string(params) + " parameters",
                      trace.path + ": grad_ready of step " + std::to_string(row.step),
                      "the trace is damaged; record the run again");
        // A gradient accumulated twice in a step is ready the second time.
        if (!trace.ready.empty() && trace.ready.back().step == row.step &&
            trace.ready.back().param == row.param)
          trace.ready.back() = row;
        else
          trace.ready.push_back(row);
      });
}

void load_allreduces(TraceReader& reader, RankTrace& trace) {
  const auto params = static_cast<std::int64_t>(trace.param_names.size());
  schema::for_each<kLaneAllreduces>(
      reader.db(),
      "WHERE c.op = " + std::to_string(static_cast<int>(profiler::CollectiveOp::kAllReduce)) +
          " ORDER BY c.step, c.first_param, c.start_ns",
      [&](const LaneAllreduce& allreduce) {
        const std::int64_t first = allreduce.first_param, last = allreduce.last_param;
        if (first < 0 || last < first || last >= params || allreduce.bytes < 0)
          throw Error("corrupt collective row: parameters " + std::to_string(first) + ".." +
                          std::to_string(last) + " of a model with " + std::to_string(params),
                      trace.path + ": collective of step " + std::to_string(allreduce.step),
                      "the trace is damaged; record the run again");
        const BucketAllreduce row{
            allreduce.step,
            {static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(last)},
            allreduce.bytes,
            allreduce.start_ns,
            std::max<std::int64_t>(0, allreduce.dur_ns)};
        (allreduce.lane == profiler::kCalibrationLane ? trace.calibration : trace.allreduces)
            .push_back(row);
      });
}

}  // namespace

RankTrace load_rank_trace(const std::filesystem::path& path) {
  TraceReader reader(path);
  RankTrace trace;
  trace.path = path.string();
  trace.rank = meta_int(reader, "rank", 0);
  trace.world_size = meta_int(reader, "world_size", 1);
  trace.split = reader.meta_value("trainer.allreduce_split");
  for (const profiler::ParameterRow& row : reader.parameters()) {
    if (row.index != static_cast<std::int64_t>(trace.param_names.size()))
      throw Error("the parameter indices are not 0, 1, 2, ...: index " + std::to_string(row.index) +
                      " follows " + std::to_string(trace.param_names.size()) + " rows",
                  trace.path + ": parameter '" + row.name + "'",
                  "the trace is damaged; record the run again");
    trace.param_names.push_back(row.name);
  }
  // An imported trace (a PyTorch profile, an nsys export) lacks what the
  // profilers never record; say which source it was, not how to record ours.
  const std::optional<std::string> source = reader.meta_value("import.source_kind");
  const std::string hint =
      source ? "the tuner needs each parameter's size and the time its gradient is ready, which "
               "a " + *source + " trace does not give; record the run with parity-train " +
                   "(`parity import` says what a source gives)"
             : std::string(kRecordHint);
  if (trace.param_names.empty())
    throw Error("the trace lists no parameters (table parameter is empty)", trace.path, hint);
  load_ready(reader, trace);
  if (trace.ready.empty())
    throw Error("the trace has no gradient-ready times (table grad_ready is empty)", trace.path,
                hint);
  load_allreduces(reader, trace);
  if (trace.allreduces.empty())
    throw Error("the trace has no AllReduce of a gradient bucket (table collective)", trace.path,
                kRecordHint + std::string(" (a run of one process reduces nothing)"));
  load_steps(reader, trace);
  return trace;
}

}  // namespace parity::analyzer
