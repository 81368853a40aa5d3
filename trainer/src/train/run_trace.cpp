// A training run's trace: opening it and describing the run in it (run_trace.hpp).
#include "run_trace.hpp"

#include "parity/profiler/allreduce_split.hpp"
#include "parity/trainer/dist/data_parallel.hpp"

namespace parity::trainer {
namespace {

// "64,3,7,7", as docs/trace-schema.md has the parameter table's shapes.
std::string shape_text(const Dims& shape) {
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text;
}

}  // namespace

std::unique_ptr<profiler::Recorder> open_trace(const TrainConfig& config,
                                               const TrainOptions& options, int rank,
                                               int world_size) {
  if (!options.trace) return nullptr;
  profiler::RecorderOptions trace_options;
  trace_options.path = world_size > 1 ? rank_trace_path(*options.trace, rank) : *options.trace;
  trace_options.rank = rank;
  trace_options.world_size = world_size;
  trace_options.command_line = options.command_line;
  trace_options.config = to_yaml(config);
  trace_options.capture_at_start = !options.trace_steps;
  auto recorder = std::make_unique<profiler::Recorder>(std::move(trace_options));
  recorder->name_thread("train");
  if (options.trace_steps) recorder->set_meta("trace_steps", options.trace_steps->text());
  return recorder;
}

void describe_trace(profiler::Recorder& recorder, const TrainConfig& config, Backend& backend,
                    const ModelState& state, const StepReducer* reducer) {
  recorder.set_meta("trainer.model", std::string(name_of(config.net_name)));
  if (reducer) {
    recorder.set_meta("trainer.allreduce_split",
                      profiler::AllreduceSplit::parse(config.allreduce_split, "").text());
    recorder.set_meta("trainer.allreduce_buckets", profiler::end_index_text(reducer->buckets()));
  }
  recorder.set_meta("trainer.backend", backend.describe());
  recorder.set_meta("trainer.batch_size", std::to_string(config.batch_size));
  recorder.set_meta("trainer.dataset", std::string(name_of(config.dataset)));
  for (const Parameter& p : state.parameters)
    recorder.add_parameter(
        {p.index, p.name, shape_text(p.shape), "float32", element_count(p.shape) * 4});
}

}  // namespace parity::trainer
