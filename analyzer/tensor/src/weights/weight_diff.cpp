#include "parity/analyzer/weights/weight_diff.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "parity/analyzer/parallel_for.hpp"
#include "parity/analyzer/weights/pairing.hpp"

namespace parity::analyzer {
namespace {

using importers::TensorEntry;

DiffStatus status_of(const ParameterDiff& diff) {
  if (!diff.metrics->all_close()) return DiffStatus::kMismatch;
  if (*diff.dtype_a != *diff.dtype_b) return DiffStatus::kDtypeDiffers;
  return diff.metrics->all_equal() ? DiffStatus::kEqual : DiffStatus::kClose;
}

ParameterDiff one_sided(const TensorEntry& entry, bool in_a, DiffStatus status, std::string note) {
  ParameterDiff diff;
  diff.status = status;
  diff.note = std::move(note);
  (in_a ? diff.name_a : diff.name_b) = entry.name;
  (in_a ? diff.dtype_a : diff.dtype_b) = entry.dtype;
  (in_a ? diff.shape_a : diff.shape_b) = entry.shape;
  return diff;
}

TrainingStateEntry set_aside(const TensorEntry& entry, bool in_a, importers::TrainingState state) {
  return {in_a, entry.name, entry.dtype, entry.shape, std::move(state)};
}

// Compares the pairs listed in `pending`, a few at a time.
void compare_pairs(const importers::TensorSource& a, const importers::TensorSource& b,
                   std::vector<ParameterDiff>& diffs, const std::vector<std::size_t>& pending,
                   const DiffOptions& options, std::uint64_t& bytes_read) {
  std::atomic<std::uint64_t> bytes{0};
  parallel_for(pending.size(), {options.threads, options.progress}, [&](std::size_t k) {
    ParameterDiff& diff = diffs[pending[k]];
    const importers::NamedTensor left = a.read(diff.name_a);
    const importers::NamedTensor right = b.read(diff.name_b);
    bytes += left.data.size() + right.data.size();
    diff.metrics = compare_tensors(left, right, diff.tolerance);
    diff.status = status_of(diff);
  });
  bytes_read = bytes;
}

}  // namespace

std::string_view status_name(DiffStatus status) {
  switch (status) {
    case DiffStatus::kEqual:
      return "equal";
    case DiffStatus::kClose:
      return "close";
    case DiffStatus::kMismatch:
      return "mismatch";
    case DiffStatus::kShapeMismatch:
      return "shape mismatch";
    case DiffStatus::kDtypeDiffers:
      return "dtype differs";
    case DiffStatus::kOnlyInA:
      return "only in A";
    case DiffStatus::kOnlyInB:
      return "only in B";
    case DiffStatus::kNoCounterpart:
      return "no counterpart";
  }
  return "?";
}

bool status_agrees(DiffStatus status) {
  return status == DiffStatus::kEqual || status == DiffStatus::kClose ||
         status == DiffStatus::kNoCounterpart;
}

std::size_t WeightDiff::count(DiffStatus status) const {
  return static_cast<std::size_t>(
      std::count_if(parameters.begin(), parameters.end(),
                    [status](const auto& p) { return p.status == status; }));
}

std::size_t WeightDiff::ambiguous_pairs() const {
  return static_cast<std::size_t>(std::count_if(parameters.begin(), parameters.end(),
                                                [](const auto& p) { return !p.rival_b.empty(); }));
}

bool WeightDiff::all_agree() const {
  return std::all_of(parameters.begin(), parameters.end(),
                     [](const auto& p) { return status_agrees(p.status); });
}

WeightDiff diff_checkpoints(const importers::TensorSource& a, const importers::TensorSource& b,
                            const DiffOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<TensorEntry>& entries_a = a.entries();
  const std::vector<TensorEntry>& entries_b = b.entries();
  const Pairing pairing = pair_tensors(entries_a, entries_b, options.map, !options.strict);

  WeightDiff result;
  result.path_a = a.path().string();
  result.path_b = b.path().string();
  result.format_a = a.format();
  result.format_b = b.format();
  result.pairing = pairing.method;

  std::vector<std::size_t> pending;
  for (const ParameterPair& pair : pairing.pairs) {
    const TensorEntry& left = entries_a[pair.a];
    const TensorEntry& right = entries_b[pair.b];
    ParameterDiff diff;
    diff.name_a = left.name;
    diff.name_b = right.name;
    diff.dtype_a = left.dtype;
    diff.dtype_b = right.dtype;
    diff.shape_a = left.shape;
    diff.shape_b = right.shape;
    diff.confidence = pair.confidence;
    diff.paired_by = pair.how;
    if (pair.rival_b) diff.rival_b = entries_b[*pair.rival_b].name;
    diff.tolerance = options.tolerances.pick(diff.name_a, diff.name_b, left.dtype, right.dtype);
    if (left.shape != right.shape)
      diff.status = DiffStatus::kShapeMismatch;
    else
      pending.push_back(result.parameters.size());
    result.parameters.push_back(std::move(diff));
  }
  for (const std::size_t i : pairing.only_a)
    result.parameters.push_back(one_sided(entries_a[i], true, DiffStatus::kOnlyInA, ""));
  for (const Lonely& lonely : pairing.no_counterpart_a)
    result.parameters.push_back(
        one_sided(entries_a[lonely.index], true, DiffStatus::kNoCounterpart, lonely.reason));
  for (const std::size_t j : pairing.only_b)
    result.parameters.push_back(one_sided(entries_b[j], false, DiffStatus::kOnlyInB, ""));
  for (const Lonely& lonely : pairing.no_counterpart_b)
    result.parameters.push_back(
        one_sided(entries_b[lonely.index], false, DiffStatus::kNoCounterpart, lonely.reason));

  for (const SetAside& aside : pairing.training_state_a)
    result.training_state.push_back(set_aside(entries_a[aside.index], true, aside.state));
  for (const SetAside& aside : pairing.training_state_b)
    result.training_state.push_back(set_aside(entries_b[aside.index], false, aside.state));

  compare_pairs(a, b, result.parameters, pending, options, result.bytes_read);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace parity::analyzer
