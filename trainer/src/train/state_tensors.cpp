#include "parity/trainer/train/state_tensors.hpp"

#include <map>

#include "parity/trainer/checkpoint/training_checkpoint.hpp"

namespace parity::trainer {
namespace {

using importers::NamedTensor;

NamedTensor float_tensor(Backend& backend, std::string name, const Dims& shape, const Tensor& t) {
  const std::vector<float> values = backend.to_host(t);
  return NamedTensor::from_values<float>(std::move(name), shape, values);
}

std::vector<float> float_values(const NamedTensor& tensor, const Dims& shape, const std::string& where) {
  if (tensor.shape != shape)
    throw Error("tensor '" + tensor.name + "' has shape " + importers::shape_to_string(tensor.shape) +
                    ", the model's is " + importers::shape_to_string(shape),
                where, "was the checkpoint written for another network or class count?");
  if (tensor.dtype != DType::kFloat32)
    throw Error("tensor '" + tensor.name + "' is " + std::string(dtype_name(tensor.dtype)) +
                    ", the model's is float32",
                where);
  return tensor.values<float>();
}

}  // namespace

std::vector<NamedTensor> export_state(Backend& backend, ModelState& state, const Sgd* optimizer) {
  std::vector<NamedTensor> tensors;
  for (const StateEntry& entry : state.entries) {
    if (entry.kind == StateEntry::kCounter) {
      tensors.push_back(NamedTensor::from_values<std::int64_t>(
          entry.name, {}, std::span<const std::int64_t>(entry.counter, 1)));
    } else {
      tensors.push_back(float_tensor(backend, entry.name, entry.shape, *entry.tensor));
    }
  }
  if (optimizer && optimizer->has_momentum())
    for (const Parameter& p : optimizer->parameters())
      tensors.push_back(float_tensor(backend, std::string(kMomentumBufferPrefix) + p.name, p.shape,
                                     p.tensors->momentum));
  return tensors;
}

void import_state(Backend& backend, ModelState& state, Sgd* optimizer,
                  const std::vector<NamedTensor>& tensors, const std::string& where) {
  std::map<std::string_view, const NamedTensor*> by_name;
  for (const NamedTensor& t : tensors) by_name[t.name] = &t;
  const auto take = [&](const std::string& name) -> const NamedTensor* {
    const auto it = by_name.find(name);
    if (it == by_name.end()) return nullptr;
    const NamedTensor* found = it->second;
    by_name.erase(it);
    return found;
  };

  for (const StateEntry& entry : state.entries) {
    const NamedTensor* tensor = take(entry.name);
    if (!tensor)
      throw Error("tensor '" + entry.name + "' is missing", where,
                  "the file must hold the whole state_dict of this network");
    if (entry.kind == StateEntry::kCounter) {
      if (tensor->dtype != DType::kInt64 || !tensor->shape.empty())
        throw Error("tensor '" + entry.name + "' is not an int64 scalar", where);
      *entry.counter = tensor->values<std::int64_t>().at(0);
    } else {
      backend.write(*entry.tensor, float_values(*tensor, entry.shape, where));
    }
  }

  bool all_momentum = optimizer != nullptr;
  if (optimizer) {
    for (const Parameter& p : optimizer->parameters()) {
      const NamedTensor* buffer = take(std::string(kMomentumBufferPrefix) + p.name);
      if (!buffer) {
        all_momentum = false;
        continue;
      }
      backend.write(p.tensors->momentum, float_values(*buffer, p.shape, where));
    }
    optimizer->set_has_momentum(all_momentum);
  }
  for (const auto& [name, tensor] : by_name)
    if (!name.starts_with(kOptimizerTensorPrefix))
      throw Error("tensor '" + std::string(name) + "' is not part of this network", where,
                  "was the checkpoint written for another network?");
}

}  // namespace parity::trainer
