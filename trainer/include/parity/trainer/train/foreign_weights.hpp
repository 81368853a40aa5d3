// Loading a network's weights from any tensor file Parity reads (PyTorch
// .pth/.pt, MindSpore .ckpt, .safetensors, .npz), lined up with the model's
// torchvision names by the name maps `parity diff` uses
// (importers/naming/map_choice.hpp): a torchvision state_dict, a MindSpore
// checkpoint under either naming style, a training checkpoint wrapping its
// state_dict. What `parity-train eval` and `train --init-weights` read.
#pragma once

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

struct ForeignWeights {
  std::string format;              // the file's: "pytorch", "mindspore", "safetensors", ...
  std::string naming;              // how names lined up: "mindspore-to-torch, A without 'net.'"
  std::size_t loaded = 0;          // tensors written into the model
  std::vector<std::string> notes;  // lines for the log: what was skipped, zeroed or converted
};

// Writes the file's tensors into `state`. `map` is "auto" (the built-in map
// that lines up the most names) or a built-in map's name or a rule file.
// An optimizer's state and a training loop's bookkeeping in the file are
// skipped; batch counters the file keeps none of (MindSpore's BatchNorm) are
// set to 0; floating tensors of another precision are converted to float32.
// Throws parity::Error naming the file when its tensors do not cover the
// network: every missing tensor, every tensor the network does not have,
// every shape that differs, at once; the model is then left untouched.
ForeignWeights load_foreign_weights(Backend& backend, ModelState& state,
                                    const std::filesystem::path& path,
                                    const std::string& map = "auto");

// "LABEL: w.pth (pytorch, names by identity, 122 tensors)", then the notes.
void print_foreign_weights(std::ostream& log, const std::string& label,
                           const std::filesystem::path& path, const ForeignWeights& weights);

}  // namespace parity::trainer
