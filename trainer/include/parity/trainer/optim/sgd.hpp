// SGD with momentum, PyTorch's torch.optim.SGD semantics (the momentum
// buffer starts as the first gradient; optional Nesterov and dampening),
// weight decay applied only to the parameters in the decay group (the seeds
// leave BN weights and biases and all biases out). The update itself runs in
// the backend, on the parameters' own layout.
#pragma once

#include <vector>

#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

struct SgdOptions {
  double momentum = 0.9;
  double dampening = 0.0;
  bool nesterov = false;
  double weight_decay = 0.0;
};

class Sgd {
 public:
  Sgd(Backend& backend, std::vector<Parameter> parameters, const SgdOptions& options);
  // One update; the gradients arrive multiplied by `loss_scale`.
  void step(double lr, double loss_scale = 1.0);
  const std::vector<Parameter>& parameters() const { return parameters_; }
  // Whether the momentum buffers hold anything yet (false before the first
  // step); a checkpoint stores it.
  bool has_momentum() const { return has_momentum_; }
  void set_has_momentum(bool value) { has_momentum_ = value; }

 private:
  Backend& backend_;
  std::vector<Parameter> parameters_;
  SgdOptions options_;
  bool has_momentum_ = false;
};

}  // namespace parity::trainer
