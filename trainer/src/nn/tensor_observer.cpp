#include "parity/trainer/nn/tensor_observer.hpp"

namespace parity::trainer {

void ObserverChain::begin_step(std::int64_t step) {
  for (auto& o : observers_) o->begin_step(step);
}
void ObserverChain::input(const Tensor& images) {
  for (auto& o : observers_) o->input(images);
}
void ObserverChain::forward_output(const Module& module, const Tensor& output) {
  for (auto& o : observers_) o->forward_output(module, output);
}
void ObserverChain::loss(double value) {
  for (auto& o : observers_) o->loss(value);
}
void ObserverChain::grad_output(const Module& module, const Tensor& grad) {
  for (auto& o : observers_) o->grad_output(module, grad);
}
void ObserverChain::parameter_grad(const Module& module, const Parameter& parameter) {
  for (auto& o : observers_) o->parameter_grad(module, parameter);
}
void ObserverChain::gradients_ready(const ModelState& state) {
  for (auto& o : observers_) o->gradients_ready(state);
}
void ObserverChain::before_update(const ModelState& state) {
  for (auto& o : observers_) o->before_update(state);
}
void ObserverChain::after_update(const ModelState& state) {
  for (auto& o : observers_) o->after_update(state);
}

}  // namespace parity::trainer
