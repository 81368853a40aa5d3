// `parity compare`: pairs the records of two tensor dumps (dump_pairing.hpp)
// and checks every pair, so that the first tensor, in execution order, where
// two runs part ways can be named. A pair is compared
//   by values       element by element in float64 (tensor_diff.hpp), NaN on
//                   both sides at the same element counting as equal
//   by statistics   (stats_diff.hpp) when either side holds statistics only
// after two checks that need no values: equal shapes, and both dtypes
// floating or both not. Pairs are read and compared one at a time on each of
// a few threads, so memory stays bounded by threads x the largest pair.
// With a manifest on both sides the two dumps are also aligned as sequences
// (structure_alignment.hpp): a record one side lacks, a forward record run
// out of order, another op or shape is a structural divergence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/compare/reference_verdict.hpp"
#include "parity/analyzer/compare/settings_diff.hpp"
#include "parity/analyzer/compare/stats_diff.hpp"
#include "parity/analyzer/compare/structure_alignment.hpp"
#include "parity/analyzer/parallel_for.hpp"
#include "parity/analyzer/weights/tensor_diff.hpp"
#include "parity/analyzer/weights/tolerance_rules.hpp"
#include "parity/importers/dump/tensor_dump.hpp"

namespace parity::analyzer {

enum class RecordStatus { kMatch, kMismatch, kOnlyInA, kOnlyInB };

// "match", "mismatch", "only in A", "only in B".
std::string_view status_name(RecordStatus status);

struct RecordDiff {
  RecordStatus status = RecordStatus::kMatch;
  std::optional<std::size_t> a, b;       // indices into records_a, records_b
  std::string paired_by;                 // of a pair: "key", "name" or "order and shape"
  Tolerance tolerance;                   // of a pair
  std::optional<TensorMetrics> metrics;  // when values were compared
  std::optional<StatsDiff> stats;        // when only statistics were compared
  // Each side's error against the reference run, when one was given and holds
  // this pair's record: then it, not the tolerance, decides the status.
  std::optional<ReferenceErrors> reference;
  // The first check that failed, for a mismatch: "shape [2, 3] vs [3, 2]",
  // "dtype float32 vs int64", "nan positions differ: ...", "allclose: ...",
  // "statistics: ...".
  std::string failure;
};

struct CompareOptions {
  std::string map =
      "identity";  // a built-in name map or a rule file (importers/naming/name_map.hpp)
  ToleranceRules tolerances;
  ParallelOptions parallel;
  // A float64 run R of B's producer (same weights and batch): floating pairs
  // are judged by reference_verdict.hpp's rule against it.
  const importers::TensorDump* reference = nullptr;
  ReferenceLimits reference_limits;
};

struct DumpComparison {
  std::string path_a, path_b;
  std::string path_reference;  // empty without a reference
  ReferenceLimits reference_limits;
  bool manifest_a = false, manifest_b = false;
  std::string pairing;  // how the records were paired
  std::vector<importers::DumpRecord> records_a, records_b;
  // A's records in execution order, paired or only in A, then the records
  // only in B in B's order.
  std::vector<RecordDiff> diffs;
  // Indices into `diffs` of the first mismatch in forward order (the records
  // of phase forward, or all records when a side has no phases), in backward
  // order and in the update phase; all in A's execution order.
  std::optional<std::size_t> first_forward, first_backward, first_update;
  // Structural divergences in A's execution order (both sides with a
  // manifest; none otherwise), and indices into it of the first in each
  // phase: forward, backward, update.
  std::vector<StructuralDivergence> structure;
  std::optional<std::size_t> first_structural_forward, first_structural_backward,
      first_structural_update;
  // Where the two headers' recorded settings differ (a dump with a manifest
  // on both sides; informative, never a failure).
  std::vector<SettingDifference> settings;
  std::uint64_t bytes_read = 0;  // of values compared element by element
  double seconds = 0;

  // Both sides have phases (a manifest); otherwise every record counts as forward.
  bool has_phases() const { return manifest_a && manifest_b; }
  std::size_t count(RecordStatus status) const;
  std::size_t pairs() const;            // compared pairs: matching or not
  std::size_t statistics_only() const;  // pairs compared by statistics
  std::size_t judged_by_reference() const;  // pairs with errors against the reference
  // Every pair matches, the two executions have the same structure (a
  // record one side lacks where both dumped that step and phase, a reorder,
  // another op), and something paired unless neither dump holds a record.
  // Records with no counterpart outside the structure (a plain .npy
  // directory's, a phase only one side dumped) are warnings, not failures.
  bool passed() const;
  // Of a phase's first mismatching pair and first structural divergence
  // (indices into diffs and structure), whether the structural one comes
  // first in A's execution order; it does on a tie (a shape change is both).
  bool structure_first(const std::optional<std::size_t>& mismatch,
                       const std::optional<std::size_t>& structural) const;
  // "step 0 forward layer1.0.conv1 (output)", with " <-> NAME" when B's name differs.
  std::string describe(const RecordDiff& diff) const;
};

// Throws parity::Error when a record cannot be read (a missing or damaged
// .npy file, one that disagrees with its manifest line, a record with
// neither values nor statistics) or the map is unknown.
DumpComparison compare_dumps(const importers::TensorDump& a, const importers::TensorDump& b,
                             const CompareOptions& options = {});

}  // namespace parity::analyzer
