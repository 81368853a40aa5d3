// A training run's trace: the recorder the run opens (one file per rank),
// the names of a step's phases, a scope that is nothing without a trace, and
// what the trace records about the run (model, backend, buckets, parameters).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "parity/profiler/recorder.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/dist/bucket_schedule.hpp"
#include "parity/trainer/nn/module.hpp"
#include "parity/trainer/train/training_run.hpp"

namespace parity::trainer {

// Null without --trace.
std::unique_ptr<profiler::Recorder> open_trace(const TrainConfig& config,
                                               const TrainOptions& options, int rank,
                                               int world_size);

struct PhaseNames {
  profiler::NameId step = profiler::intern("step");
  profiler::NameId data_wait = profiler::intern("data_wait");
  profiler::NameId forward = profiler::intern("forward");
  profiler::NameId backward = profiler::intern("backward");
  profiler::NameId allreduce_wait = profiler::intern("allreduce_wait");
  profiler::NameId optimizer = profiler::intern("optimizer");
  profiler::NameId loss = profiler::intern("loss");
  profiler::NameId lr = profiler::intern("lr");
};

// A range when tracing, nothing otherwise.
class MaybeScope {
 public:
  MaybeScope(profiler::Recorder* recorder, profiler::NameId name, profiler::Category category) {
    if (recorder) scope_.emplace(*recorder, name, category);
  }
  MaybeScope(profiler::Recorder* recorder, profiler::NameId name, profiler::Category category,
             std::int64_t arg) {
    if (recorder) scope_.emplace(*recorder, name, category, arg);
  }

 private:
  std::optional<profiler::Scope> scope_;
};

// The run's metadata and parameter table; `reducer` is a data-parallel run's.
void describe_trace(profiler::Recorder& recorder, const TrainConfig& config, Backend& backend,
                    const ModelState& state, const StepReducer* reducer);

}  // namespace parity::trainer
