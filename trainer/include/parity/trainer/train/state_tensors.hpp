// The model's state_dict and the optimizer's momentum buffers as named host
// tensors (torchvision names, plain layouts) and back: what checkpoints hold
// and what `parity diff` compares with a PyTorch state_dict.
#pragma once

#include <string>
#include <vector>

#include "parity/importers/named_tensor.hpp"
#include "parity/trainer/nn/module.hpp"
#include "parity/trainer/optim/sgd.hpp"

namespace parity::trainer {

// The state_dict in order, then "optimizer.momentum_buffer.<name>" for every
// parameter once the optimizer has taken a step.
std::vector<importers::NamedTensor> export_state(Backend& backend, ModelState& state,
                                                 const Sgd* optimizer);

// Loads tensors by name. Every state_dict entry must be present with its
// shape (an Error names the first missing or mismatched one, and any
// tensor the model does not have); momentum buffers are loaded when the
// optimizer is given and the file has them all.
void import_state(Backend& backend, ModelState& state, Sgd* optimizer,
                  const std::vector<importers::NamedTensor>& tensors, const std::string& where);

}  // namespace parity::trainer
