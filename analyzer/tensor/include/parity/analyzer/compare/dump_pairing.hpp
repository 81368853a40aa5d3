// Pairs the records of two tensor dumps (docs/formats/dump.md) for
// `parity compare`. A's names are first mapped into B's vocabulary by a name
// map (importers/naming/name_map.hpp: a built-in map's name or a rule file). Then:
//   both sides with a manifest   by the key (step, phase, role, name)
//   either side a plain .npy dir by name (the k-th record of a name with the
//                                k-th of that name in B), then what is left
//                                by order and shape: the longest sequence of
//                                equal shapes common to both, in order (as
//                                TroubleShooter aligns .npy directories)
// Records that pair with nothing are listed, never dropped.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "parity/importers/dump/tensor_dump.hpp"

namespace parity::analyzer {

struct RecordPair {
  std::size_t a = 0, b = 0;  // indices into the two dumps' records
  std::string how;           // "key", "name" or "order and shape"
};

struct DumpPairing {
  std::string method;                       // how the pairs were made, for reports
  std::vector<RecordPair> pairs;            // in A's order
  std::vector<std::size_t> only_a, only_b;  // unpaired, in each dump's order
};

// Throws parity::Error for an unknown map.
DumpPairing pair_dumps(const importers::TensorDump& a, const importers::TensorDump& b,
                       const std::string& map);

}  // namespace parity::analyzer
