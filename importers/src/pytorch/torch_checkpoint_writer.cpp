// The zip format torch.save writes (torch/serialization.py, _save, and
// caffe2/serialize/inline_container.cc): the pickle names each storage by a
// persistent id ('storage', torch.FloatStorage, key, 'cpu', element count),
// and the storage's bytes are the member data/<key>.
#include <algorithm>
#include <set>

#include "parity/core/error.hpp"
#include "parity/importers/torch_checkpoint.hpp"
#include "pickle/pickle_writer.hpp"
#include "pytorch/torch_types.hpp"
#include "zip/zip_writer.hpp"

namespace parity::importers {
namespace {

constexpr std::string_view kArchive = "archive/";
// PyTorch aligns every record's data to this (kFieldAlignment), so that a
// reader may map storages straight from the file.
constexpr std::uint64_t kRecordAlignment = 64;
// The file format version PyTorch 1.13 writes (kProducedFileFormatVersion).
constexpr std::string_view kFormatVersion = "3\n";

// C-contiguous strides as PyTorch computes them: a dimension of size 0
// counts as 1, so that strides stay positive.
std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> strides(shape.size());
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<std::int64_t>(shape[i], 1);
  }
  return strides;
}

// torch._utils._rebuild_tensor_v2(storage, 0, size, stride, False, OrderedDict())
void write_tensor(PickleWriter& pickle, const NamedTensor& tensor, const std::string& key) {
  const TorchScalarType& type = torch_scalar_type_of(tensor.dtype);
  pickle.global("torch._utils", "_rebuild_tensor_v2").mark();
  pickle.mark()
      .text("storage")
      .global("torch", type.storage_class)
      .text(key)
      .text("cpu")
      .integer(tensor.element_count())
      .tuple()
      .persistent_id();
  pickle.integer(0)
      .integers(tensor.shape)
      .integers(contiguous_strides(tensor.shape))
      .boolean(false);
  pickle.global("collections", "OrderedDict").empty_tuple().reduce();
  pickle.tuple().reduce();
}

std::string state_dict_pickle(std::span<const NamedTensor> tensors) {
  PickleWriter pickle;
  pickle.global("collections", "OrderedDict").empty_tuple().reduce();
  if (!tensors.empty()) {
    pickle.mark();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      pickle.text(tensors[i].name);
      write_tensor(pickle, tensors[i], std::to_string(i));
    }
    pickle.set_items();
  }
  return pickle.finish();
}

void add_record(ZipWriter& zip, std::string_view name, std::span<const std::byte> bytes) {
  const std::span<const std::byte> pieces[] = {bytes};
  zip.add_stored(std::string(kArchive) + std::string(name), pieces, kRecordAlignment);
}

void add_record(ZipWriter& zip, std::string_view name, std::string_view text) {
  add_record(zip, name, std::as_bytes(std::span(text)));
}

}  // namespace

void write_torch_checkpoint(const std::filesystem::path& path,
                            std::span<const NamedTensor> tensors) {
  std::set<std::string_view> names;
  for (const NamedTensor& tensor : tensors) {
    tensor.check(path.string());
    if (!names.insert(tensor.name).second)
      throw Error("two tensors are named '" + tensor.name + "'", path.string(),
                  "a state_dict holds each name once; rename one of them");
  }
  ZipWriter zip(path);
  add_record(zip, "data.pkl", state_dict_pickle(tensors));
  add_record(zip, "byteorder", std::string_view("little"));
  for (std::size_t i = 0; i < tensors.size(); ++i)
    add_record(zip, "data/" + std::to_string(i), std::span<const std::byte>(tensors[i].data));
  add_record(zip, "version", kFormatVersion);
  zip.finish();
}

}  // namespace parity::importers
