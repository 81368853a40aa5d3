// `parity diff`: pairs the tensors of two checkpoints (pairing.hpp) and
// compares every pair (tensor_diff.hpp), several pairs at a time, reading
// each tensor only when its pair is compared so memory stays bounded by a few
// tensors, not the files.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/weights/tensor_diff.hpp"
#include "parity/analyzer/weights/tolerance_rules.hpp"
#include "parity/importers/naming/training_state.hpp"
#include "parity/importers/tensor_source.hpp"

namespace parity::analyzer {

enum class DiffStatus {
  kEqual,          // every element identical
  kClose,          // every element within tolerance
  kMismatch,       // some element outside tolerance (or NaN)
  kShapeMismatch,  // paired, but the shapes differ: not compared
  kDtypeDiffers,   // values within tolerance, but stored in different dtypes
  kOnlyInA,
  kOnlyInB,
  kNoCounterpart,  // unpaired by design (num_batches_tracked against MindSpore)
};

// "equal", "close", "mismatch", "shape mismatch", "dtype differs", "only in A",
// "only in B", "no counterpart".
std::string_view status_name(DiffStatus status);
// equal, close and no counterpart agree; everything else is a finding.
bool status_agrees(DiffStatus status);

struct DiffOptions {
  std::string map = "auto";  // see pair_tensors()
  // Pair and compare the optimizer state and bookkeeping too, so that an
  // entry on one side only is a finding (--strict). By default they are
  // listed apart (WeightDiff::training_state) and never fail the verdict.
  bool strict = false;
  ToleranceRules tolerances;
  unsigned threads = 0;  // 0: one per hardware thread
  // Called after each compared pair (from the calling thread's view: serialized).
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct ParameterDiff {
  DiffStatus status = DiffStatus::kEqual;
  std::string name_a, name_b;  // empty on the side that lacks it
  std::optional<DType> dtype_a, dtype_b;
  std::vector<std::int64_t> shape_a, shape_b;
  Tolerance tolerance;
  std::optional<TensorMetrics> metrics;  // for compared pairs
  double confidence = 1.0;               // of the pairing
  std::string paired_by;                 // the map or "structure"
  std::string rival_b;                   // a near-tie candidate, when the pairing was ambiguous
  std::string note;                      // why it has no counterpart
};

// An entry of the optimizer's state or the training loop's bookkeeping, set
// aside rather than compared (importers/naming/training_state.hpp).
struct TrainingStateEntry {
  bool in_a = true;  // which file holds it
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  importers::TrainingState state;
};

struct WeightDiff {
  std::string path_a, path_b, format_a, format_b;
  std::string pairing;                             // how the pairs were made
  std::vector<ParameterDiff> parameters;           // pairs in A's order, then A's and B's unpaired
  std::vector<TrainingStateEntry> training_state;  // A's, then B's, in file order
  std::uint64_t bytes_read = 0;
  double seconds = 0;

  std::size_t count(DiffStatus status) const;
  std::size_t ambiguous_pairs() const;
  bool all_agree() const;
};

// Throws parity::Error when a tensor cannot be read.
WeightDiff diff_checkpoints(const importers::TensorSource& a, const importers::TensorSource& b,
                            const DiffOptions& options = {});

}  // namespace parity::analyzer
