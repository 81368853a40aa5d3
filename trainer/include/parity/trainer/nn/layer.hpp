// Layer: a module around one backend op (conv, batch norm, pooling, linear,
// ReLU). After its backward it records each of its parameters'
// gradient-ready time and size. A layer with a weight geometry (a conv or
// the classifier) shows its input and output gradient to the curvature tap.
#pragma once

#include <memory>
#include <optional>

#include "parity/trainer/nn/curvature_tap.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

class Layer final : public Module {
 public:
  enum Kind { kPlain, kBatchNorm };  // batch norms count num_batches_tracked
  Layer(std::string name, Tracing& tracing, std::unique_ptr<LayerOp> op, Kind kind = kPlain);
  // A layer whose weight (its first parameter) the curvature tap reads.
  Layer(std::string name, Tracing& tracing, std::unique_ptr<LayerOp> op, WeightGeometry geometry);
  void collect(ModelState& state) override;
  std::string_view op_kind() const override { return op_->kind(); }

 private:
  Tensor run_forward(const Tensor& x, Mode mode) override;
  Tensor run_backward(const Tensor& dy) override;
  // The tap, when this layer has a weight geometry and the tap collects this step.
  CurvatureTap* collecting_tap() const;

  std::unique_ptr<LayerOp> op_;
  Kind kind_;
  std::optional<WeightGeometry> geometry_;
  std::int64_t num_batches_tracked_ = 0;
  std::vector<Parameter> parameters_;  // filled by collect()
};

}  // namespace parity::trainer
