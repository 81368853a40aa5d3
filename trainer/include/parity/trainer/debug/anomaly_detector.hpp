// AnomalyDetector: the observer behind `parity-train train --detect-anomaly`.
// It checks every tensor a step computes (the input, each module's output,
// the loss, each gradient flowing back, each parameter's gradient, and the
// parameters after the update) and stops training at the first NaN or Inf,
// naming the step, phase, module and op that produced it. Everything it
// checked before was finite, so that op's inputs were clean.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "parity/core/error.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

struct Anomaly {
  std::int64_t step = 0;
  std::string phase;   // forward, backward, update
  std::string name;    // module path or parameter name
  std::string module;
  std::string op;
  std::string role;    // output, loss, grad_output, grad, param_after, input
  std::int64_t nan = 0, inf = 0;
  std::vector<std::int64_t> first_index;  // of the first non-finite element
  std::string last_clean;                 // the tensor checked just before, or ""

  std::string report() const;  // several lines, the first naming the op
};

class AnomalyDetected : public Error {
 public:
  explicit AnomalyDetected(Anomaly anomaly);
  const Anomaly& anomaly() const { return anomaly_; }

 private:
  Anomaly anomaly_;
};

class AnomalyDetector final : public TensorObserver {
 public:
  explicit AnomalyDetector(Backend& backend) : backend_(backend) {}

  void begin_step(std::int64_t step) override { step_ = step; }
  void input(const Tensor& images) override;
  void forward_output(const Module& module, const Tensor& output) override;
  void loss(double value) override;
  void grad_output(const Module& module, const Tensor& grad) override;
  void parameter_grad(const Module& module, const Parameter& parameter) override;
  void after_update(const ModelState& state) override;

  std::int64_t tensors_checked() const { return checked_; }

 private:
  // Throws AnomalyDetected when `values` holds a NaN or an Inf.
  template <class T>
  void check(std::span<const T> values, const Dims& dims, std::string phase, std::string name,
             std::string module, std::string_view op, std::string role);

  Backend& backend_;
  std::int64_t step_ = 0;
  std::int64_t checked_ = 0;
  std::string last_clean_;
};

// [1, 5, 3, 2]: a flat C-order index as an index into `dims`.
std::vector<std::int64_t> unravel_index(std::int64_t flat, const Dims& dims);
std::string index_text(const std::vector<std::int64_t>& index);

}  // namespace parity::trainer
