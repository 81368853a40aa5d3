#include "parity/trainer/debug/anomaly_detector.hpp"

#include <cmath>

namespace parity::trainer {

std::vector<std::int64_t> unravel_index(std::int64_t flat, const Dims& dims) {
  std::vector<std::int64_t> index(dims.size());
  for (std::size_t i = dims.size(); i-- > 0;) {
    index[i] = dims[i] > 0 ? flat % dims[i] : 0;
    flat = dims[i] > 0 ? flat / dims[i] : 0;
  }
  return index;
}

std::string index_text(const std::vector<std::int64_t>& index) {
  std::string text = "[";
  for (std::size_t i = 0; i < index.size(); ++i) text += (i ? ", " : "") + std::to_string(index[i]);
  return text + "]";
}

std::string Anomaly::report() const {
  std::string text = "anomaly: step " + std::to_string(step) + ", " + phase + ": " + name;
  if (!op.empty()) text += " (" + op + ")";
  text += " " + role + " holds " + std::to_string(nan) + " NaN and " + std::to_string(inf) +
          " Inf, the first at " + index_text(first_index) + "\n";
  if (phase == "forward" && role != "input")
    text += "  the op whose inputs were clean while its output was not: " + module + " (" + op + ")\n";
  else if (phase == "backward")
    text += "  made by the backward pass after the last clean tensor\n";
  else if (phase == "update")
    text += "  made by the optimizer step from finite gradients and parameters\n";
  text += last_clean.empty() ? "  it is the first tensor of the step checked\n"
                             : "  last clean tensor: " + last_clean + "\n";
  return text;
}

AnomalyDetected::AnomalyDetected(Anomaly anomaly)
    : Error(anomaly.report(), "--detect-anomaly",
            "dump this step (--dump DIR --dump-steps " + std::to_string(anomaly.step) +
                ") and run parity nan-scan DIR for the tensors"),
      anomaly_(std::move(anomaly)) {}

template <class T>
void AnomalyDetector::check(std::span<const T> values, const Dims& dims, std::string phase,
                            std::string name, std::string module, std::string_view op,
                            std::string role) {
  ++checked_;
  std::int64_t nan = 0, inf = 0, first = -1;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isfinite(values[i])) continue;
    (std::isnan(values[i]) ? nan : inf) += 1;
    if (first < 0) first = static_cast<std::int64_t>(i);
  }
  if (first < 0) {
    last_clean_ = name + " (" + role + ")";
    return;
  }
  throw AnomalyDetected({step_, std::move(phase), std::move(name), std::move(module), std::string(op),
                         std::move(role), nan, inf, unravel_index(first, dims), last_clean_});
}

void AnomalyDetector::input(const Tensor& images) {
  last_clean_.clear();
  check<float>(backend_.to_host(images), images.dims(), "forward", "input", "input", "input", "input");
}

void AnomalyDetector::forward_output(const Module& module, const Tensor& output) {
  check<float>(backend_.to_host(output), output.dims(), "forward", module.name(), module.name(),
        module.op_kind(), "output");
}

void AnomalyDetector::loss(double value) {
  const double values[] = {value};
  check(std::span<const double>(values), {}, "forward", "loss", "loss", "cross_entropy", "loss");
}

void AnomalyDetector::grad_output(const Module& module, const Tensor& grad) {
  check<float>(backend_.to_host(grad), grad.dims(), "backward", module.name(), module.name(),
        module.op_kind(), "grad_output");
}

void AnomalyDetector::parameter_grad(const Module& module, const Parameter& parameter) {
  check<float>(backend_.to_host(parameter.tensors->grad), parameter.shape, "backward", parameter.name,
        module.name(), module.op_kind(), "grad");
}

void AnomalyDetector::after_update(const ModelState& state) {
  for (const Parameter& p : state.parameters)
    check<float>(backend_.to_host(p.tensors->value), p.shape, "update", p.name, "", "sgd", "param_after");
}

}  // namespace parity::trainer
