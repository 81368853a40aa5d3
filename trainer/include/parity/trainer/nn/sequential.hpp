// Sequential: modules run one after another (torchvision's nn.Sequential and
// the ResNet's top level); backward runs them in reverse.
#pragma once

#include <memory>
#include <vector>

#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

class Sequential final : public Module {
 public:
  Sequential(std::string name, Tracing& tracing) : Module(std::move(name), tracing) {}
  Module& add(std::unique_ptr<Module> module);
  void collect(ModelState& state) override;
  // The name a child added now gets ("layer1" + "0" -> "layer1.0").
  std::string next_child_name(std::string_view child) const { return child_name(child); }

 private:
  Tensor run_forward(const Tensor& x, Mode mode) override;
  Tensor run_backward(const Tensor& dy) override;

  std::vector<std::unique_ptr<Module>> children_;
};

}  // namespace parity::trainer
