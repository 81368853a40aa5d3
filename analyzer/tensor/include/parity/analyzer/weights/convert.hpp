// `parity convert`: weight migration between formats and naming schemes, the
// job of the seeds' hand-written conversion scripts. The input's tensors are
// renamed by a name map (or paired with a reference checkpoint's names) and
// written in the output's format; tensors with no counterpart are dropped
// and reported, as are, with `like`, an optimizer's state and a training
// loop's bookkeeping (importers/naming/training_state.hpp). With `like`, the
// reference's BatchNorm batch counters that the input has by design none of
// (MindSpore's) are created as 0, so PyTorch's load_state_dict accepts the
// output.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parity/importers/tensor_source.hpp"

namespace parity::analyzer {

struct ConvertOptions {
  // A built-in map or a rule file (see importers/naming/name_map.hpp); with `like`, also
  // "auto" or "structure" (see pairing.hpp).
  std::string map = "identity";
  // Name the output's tensors after this checkpoint's, pairing them as `parity diff` does.
  std::optional<std::filesystem::path> like;
};

// What happened to one tensor, and why.
struct TensorNote {
  std::string name;
  std::string note;
};

struct ConvertReport {
  std::size_t written = 0;  // created tensors included
  std::size_t renamed = 0;
  std::vector<TensorNote> dropped;  // input tensors not written
  std::vector<TensorNote> created;  // output tensors the input has no counterpart of
};

// Notes as lines for a person: one line per note, in order of first
// appearance. A note shared by several tensors is said once, with their
// count and the first and last of them ("53 tensors named
// *.num_batches_tracked (bn1.num_batches_tracked ... layer4.2.bn3.num_batches_tracked):
// created as 0 ..."); a lone tensor's line is "NAME: NOTE".
std::vector<std::string> summarize_notes(const std::vector<TensorNote>& notes);

// Throws parity::Error for unreadable input, an unknown map, a tensor whose
// shape differs from its counterpart in `like`, two tensors mapped to one
// name, or anything the output format's writer refuses.
ConvertReport convert_checkpoint(const importers::TensorSource& input,
                                 const std::filesystem::path& output,
                                 const ConvertOptions& options);

}  // namespace parity::analyzer
