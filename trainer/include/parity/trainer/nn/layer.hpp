// Layer: a module around one backend op (conv, batch norm, pooling, linear,
// ReLU). After its backward it records each of its parameters'
// gradient-ready time and size.
#pragma once

#include <memory>

#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

class Layer final : public Module {
 public:
  enum Kind { kPlain, kBatchNorm };  // batch norms count num_batches_tracked
  Layer(std::string name, Tracing& tracing, std::unique_ptr<LayerOp> op, Kind kind = kPlain);
  void collect(ModelState& state) override;
  std::string_view op_kind() const override { return op_->kind(); }

 private:
  Tensor run_forward(const Tensor& x, Mode mode) override;
  Tensor run_backward(const Tensor& dy) override;

  std::unique_ptr<LayerOp> op_;
  Kind kind_;
  std::int64_t num_batches_tracked_ = 0;
  std::vector<Parameter> parameters_;  // filled by collect()
};

}  // namespace parity::trainer
