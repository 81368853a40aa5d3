#include "parity/analyzer/compare/dump_compare.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <tuple>

#include "parity/analyzer/compare/dump_pairing.hpp"
#include "parity/analyzer/element_index.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

using importers::DumpRecord;
using importers::TensorDump;

// The checks that need no values: shapes, and dtype class.
std::optional<std::string> layout_failure(const DumpRecord& a, const DumpRecord& b) {
  if (a.shape != b.shape) {
    std::string text = "shape " + importers::shape_to_string(a.shape) + " vs " +
                       importers::shape_to_string(b.shape);
    if (importers::checked_element_count(a.shape) == importers::checked_element_count(b.shape))
      text += " (same element count)";
    return text;
  }
  if (dtype_is_floating(a.dtype) != dtype_is_floating(b.dtype))
    return "dtype " + std::string(dtype_name(a.dtype)) + " vs " + std::string(dtype_name(b.dtype));
  return std::nullopt;
}

std::optional<std::string> value_failure(const TensorMetrics& m, const Tolerance& tolerance,
                                         const std::vector<std::int64_t>& shape) {
  if (m.nonfinite_mismatches > 0)
    return "nan positions differ: " + std::to_string(m.nonfinite_mismatches) + " of " +
           std::to_string(m.elements) + " elements, first at " +
           element_index(m.first_nonfinite_mismatch, shape);
  if (!m.all_close())
    return "allclose: " + std::to_string(m.elements - m.within_tolerance) + " of " +
           std::to_string(m.elements) + " elements outside " + to_string(tolerance) + ", max abs " +
           format_number(m.max_abs_diff) + " at " + element_index(m.max_abs_index, shape);
  return std::nullopt;
}

// R's records by B's key (step, phase, role, name): R is a run of B's
// producer, so it names its records as B does.
class ReferenceRecords {
 public:
  ReferenceRecords(const TensorDump& r, const ReferenceLimits& limits) : dump_(r), limits_(limits) {
    for (std::size_t k = 0; k < r.records().size(); ++k) {
      const DumpRecord& record = r.records()[k];
      if (record.file) index_.emplace(key(record), k);
    }
  }
  // The record of R with B's key and a shape like it, if any.
  const DumpRecord* find(const DumpRecord& b) const {
    const auto it = index_.find(key(b));
    if (it == index_.end()) return nullptr;
    const DumpRecord& record = dump_.records()[it->second];
    return record.shape == b.shape ? &record : nullptr;
  }
  const TensorDump& dump() const { return dump_; }
  const ReferenceLimits& limits() const { return limits_; }

 private:
  using Key = std::tuple<std::int64_t, std::string, std::string, std::string>;
  static Key key(const DumpRecord& r) { return {r.step, r.phase, r.role, r.name}; }
  const TensorDump& dump_;
  ReferenceLimits limits_;
  std::map<Key, std::size_t> index_;
};

void compare_pair(const TensorDump& a, const TensorDump& b, const ReferenceRecords* reference,
                  RecordDiff& diff, std::atomic<std::uint64_t>& bytes) {
  const DumpRecord& left = a.records()[*diff.a];
  const DumpRecord& right = b.records()[*diff.b];
  std::optional<std::string> failure = layout_failure(left, right);
  if (!failure && left.file && right.file) {
    const importers::NamedTensor x = a.read(left);
    const importers::NamedTensor y = b.read(right);
    bytes += x.data.size() + y.data.size();
    diff.metrics = compare_tensors(x, y, diff.tolerance, /*equal_nan=*/true);
    failure = value_failure(*diff.metrics, diff.tolerance, left.shape);
    // With a reference, a floating pair is judged by its errors against it instead.
    const DumpRecord* r = reference && dtype_is_floating(left.dtype) ? reference->find(right) : nullptr;
    if (r && r->stats) {
      const importers::NamedTensor z = reference->dump().read(*r);
      bytes += z.data.size();
      diff.reference = reference_errors(x, y, z, *r->stats, reference->limits());
      failure = diff.reference->passed
                    ? std::nullopt
                    : std::optional<std::string>(reference_failure(*diff.reference, reference->limits()));
      if (!failure && diff.metrics->nonfinite_mismatches > 0)
        failure = value_failure(*diff.metrics, diff.tolerance, left.shape);
    }
  } else if (!failure) {
    diff.stats =
        compare_stats(record_statistics(a, left), record_statistics(b, right), diff.tolerance);
    if (diff.stats->failure) failure = "statistics: " + *diff.stats->failure;
  }
  diff.status = failure ? RecordStatus::kMismatch : RecordStatus::kMatch;
  diff.failure = failure.value_or("");
}

std::optional<std::size_t> first_mismatch(const DumpComparison& comparison,
                                          std::string_view phase) {
  for (std::size_t k = 0; k < comparison.diffs.size(); ++k) {
    const RecordDiff& diff = comparison.diffs[k];
    if (diff.status != RecordStatus::kMismatch) continue;
    if (phase.empty() || comparison.records_a[*diff.a].phase == phase) return k;
  }
  return std::nullopt;
}

std::optional<std::size_t> first_structural(const DumpComparison& comparison,
                                            std::string_view phase) {
  for (std::size_t k = 0; k < comparison.structure.size(); ++k) {
    const StructuralDivergence& d = comparison.structure[k];
    const importers::DumpRecord& r = d.a ? comparison.records_a[*d.a] : comparison.records_b[*d.b];
    if (r.phase == phase) return k;
  }
  return std::nullopt;
}

}  // namespace

std::string_view status_name(RecordStatus status) {
  switch (status) {
    case RecordStatus::kMatch:
      return "match";
    case RecordStatus::kMismatch:
      return "mismatch";
    case RecordStatus::kOnlyInA:
      return "only in A";
    case RecordStatus::kOnlyInB:
      return "only in B";
  }
  return "?";
}

std::size_t DumpComparison::count(RecordStatus status) const {
  return static_cast<std::size_t>(std::count_if(
      diffs.begin(), diffs.end(), [status](const RecordDiff& d) { return d.status == status; }));
}

std::size_t DumpComparison::pairs() const {
  return count(RecordStatus::kMatch) + count(RecordStatus::kMismatch);
}

std::size_t DumpComparison::statistics_only() const {
  return static_cast<std::size_t>(std::count_if(
      diffs.begin(), diffs.end(), [](const RecordDiff& d) { return d.stats.has_value(); }));
}

std::size_t DumpComparison::judged_by_reference() const {
  return static_cast<std::size_t>(std::count_if(
      diffs.begin(), diffs.end(), [](const RecordDiff& d) { return d.reference.has_value(); }));
}

bool DumpComparison::passed() const {
  return count(RecordStatus::kMismatch) == 0 && structure.empty() &&
         (pairs() > 0 || diffs.empty());
}

bool DumpComparison::structure_first(const std::optional<std::size_t>& mismatch,
                                     const std::optional<std::size_t>& structural) const {
  if (!structural) return false;
  return !mismatch || structure[*structural].order <= order_of_record(*diffs[*mismatch].a);
}

std::string DumpComparison::describe(const RecordDiff& diff) const {
  if (!diff.a) return records_b[*diff.b].describe();
  std::string text = records_a[*diff.a].describe();
  if (diff.b && records_b[*diff.b].name != records_a[*diff.a].name)
    text += " <-> " + records_b[*diff.b].name;
  return text;
}

DumpComparison compare_dumps(const TensorDump& a, const TensorDump& b,
                             const CompareOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const DumpPairing pairing = pair_dumps(a, b, options.map);
  DumpComparison result;
  result.path_a = a.dir().string();
  result.path_b = b.dir().string();
  result.manifest_a = a.has_manifest();
  result.manifest_b = b.has_manifest();
  result.pairing = pairing.method;
  result.records_a = a.records();
  result.records_b = b.records();

  std::vector<const RecordPair*> pair_of_a(a.records().size(), nullptr);
  for (const RecordPair& pair : pairing.pairs) pair_of_a[pair.a] = &pair;
  std::vector<std::size_t> pending;  // indices into diffs of the pairs
  result.diffs.reserve(a.records().size() + pairing.only_b.size());
  for (std::size_t i = 0; i < a.records().size(); ++i) {
    // Built in place: moving a RecordDiff trips GCC 12's -Wmaybe-uninitialized
    // on the empty optional<StatsDiff>.
    RecordDiff& diff = result.diffs.emplace_back();
    diff.a = i;
    if (const RecordPair* pair = pair_of_a[i]) {
      diff.b = pair->b;
      diff.paired_by = pair->how;
      const DumpRecord& left = a.records()[i];
      const DumpRecord& right = b.records()[pair->b];
      diff.tolerance = options.tolerances.pick(left.name, right.name, left.dtype, right.dtype);
      pending.push_back(result.diffs.size() - 1);
    } else {
      diff.status = RecordStatus::kOnlyInA;
    }
  }
  for (const std::size_t j : pairing.only_b) {
    RecordDiff& diff = result.diffs.emplace_back();
    diff.status = RecordStatus::kOnlyInB;
    diff.b = j;
  }

  std::atomic<std::uint64_t> bytes{0};
  std::optional<ReferenceRecords> reference;
  if (options.reference) {
    reference.emplace(*options.reference, options.reference_limits);
    result.path_reference = options.reference->dir().string();
    result.reference_limits = options.reference_limits;
  }
  parallel_for(pending.size(), options.parallel, [&](std::size_t k) {
    compare_pair(a, b, reference ? &*reference : nullptr, result.diffs[pending[k]], bytes);
  });
  result.bytes_read = bytes;
  const bool phases = result.has_phases();
  result.first_forward = first_mismatch(result, phases ? "forward" : "");
  if (phases) {
    result.first_backward = first_mismatch(result, "backward");
    result.first_update = first_mismatch(result, "update");
    result.structure = align_structure(result.records_a, result.records_b, pairing);
    result.first_structural_forward = first_structural(result, "forward");
    result.first_structural_backward = first_structural(result, "backward");
    result.first_structural_update = first_structural(result, "update");
  }
  result.settings = diff_settings(a.header().settings, b.header().settings);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace parity::analyzer
