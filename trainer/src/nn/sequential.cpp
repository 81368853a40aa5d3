#include "parity/trainer/nn/sequential.hpp"

namespace parity::trainer {

Module& Sequential::add(std::unique_ptr<Module> module) {
  children_.push_back(std::move(module));
  return *children_.back();
}

void Sequential::collect(ModelState& state) {
  for (auto& child : children_) child->collect(state);
}

Tensor Sequential::run_forward(const Tensor& x, Mode mode) {
  Tensor y = x;
  for (auto& child : children_) y = child->forward(y, mode);
  return y;
}

Tensor Sequential::run_backward(const Tensor& dy) {
  Tensor d = dy;
  for (auto it = children_.rbegin(); it != children_.rend(); ++it) d = (*it)->backward(d);
  return d;
}

}  // namespace parity::trainer
