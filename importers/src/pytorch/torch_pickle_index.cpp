#include "pytorch/torch_pickle_index.hpp"

#include <optional>
#include <set>

#include "parity/core/error.hpp"

namespace parity::importers {
namespace {

// Shared containers (the memo) let a small pickle describe a huge tree, and
// a shared long key a huge name: the walk stops past these, far beyond any
// checkpoint (a ResNet-50 has 320 tensors, an LLM a few thousand).
constexpr std::size_t kMaxVisits = std::size_t{1} << 22;
constexpr std::size_t kMaxTensors = std::size_t{1} << 20;
constexpr std::size_t kMaxNameBytes = std::size_t{1} << 16;
constexpr std::size_t kMaxAllNameBytes = std::size_t{1} << 28;

constexpr std::string_view kRebuildTensorV2 = "torch._utils._rebuild_tensor_v2";
constexpr std::string_view kRebuildTensor = "torch._utils._rebuild_tensor";
constexpr std::string_view kRebuildTensorV3 = "torch._utils._rebuild_tensor_v3";
constexpr std::string_view kRebuildParameter = "torch._utils._rebuild_parameter";
constexpr std::string_view kRebuildParameterWithState =
    "torch._utils._rebuild_parameter_with_state";
constexpr std::string_view kRebuildQuantized = "torch._utils._rebuild_qtensor";

constexpr std::string_view kMalformedHint =
    "the checkpoint is damaged or was not written by torch.save; save it again";

bool is_tensor_call(std::string_view callee) {
  return callee == kRebuildTensorV2 || callee == kRebuildTensor || callee == kRebuildTensorV3 ||
         callee == kRebuildParameter || callee == kRebuildParameterWithState ||
         callee == kRebuildQuantized;
}

// One step of the path to a value: a dict's str key, or a number (an int
// key, a position).
struct PathStep {
  std::string_view key;
  std::optional<std::int64_t> number;
};

class TorchPickleWalker {
 public:
  TorchPickleWalker(const Pickle& pickle, const std::string& path, const std::string& where,
                    const std::string& root_name)
      : pickle_(pickle), path_(path), where_(where), root_name_(root_name) {}

  TorchPickleIndex run() {
    walk(pickle_.root, 0);
    return std::move(index_);
  }

 private:
  [[noreturn]] void fail_tensor(const std::string& name, const std::string& what,
                                std::string_view hint = kMalformedHint) const {
    throw Error("tensor '" + name + "': " + what, path_ + ", tensor '" + name + "'",
                std::string(hint));
  }

  [[noreturn]] void fail_pickle(const std::string& what, const PickleValue& value) const {
    throw Error(what, where_ + ", offset " + std::to_string(value.offset),
                std::string(kMalformedHint));
  }

  // The path is kept as steps, so that a visit costs no copy of a key; a
  // name is spelled only for a tensor.
  void walk(PickleId id, int depth) {
    const PickleValue& value = pickle_[id];
    if (depth > kMaxPickleNesting)
      fail_pickle("the pickle nests containers more than " + std::to_string(kMaxPickleNesting) +
                      " levels deep (or a container holds itself)",
                  value);
    if (++visits_ > kMaxVisits)
      fail_pickle("the pickle's containers refer to one another more than " +
                      std::to_string(kMaxVisits) + " times",
                  value);
    switch (value.kind) {
      case PickleKind::kDict:
        for (std::size_t i = 0; i < value.entries.size(); ++i) {
          steps_.push_back(key_step(value.entries[i].first, i));
          walk(value.entries[i].second, depth + 1);
          steps_.pop_back();
        }
        return;
      case PickleKind::kList:
      case PickleKind::kTuple:
      case PickleKind::kSet:
        for (std::size_t i = 0; i < value.items.size(); ++i) {
          steps_.push_back({{}, static_cast<std::int64_t>(i)});
          walk(value.items[i], depth + 1);
          steps_.pop_back();
        }
        return;
      case PickleKind::kCall:
        if (is_tensor_call(value.text)) add_tensor(id, spell_name(value), depth);
        return;
      case PickleKind::kPersistentId:
        // A storage saved on its own: no tensor, but the legacy format lists it.
        register_storage(id, spell_name(value));
        return;
      default:
        return;  // numbers, strings, devices, ...: not tensors
    }
  }

  // A dict key as a name component: str and int keys as Python prints them,
  // any other key by its position in the dict.
  PathStep key_step(PickleId key, std::size_t position) const {
    const PickleValue& value = pickle_[key];
    switch (value.kind) {
      case PickleKind::kStr:
        return {value.text, std::nullopt};
      case PickleKind::kInt:
        return {{}, value.integer};
      case PickleKind::kBool:
        return {value.boolean ? "True" : "False", std::nullopt};
      default:
        return {{}, static_cast<std::int64_t>(position)};
    }
  }

  // The dotted name of the current path; the file's stem for the root.
  std::string spell_name(const PickleValue& value) {
    if (steps_.empty()) return root_name_;
    std::string name;
    for (const PathStep& step : steps_) {
      if (!name.empty()) name += '.';
      name += step.number ? std::to_string(*step.number) : std::string(step.key);
      if (name.size() > kMaxNameBytes)
        fail_pickle(
            "a tensor's name would be longer than " + std::to_string(kMaxNameBytes) + " bytes",
            value);
    }
    all_name_bytes_ += name.size();
    if (all_name_bytes_ > kMaxAllNameBytes)
      fail_pickle(
          "the tensors' names add up to more than " + std::to_string(kMaxAllNameBytes) + " bytes",
          value);
    return name;
  }

  const std::vector<PickleId>& call_arguments(const PickleValue& call) const {
    return pickle_[call.argument].items;
  }

  void add_tensor(PickleId id, const std::string& name, int depth) {
    const PickleValue& call = pickle_[id];
    const auto& args = call_arguments(call);
    if (call.text == kRebuildParameter || call.text == kRebuildParameterWithState) {
      // A Parameter wraps the tensor it was made from.
      const std::size_t expected = call.text == kRebuildParameter ? 3 : 4;
      if (args.size() != expected || pickle_[args[0]].kind != PickleKind::kCall ||
          !is_tensor_call(pickle_[args[0]].text))
        fail_tensor(name, "a Parameter must wrap a tensor");
      if (depth > kMaxPickleNesting) fail_tensor(name, "Parameters nest too deeply");
      add_tensor(args[0], name, depth + 1);
      return;
    }
    if (call.text == kRebuildQuantized) {
      const std::string dtype(args.empty() ? "quantized"
                                           : register_storage(args[0], name).type->name);
      fail_tensor(name, "quantized tensors (" + dtype + ") are not supported",
                  "dequantize it before saving: tensor.dequantize()");
    }
    if (index_.tensors.size() >= kMaxTensors)
      fail_pickle("the pickle describes more than " + std::to_string(kMaxTensors) + " tensors",
                  call);
    if (!names_.insert(name).second)
      fail_tensor(name, "two tensors would both be called '" + name + "'",
                  "Parity names tensors by their path of keys; rename one key");
    index_.tensors.push_back(parse_dense_tensor(call, name));
  }

  // _rebuild_tensor(storage, offset, size, stride), _rebuild_tensor_v2(...,
  // requires_grad, backward_hooks[, metadata]) and _rebuild_tensor_v3(...,
  // requires_grad, backward_hooks, dtype[, metadata]).
  TorchTensor parse_dense_tensor(const PickleValue& call, const std::string& name) {
    const auto& args = call_arguments(call);
    const bool v3 = call.text == kRebuildTensorV3;
    const bool arity_ok = call.text == kRebuildTensor ? args.size() == 4
                          : v3                        ? (args.size() == 7 || args.size() == 8)
                                                      : (args.size() == 6 || args.size() == 7);
    if (!arity_ok)
      fail_tensor(name, call.text + " has " + std::to_string(args.size()) + " arguments");

    const TorchStorage& storage = register_storage(args[0], name);
    const TorchScalarType* type = v3 ? dtype_argument(args[6], name) : storage.type;
    if (!type->dtype)
      fail_tensor(name, "its dtype " + std::string(type->name) + " is not supported",
                  "Parity reads float64/32/16, bfloat16, int64/32/16/8, uint8 and bool; convert "
                  "the tensor to one of them before saving");

    TorchTensor tensor;
    tensor.entry.name = name;
    tensor.entry.dtype = *type->dtype;
    tensor.storage_key = storage.key;
    tensor.storage_offset = integer(args[1], name, "the storage offset");
    tensor.entry.shape = integers(args[2], name, "the size");
    tensor.strides = integers(args[3], name, "the stride");
    check_view(tensor, storage, type->element_size);
    return tensor;
  }

  const TorchScalarType* dtype_argument(PickleId id, const std::string& name) const {
    const PickleValue& value = pickle_[id];
    const TorchScalarType* type = nullptr;
    if (value.kind == PickleKind::kGlobal && value.text.starts_with("torch."))
      type = find_torch_dtype(std::string_view(value.text).substr(6));
    if (!type)
      fail_tensor(name, "the dtype argument is a " + std::string(pickle_kind_name(value.kind)) +
                            ", not a torch dtype");
    return type;
  }

  std::int64_t integer(PickleId id, const std::string& name, const std::string& what) const {
    const PickleValue& value = pickle_[id];
    if (value.kind != PickleKind::kInt)
      fail_tensor(name,
                  what + " is a " + std::string(pickle_kind_name(value.kind)) + ", not an integer");
    if (value.integer < 0)
      fail_tensor(name, what + " is negative (" + std::to_string(value.integer) + ")");
    return value.integer;
  }

  std::vector<std::int64_t> integers(PickleId id, const std::string& name,
                                     const std::string& what) const {
    const PickleValue& value = pickle_[id];
    if (value.kind != PickleKind::kTuple)
      fail_tensor(name,
                  what + " is a " + std::string(pickle_kind_name(value.kind)) + ", not a tuple");
    std::vector<std::int64_t> out;
    out.reserve(value.items.size());
    for (const PickleId item : value.items)
      out.push_back(integer(item, name, "every entry of " + what));
    return out;
  }

  // The view must stay inside its storage: the last element it reaches is
  // offset + sum((size - 1) * stride).
  void check_view(const TorchTensor& tensor, const TorchStorage& storage,
                  std::size_t element_size) const {
    const std::string& name = tensor.entry.name;
    const auto& shape = tensor.entry.shape;
    if (shape.size() != tensor.strides.size())
      fail_tensor(name, "it has " + std::to_string(shape.size()) + " sizes but " +
                            std::to_string(tensor.strides.size()) + " strides");
    const auto bytes = checked_byte_size(tensor.entry.dtype, shape);
    if (!bytes) fail_tensor(name, "its shape " + shape_to_string(shape) + " is too large");
    if (*bytes == 0) return;
    std::int64_t last = tensor.storage_offset;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::int64_t reach = 0;
      if (__builtin_mul_overflow(shape[d] - 1, tensor.strides[d], &reach) ||
          __builtin_add_overflow(last, reach, &last))
        fail_tensor(name, "its strides reach past any storage");
    }
    std::int64_t end_byte = 0;
    if (__builtin_add_overflow(last, 1, &end_byte) ||
        __builtin_mul_overflow(end_byte, static_cast<std::int64_t>(element_size), &end_byte) ||
        static_cast<std::uint64_t>(end_byte) > storage.byte_size)
      fail_tensor(name, "its view (offset " + std::to_string(tensor.storage_offset) + ", shape " +
                            shape_to_string(shape) + ", stride " + shape_to_string(tensor.strides) +
                            ") runs past the end of storage '" + storage.key + "' (" +
                            std::to_string(storage.byte_size) + " bytes)");
  }

  // A persistent id ('storage', storage_type, key, location, numel), with a
  // sixth entry in legacy files (a view of another storage; None in files of
  // any recent PyTorch).
  const TorchStorage& register_storage(PickleId id, const std::string& name) {
    const PickleValue& persistent = pickle_[id];
    if (persistent.kind != PickleKind::kPersistentId)
      fail_tensor(name, "its storage is a " + std::string(pickle_kind_name(persistent.kind)) +
                            ", not a persistent id");
    const PickleValue& tuple = pickle_[persistent.argument];
    const auto& fields = tuple.items;
    if (tuple.kind != PickleKind::kTuple || (fields.size() != 5 && fields.size() != 6) ||
        pickle_[fields[0]].kind != PickleKind::kStr || pickle_[fields[0]].text != "storage")
      fail_tensor(name, "its persistent id is not ('storage', type, key, location, size)");
    if (fields.size() == 6 && pickle_[fields[5]].kind != PickleKind::kNone)
      fail_tensor(name, "it uses a storage view, which only very old PyTorch versions wrote",
                  "load and save the file with a newer PyTorch");
    const PickleValue& key = pickle_[fields[2]];
    if (key.kind != PickleKind::kStr) fail_tensor(name, "its storage key is not a str");

    TorchStorage storage;
    storage.key = key.text;
    storage.type = storage_type(pickle_[fields[1]], name);
    storage.element_count =
        static_cast<std::uint64_t>(integer(fields[4], name, "the storage size"));
    if (__builtin_mul_overflow(storage.element_count, storage.type->element_size,
                               &storage.byte_size))
      fail_tensor(name, "its storage size is too large");

    const auto [found, inserted] = index_.storages.emplace(storage.key, storage);
    if (!inserted && (found->second.type != storage.type ||
                      found->second.element_count != storage.element_count))
      fail_tensor(name, "storage '" + storage.key + "' is described twice, differently");
    return found->second;
  }

  const TorchScalarType* storage_type(const PickleValue& value, const std::string& name) const {
    if (value.kind != PickleKind::kGlobal)
      fail_tensor(name, "its storage type is a " + std::string(pickle_kind_name(value.kind)));
    if (value.text ==
        std::string(kTorchUntypedStorageModule) + "." + std::string(kTorchUntypedStorageClass))
      return find_torch_dtype("uint8");
    const TorchScalarType* type = nullptr;
    if (value.text.starts_with("torch."))
      type = find_torch_storage_class(std::string_view(value.text).substr(6));
    if (!type) fail_tensor(name, "'" + value.text + "' is not a storage type");
    return type;
  }

  const Pickle& pickle_;
  const std::string& path_;
  const std::string& where_;
  const std::string& root_name_;
  TorchPickleIndex index_;
  std::set<std::string, std::less<>> names_;
  std::vector<PathStep> steps_;
  std::size_t visits_ = 0;
  std::size_t all_name_bytes_ = 0;
};

}  // namespace

TorchPickleIndex index_torch_pickle(const Pickle& pickle, const std::string& path,
                                    const std::string& where, const std::string& root_name) {
  return TorchPickleWalker(pickle, path, where, root_name).run();
}

}  // namespace parity::importers
