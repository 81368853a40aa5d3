// The globals a checkpoint's pickle may name. Naming a global runs nothing
// here (the reader only records it), but a pickle naming anything else is not
// a PyTorch checkpoint - it may be an attack (os.system, builtins.eval) - and
// is refused. Each entry says which checkpoints need it.
#include <algorithm>
#include <string>

#include "parity/importers/pickle.hpp"
#include "pytorch/torch_types.hpp"

namespace parity::importers {
namespace {

std::vector<AllowedGlobal> build_allow_list() {
  std::vector<AllowedGlobal> list = {
      {"collections", "OrderedDict",
       "Module.state_dict() returns one: pickled as OrderedDict() followed by SETITEMS"},
      {"torch._utils", "_rebuild_tensor_v2", "every dense tensor, PyTorch 0.4.1 and later"},
      {"torch._utils", "_rebuild_tensor", "dense tensors saved by PyTorch 0.4.0"},
      {"torch._utils", "_rebuild_tensor_v3",
       "tensors of dtypes without a typed storage class (uint16, float8), PyTorch 2.1 and "
       "later; read to name the dtype we refuse"},
      {"torch._utils", "_rebuild_parameter", "torch.nn.Parameter"},
      {"torch._utils", "_rebuild_parameter_with_state",
       "torch.nn.Parameter with Python attributes, PyTorch 2.0 and later"},
      {"torch._utils", "_rebuild_qtensor", "quantized tensors; read to name the dtype we refuse"},
      {"torch", "per_tensor_affine", "the quantization scheme argument of _rebuild_qtensor"},
      {"torch", "per_tensor_symmetric", "the quantization scheme argument of _rebuild_qtensor"},
      {"torch", "per_channel_affine", "the quantization scheme argument of _rebuild_qtensor"},
      {"torch", "per_channel_symmetric", "the quantization scheme argument of _rebuild_qtensor"},
      {"torch", "per_channel_affine_float_qparams",
       "the quantization scheme argument of _rebuild_qtensor"},
      {std::string(kTorchUntypedStorageModule), std::string(kTorchUntypedStorageClass),
       "the storage type in persistent ids of untyped storages (PyTorch 2)"},
      {"torch", "device", "devices kept in checkpoints (training configs); an inert value"},
      {"torch", "Size", "shapes kept in checkpoints; an inert value"},
      {"_codecs", "encode",
       "bytes values at protocol 2, which pickles bytes as _codecs.encode(text, 'latin1')"},
      {"builtins", "set", "sets at protocols 2 and 3 (4 and later have opcodes for them)"},
      {"builtins", "frozenset", "frozensets at protocols 2 and 3"},
      {"__builtin__", "set", "sets in pickles written by Python 2"},
      {"__builtin__", "frozenset", "frozensets in pickles written by Python 2"},
      {"builtins", "bytes", "b'' at protocol 2, which pickles it as bytes()"},
      {"__builtin__", "bytes", "b'' at protocol 2, under the module name Python 2 uses"},
  };
  for (const TorchScalarType& type : torch_scalar_types()) {
    list.push_back({"torch", std::string(type.name),
                    "a dtype as a value (the dtype argument of _rebuild_tensor_v3)"});
    if (!type.storage_class.empty())
      list.push_back({"torch", std::string(type.storage_class),
                      "the storage type in persistent ids: it gives the element type"});
  }
  return list;
}

}  // namespace

const std::vector<AllowedGlobal>& allowed_pickle_globals() {
  static const std::vector<AllowedGlobal> list = build_allow_list();
  return list;
}

bool is_allowed_pickle_global(std::string_view module, std::string_view name) {
  const auto& list = allowed_pickle_globals();
  return std::any_of(list.begin(), list.end(), [&](const AllowedGlobal& allowed) {
    return allowed.module == module && allowed.name == name;
  });
}

}  // namespace parity::importers
