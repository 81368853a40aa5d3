#include "parity/trainer/nn/module.hpp"

#include <optional>

namespace parity::trainer {

Module::Module(std::string name, Tracing& tracing)
    : name_(std::move(name)), tracing_(tracing), trace_name_(profiler::intern(name_)) {}

void Module::name_op_ranges() {
  op_forward_name_ = profiler::intern(op_kind());
  op_backward_name_ = profiler::intern(std::string(op_kind()) + "_backward");
}

std::optional<profiler::Scope> Module::op_range(Pass pass) const {
  if (!tracing_.recorder) return std::nullopt;
  return std::optional<profiler::Scope>(
      std::in_place, *tracing_.recorder,
      pass == Pass::kForward ? op_forward_name_ : op_backward_name_, profiler::Category::kOp);
}

std::string Module::child_name(std::string_view child) const {
  return name_.empty() ? std::string(child) : name_ + "." + std::string(child);
}

Tensor Module::forward(const Tensor& x, Mode mode) {
  std::optional<profiler::Scope> scope;
  if (tracing_.recorder && !name_.empty()) scope.emplace(*tracing_.recorder, trace_name_, profiler::Category::kLayer);
  Tensor y = run_forward(x, mode);
  if (tracing_.observer && mode == Mode::kTrain && !op_kind().empty())
    tracing_.observer->forward_output(*this, y);
  return y;
}

Tensor Module::backward(const Tensor& dy) {
  std::optional<profiler::Scope> scope;
  if (tracing_.recorder && !name_.empty()) scope.emplace(*tracing_.recorder, trace_name_, profiler::Category::kLayer);
  if (tracing_.observer && !op_kind().empty()) tracing_.observer->grad_output(*this, dy);
  return run_backward(dy);
}

}  // namespace parity::trainer
