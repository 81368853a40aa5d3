#include "parity/trainer/optim/sgd.hpp"

namespace parity::trainer {

Sgd::Sgd(Backend& backend, std::vector<Parameter> parameters, const SgdOptions& options)
    : backend_(backend), parameters_(std::move(parameters)), options_(options) {}

void Sgd::step(double lr, double loss_scale) {
  const SgdStep step{lr,         options_.momentum, options_.dampening, 0.0,
                     loss_scale, options_.nesterov, !has_momentum_};
  std::vector<ParamTensors*> tensors;
  std::vector<SgdStep> steps;
  tensors.reserve(parameters_.size());
  steps.reserve(parameters_.size());
  for (Parameter& p : parameters_) {
    tensors.push_back(p.tensors);
    steps.push_back(step);
    steps.back().weight_decay = p.weight_decay ? options_.weight_decay : 0.0;
  }
  backend_.sgd_update_all(tensors, steps);
  has_momentum_ = true;
}

}  // namespace parity::trainer
