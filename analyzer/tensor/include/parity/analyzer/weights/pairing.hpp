// Pairs the tensors of two checkpoints (A and B) for a diff, by a name map
// (built-in or a rule file), or automatically:
//   auto        strip a wrapper prefix on either side (state_dict., model., ...)
//               when that helps, take the built-in map that pairs the most
//               names with equal shapes, then pair what is left by structure
//   structure   the structural pairing alone (structural_pairing.hpp)
//   NAME|FILE   a built-in map or a rule file, exact names after mapping
// (importers/naming/map_choice.hpp). An optimizer's state and a training
// loop's bookkeeping (importers/naming/training_state.hpp) are set aside
// before pairing unless asked otherwise.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parity/importers/naming/training_state.hpp"
#include "parity/importers/tensor_source.hpp"

namespace parity::analyzer {

struct ParameterPair {
  std::size_t a = 0, b = 0;            // indices into the two entry lists
  double confidence = 1.0;             // 1 for pairs made by a name map
  std::string how;                     // "torch-to-mindspore", "structure", ...
  std::optional<std::size_t> rival_b;  // a near-tie candidate in B (ambiguous pair)
};

struct Lonely {
  std::size_t index = 0;
  std::string reason;  // why it has no counterpart
};

struct SetAside {
  std::size_t index = 0;
  importers::TrainingState state;
};

struct Pairing {
  std::string method;                       // "auto: mindspore-to-torch + structure", ...
  std::vector<ParameterPair> pairs;         // in A's order
  std::vector<std::size_t> only_a, only_b;  // unpaired, in file order
  std::vector<Lonely> no_counterpart_a, no_counterpart_b;    // unpaired by design
  std::vector<SetAside> training_state_a, training_state_b;  // not paired, in file order

  std::size_t ambiguous_count() const;
};

// `map` is "auto", "structure", a built-in map's name or a rule file's path.
// With `set_aside_training_state`, the optimizer state and bookkeeping of
// either side are listed apart and never paired; without it they pair like
// any tensor. Throws parity::Error for an unknown map.
Pairing pair_tensors(const std::vector<importers::TensorEntry>& a,
                     const std::vector<importers::TensorEntry>& b, const std::string& map,
                     bool set_aside_training_state = true);

}  // namespace parity::analyzer
