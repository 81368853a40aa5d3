// tune_allreduce: the AllReduce tuner's analysis (docs/tune-allreduce.md).
// From a run's combined traces and a cost model it predicts the exposed
// communication and step time of the run's own split and of the usual
// alternatives, finds the optimal split and MG-WFBP's, and with `simulate`
// projects the optimum's gain over DDP's default to larger clusters.
// Backward's ready times are its own progress when the traces show that the
// AllReduces beside it slow it down (backward_contention.hpp), so each split
// also predicts backward's length.
//   exposed  the last AllReduce's end after the last gradient was ready
//   wait     what the step waits after backward (allreduce_wait, as the
//            trainer traces it)
//   step     the measured step - the measured wait + the predicted wait +
//            the predicted change of backward from the current split's
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/tune/cost_model.hpp"
#include "parity/analyzer/tune/scale_projection.hpp"
#include "parity/analyzer/tune/tune_input.hpp"

namespace parity::analyzer {

// What the optimum (and MG-WFBP's merge) minimises:
//   exposed  the exposed communication of the traced ready times, as if
//            AllReduces did not slow backward (the traced profile already
//            holds the current split's slowdown): exact;
//   step     the modelled step time (`done`), with backward's slowdown under
//            AllReduce when the traces measure it.
// Either way every split's prediction uses the full model.
enum class SplitObjective { kExposed, kStep };

struct TuneOptions {
  SplitObjective objective = SplitObjective::kExposed;
  Link link = Link::kMeasured;
  std::optional<std::int64_t> ranks;  // default: the traced world size
  bool simulate = false;
  // Further splits to predict (allreduce_split's forms), named "asked".
  std::vector<std::string> asked_splits;
};

struct SplitPrediction {
  std::string name;   // current, none, one, ddp, seeds, asked, mg-wfbp, optimum
  std::string split;  // as the trainer's allreduce_split spells it
  Schedule schedule;
  double wait_ns = 0, step_ns = 0;
  std::vector<profiler::GradientBucket> buckets() const;  // forward order
  // Each bucket's size in MiB, last bucket first: DDP's order, and its unit
  // of bucket_cap_mb.
  std::vector<double> bucket_mib() const;
};

struct TuneResult {
  TuneInput input;  // its notes gain the model's caveats (an extrapolated cost)
  CostModel cost;
  SplitObjective objective = SplitObjective::kExposed;
  ContentionFit contention;  // input.profile carries its loss when it is used
  std::int64_t ranks = 0;    // the rank count predicted for
  // The current split's wait predicted at the traced world size: what the
  // measured allreduce_wait checks.
  double current_wait_at_traced_ns = 0;
  std::vector<SplitPrediction> splits;  // in the order of `name` above; seeds when it fits
  std::vector<ScalePoint> projection;   // with simulate

  const SplitPrediction& split(std::string_view name) const;
  // (predicted - measured) / measured x 100; none without a measurement.
  std::optional<double> prediction_error_percent() const;
};

// Throws parity::Error for --ranks below 1, an asked split that does not parse
// or fit the model's parameters, and (measured link) for a trace whose
// AllReduces hold fewer than two message sizes.
TuneResult tune_allreduce(TuneInput input, const TuneOptions& options);

}  // namespace parity::analyzer
