// Structural comparison of two tensor dumps with manifests (`parity compare`):
// the records of each (step, phase) are two sequences in execution order, and
// where they differ in shape rather than in values is a structural divergence:
//   missing in A / in B  a record one side has and the other lacks (an op
//                        dropped or added), placed between its neighbours
//   reordered            a forward record both sides have, run in another
//                        order (backward may order a block's branches either
//                        way, update lists parameters as each producer keeps
//                        them, so only forward order is checked)
//   op, shape            a record both sides have, computed by another op or
//                        with another shape (both named)
// Each divergence has a position in A's execution order, so that the report
// can name whichever comes first, a structural or a value divergence.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/compare/dump_pairing.hpp"
#include "parity/importers/dump/dump_manifest.hpp"

namespace parity::analyzer {

struct StructuralDivergence {
  enum class Kind { kMissingInA, kMissingInB, kReordered, kOp, kShape };
  Kind kind = Kind::kMissingInA;
  std::optional<std::size_t> a, b;  // indices into the two dumps' records: the one(s) it is about
  // The records both sides have on either side of it in execution order
  // (the side that holds the record), their names; none at a group's edge.
  std::optional<std::string> after, before;
  // Position in A's execution order: 2k + 1 at A's record k, 2k + 2 just
  // after it (where a record A lacks would be), 2k just before it. Value
  // mismatches of A's record k sit at 2k + 1 too, and a tie goes to structure.
  std::size_t order = 0;
  std::string message;  // "B has no record for step 0 forward layer1.1 output (add_relu), ..."
};

// "missing in A", "missing in B", "reordered", "op", "shape".
std::string_view kind_name(StructuralDivergence::Kind kind);

// Order of a value divergence at A's record k (see StructuralDivergence::order).
constexpr std::size_t order_of_record(std::size_t k) { return 2 * k + 1; }

// The structural divergences of two dumps paired by key (pair_dumps with both
// manifests), sorted by position. A (step, phase) that one side holds no
// record of at all is what was dumped, not a divergence: it is skipped (its
// records stay "only in A/B"). O((n + m) log n) for n and m records: pairs
// are found by key, and the longest run kept in order is the longest
// increasing subsequence of B's positions, in A's order (equal to the
// longest common subsequence of the two key sequences, keys being unique).
std::vector<StructuralDivergence> align_structure(const std::vector<importers::DumpRecord>& a,
                                                  const std::vector<importers::DumpRecord>& b,
                                                  const DumpPairing& pairing);

}  // namespace parity::analyzer
