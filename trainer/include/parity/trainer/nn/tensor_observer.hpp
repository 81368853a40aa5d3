// TensorObserver: what watches the tensors a training step computes, at the
// points a dump records (docs/formats/dump.md): the input batch, every
// module's forward output, the loss, the gradient flowing back into every
// module, every parameter's gradient, and the parameters around the
// optimizer step. Dumps, anomaly detection and planted faults are observers;
// a model without one pays nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "parity/trainer/backend/tensor.hpp"

namespace parity::trainer {

class Module;
struct Parameter;
struct ModelState;

class TensorObserver {
 public:
  virtual ~TensorObserver() = default;
  virtual void begin_step(std::int64_t /*step*/) {}
  virtual void input(const Tensor& /*images*/) {}
  // The output of a module that computes something itself (a layer or a
  // residual block; not a container). An observer may change its values.
  virtual void forward_output(const Module& /*module*/, const Tensor& /*output*/) {}
  virtual void loss(double /*value*/) {}
  virtual void grad_output(const Module& /*module*/, const Tensor& /*grad*/) {}
  virtual void parameter_grad(const Module& /*module*/, const Parameter& /*parameter*/) {}
  // Backward has finished: every parameter's gradient is complete (after any
  // AllReduce), before the loss scaler's overflow check and the optimizer.
  // Called on every step, including one the loss scaler then skips.
  virtual void gradients_ready(const ModelState& /*state*/) {}
  virtual void before_update(const ModelState& /*state*/) {}
  virtual void after_update(const ModelState& /*state*/) {}
};

// Several observers, called in the order they were added (a fault planter
// before a dumper before an anomaly check: the dump then holds the planted
// fault, and the anomaly stop comes after its tensor is written).
class ObserverChain final : public TensorObserver {
 public:
  void add(std::unique_ptr<TensorObserver> observer) { observers_.push_back(std::move(observer)); }
  bool empty() const { return observers_.empty(); }

  void begin_step(std::int64_t step) override;
  void input(const Tensor& images) override;
  void forward_output(const Module& module, const Tensor& output) override;
  void loss(double value) override;
  void grad_output(const Module& module, const Tensor& grad) override;
  void parameter_grad(const Module& module, const Parameter& parameter) override;
  void gradients_ready(const ModelState& state) override;
  void before_update(const ModelState& state) override;
  void after_update(const ModelState& state) override;

 private:
  std::vector<std::unique_ptr<TensorObserver>> observers_;
};

}  // namespace parity::trainer
