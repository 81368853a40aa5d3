#include "parity/trainer/debug/tensor_dumper.hpp"

#include "parity/core/error.hpp"
#include "parity/core/version.hpp"

namespace parity::trainer {

DumpContents DumpContents::parse(std::string_view text) {
  DumpContents what{false, false, false, false};
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    if (item == "fwd") what.forward = true;
    else if (item == "bwd") what.backward = true;
    else if (item == "params") what.params = true;
    else if (item == "grads") what.grads = true;
    else
      throw Error("unknown dump content '" + std::string(item) + "'", "--dump-what",
                  "a comma list of fwd, bwd, params, grads");
    start = comma + 1;
  }
  return what;
}

TensorDumper::TensorDumper(Backend& backend, const DumpOptions& options)
    : backend_(backend),
      options_(options),
      writer_(options.dir, {std::string("parity-train ") + kVersion, options.model, options.stats_only,
                                options.settings}) {}

void TensorDumper::begin_step(std::int64_t step) {
  step_ = step;
  active_ = options_.steps.contains(step);
}

void TensorDumper::write(std::string_view phase, std::string name, std::string module,
                         std::string_view op, std::string_view role, const Tensor& tensor) {
  importers::DumpRecord record;
  record.step = step_;
  record.phase = phase;
  record.name = std::move(name);
  record.module = std::move(module);
  record.op = op;
  record.role = role;
  record.shape = tensor.dims();
  const std::vector<float> values = backend_.to_host(tensor);
  writer_.write(std::move(record), values);
}

void TensorDumper::input(const Tensor& images) {
  if (active_ && options_.what.forward) write("forward", "input", "input", "input", "input", images);
}

void TensorDumper::forward_output(const Module& module, const Tensor& output) {
  if (active_ && options_.what.forward)
    write("forward", module.name(), module.name(), module.op_kind(), "output", output);
}

void TensorDumper::loss(double value) {
  if (!active_ || !options_.what.forward) return;
  importers::DumpRecord record;
  record.step = step_;
  record.phase = "forward";
  record.name = record.module = "loss";
  record.op = "cross_entropy";
  record.role = "loss";
  const double values[] = {value};
  writer_.write(std::move(record), std::span<const double>(values));
}

void TensorDumper::grad_output(const Module& module, const Tensor& grad) {
  if (active_ && options_.what.backward)
    write("backward", module.name(), module.name(), module.op_kind(), "grad_output", grad);
}

void TensorDumper::parameter_grad(const Module& module, const Parameter& parameter) {
  const auto [it, added] =
      owners_.try_emplace(parameter.name, module.name(), std::string(module.op_kind()));
  if (active_ && options_.what.grads)
    write("backward", parameter.name, it->second.first, it->second.second, "grad",
          parameter.tensors->grad);
}

void TensorDumper::write_parameters(const ModelState& state, std::string_view role) {
  for (const Parameter& p : state.parameters) {
    const auto owner = owners_.find(p.name);
    // Backward names every parameter's owner before the first update.
    const std::string module = owner != owners_.end() ? owner->second.first : "";
    const std::string op = owner != owners_.end() ? owner->second.second : "";
    write("update", p.name, module, op, role, p.tensors->value);
  }
}

void TensorDumper::before_update(const ModelState& state) {
  if (active_ && options_.what.params) write_parameters(state, "param_before");
}

void TensorDumper::after_update(const ModelState& state) {
  if (active_ && options_.what.params) write_parameters(state, "param_after");
}

}  // namespace parity::trainer
