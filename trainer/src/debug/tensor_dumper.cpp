#include "parity/trainer/debug/tensor_dumper.hpp"

#include <span>

#include "parity/core/error.hpp"
#include "parity/core/version.hpp"

namespace parity::trainer {
namespace {

// The module a parameter or buffer belongs to: its name without the last
// part ("layer1.0.bn1.running_mean" -> "layer1.0.bn1"), as state_dict names go.
std::string owner_of(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  return std::string(dot == std::string_view::npos ? std::string_view() : name.substr(0, dot));
}

}  // namespace

DumpContents DumpContents::parse(std::string_view text) {
  DumpContents what{false, false, false, false, false, false};
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    if (item == "fwd") what.forward = true;
    else if (item == "bwd") what.backward = true;
    else if (item == "params") what.params = true;
    else if (item == "grads") what.grads = true;
    else if (item == "buffers") what.buffers = true;
    else if (item == "optimizer") what.optimizer = true;
    else
      throw Error("unknown dump content '" + std::string(item) + "'", "--dump-what",
                  "a comma list of fwd, bwd, params, grads, buffers, optimizer");
    start = comma + 1;
  }
  return what;
}

TensorDumper::TensorDumper(Backend& backend, const DumpOptions& options, const ModelState& state)
    : backend_(backend),
      options_(options),
      state_(state),
      writer_(options.dir, {std::string("parity-train ") + kVersion, options.model, options.stats_only,
                                options.settings}) {}

void TensorDumper::begin_step(std::int64_t step) {
  step_ = step;
  active_ = options_.steps.contains(step);
  // Forward moves the running statistics: what they were before it is read now.
  if (active_ && options_.what.buffers) buffers_before_ = read_buffers();
}

importers::DumpRecord TensorDumper::record(std::string_view phase, std::string name,
                                           std::string module, std::string_view op,
                                           std::string_view role, Dims shape) const {
  importers::DumpRecord record;
  record.step = step_;
  record.phase = phase;
  record.name = std::move(name);
  record.module = std::move(module);
  record.op = op;
  record.role = role;
  record.shape = std::move(shape);
  return record;
}

importers::DumpRecord TensorDumper::owned_record(std::string name, std::string module,
                                                 std::string_view role, Dims shape) const {
  const auto op = module_ops_.find(module);
  return record("update", std::move(name), std::move(module),
                op != module_ops_.end() ? op->second : "", role, std::move(shape));
}

void TensorDumper::write(importers::DumpRecord record, const Tensor& tensor) {
  // Statistics do not depend on the order of the elements: a stats-only dump
  // reads them where the backend keeps them, without reordering a copy.
  if (options_.stats_only)
    if (const auto elements = backend_.host_elements(tensor)) {
      writer_.write(std::move(record), *elements);
      return;
    }
  if (options_.float64) {
    write_copy(std::move(record), backend_.to_host_double(tensor));
    return;
  }
  const auto count = static_cast<std::size_t>(tensor.element_count());
  if (host_.size() < count) host_.resize(count);
  const std::span<float> values(host_.data(), count);
  backend_.copy_to_host(tensor, values);
  writer_.write(std::move(record), values);
}

void TensorDumper::write(std::string_view phase, std::string name, std::string module,
                         std::string_view op, std::string_view role, const Tensor& tensor) {
  write(record(phase, std::move(name), std::move(module), op, role, tensor.dims()), tensor);
}

void TensorDumper::input(const Tensor& images) {
  if (active_ && options_.what.forward) write("forward", "input", "input", "input", "input", images);
}

void TensorDumper::forward_output(const Module& module, const Tensor& output) {
  module_ops_.try_emplace(module.name(), module.op_kind());
  if (active_ && options_.what.forward)
    write("forward", module.name(), module.name(), module.op_kind(), "output", output);
}

void TensorDumper::loss(double value) {
  if (!active_ || !options_.what.forward) return;
  const double values[] = {value};
  writer_.write(record("forward", "loss", "loss", "cross_entropy", "loss", {}),
                std::span<const double>(values));
}

void TensorDumper::grad_output(const Module& module, const Tensor& grad) {
  if (active_ && options_.what.backward)
    write("backward", module.name(), module.name(), module.op_kind(), "grad_output", grad);
}

void TensorDumper::parameter_grad(const Module& module, const Parameter& parameter) {
  module_ops_.try_emplace(module.name(), module.op_kind());
  if (active_ && options_.what.grads)
    write("backward", parameter.name, module.name(), module.op_kind(), "grad",
          parameter.tensors->grad);
}

TensorDumper::HostCopy TensorDumper::host_copy(const Tensor& tensor) const {
  if (options_.float64) return backend_.to_host_double(tensor);
  return backend_.to_host(tensor);
}

void TensorDumper::write_copy(importers::DumpRecord record, const HostCopy& values) {
  std::visit([&](const auto& host) { writer_.write(std::move(record), std::span(host)); }, values);
}

void TensorDumper::write_parameters(const ModelState& state, std::string_view role) {
  for (const Parameter& p : state.parameters)
    write(owned_record(p.name, owner_of(p.name), role, p.tensors->value.dims()), p.tensors->value);
}

std::vector<TensorDumper::BufferValues> TensorDumper::read_buffers() const {
  std::vector<BufferValues> buffers;
  for (const StateEntry& entry : state_.entries) {
    if (entry.kind == StateEntry::kBuffer)
      buffers.push_back({host_copy(*entry.tensor), 0});
    else if (entry.kind == StateEntry::kCounter)
      buffers.push_back({{}, *entry.counter});
  }
  return buffers;
}

void TensorDumper::write_buffers(const std::vector<BufferValues>& buffers, std::string_view role) {
  auto values = buffers.begin();
  for (const StateEntry& entry : state_.entries) {
    if (entry.kind == StateEntry::kParameter) continue;
    if (entry.kind == StateEntry::kCounter)  // int64, as PyTorch keeps num_batches_tracked
      writer_.write(owned_record(entry.name, owner_of(entry.name), role, {}),
                    std::span<const std::int64_t>(&values->count, 1));
    else
      write_copy(owned_record(entry.name, owner_of(entry.name), role, entry.shape),
                 values->values);
    ++values;
  }
}

// SGD's state is one momentum buffer per parameter, named as PyTorch's
// optimizer state names it ("momentum_buffer") after the parameter's name.
void TensorDumper::write_optimizer_state(const ModelState& state) {
  for (const Parameter& p : state.parameters)
    write(owned_record(p.name + ".momentum_buffer", owner_of(p.name), "optimizer_state_after",
                       p.tensors->momentum.dims()),
          p.tensors->momentum);
}

void TensorDumper::before_update(const ModelState& state) {
  if (!active_) return;
  if (options_.what.params) write_parameters(state, "param_before");
  if (options_.what.buffers) write_buffers(buffers_before_, "buffer_before");
}

void TensorDumper::after_update(const ModelState& state) {
  if (!active_) return;
  if (options_.what.params) write_parameters(state, "param_after");
  if (options_.what.buffers) write_buffers(read_buffers(), "buffer_after");
  if (options_.what.optimizer) write_optimizer_state(state);
}

}  // namespace parity::trainer
