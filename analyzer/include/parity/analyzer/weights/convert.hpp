// `parity convert`: weight migration between formats and naming schemes, the
// job of the seeds' hand-written conversion scripts. The input's tensors are
// renamed by a name map (or paired with a reference checkpoint's names) and
// written in the output's format; tensors with no counterpart are dropped
// and reported.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parity/importers/tensor_source.hpp"

namespace parity::analyzer {

struct ConvertOptions {
  // A built-in map or a rule file (see name_map.hpp); with `like`, also
  // "auto" or "structure" (see pairing.hpp).
  std::string map = "identity";
  // Name the output's tensors after this checkpoint's, pairing them as `parity diff` does.
  std::optional<std::filesystem::path> like;
};

struct DroppedTensor {
  std::string name;
  std::string reason;
};

struct ConvertReport {
  std::size_t written = 0;
  std::size_t renamed = 0;
  std::vector<DroppedTensor> dropped;
};

// Throws parity::Error for unreadable input, an unknown map, a tensor whose
// shape differs from its counterpart in `like`, two tensors mapped to one
// name, or anything the output format's writer refuses.
ConvertReport convert_checkpoint(const importers::TensorSource& input, const std::filesystem::path& output,
                                 const ConvertOptions& options);

}  // namespace parity::analyzer
