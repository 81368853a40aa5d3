// write_mindspore_checkpoint: each value's header (tag, dims, type and the
// length of its content) is encoded into a small buffer, then the content is
// written straight from the tensor, so nothing is copied whole.
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>

#include "io/posix_file.hpp"
#include "mindspore/mindspore_checkpoint_format.hpp"
#include "mindspore/mindspore_crc_trailer.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/mindspore_checkpoint.hpp"
#include "protobuf/protobuf_wire_writer.hpp"

namespace parity::importers {
namespace {

namespace fs = std::filesystem;
using protobuf::append_key;
using protobuf::append_length_delimited;
using protobuf::append_length_delimited_header;
using protobuf::append_varint;
using protobuf::length_delimited_field_size;
using protobuf::varint_field_size;
using protobuf::WireType;

// Writes bytes to the checkpoint file, keeping the CRC-32 of everything
// written for the trailer.
class CheckpointOutput {
 public:
  CheckpointOutput(int fd, const fs::path& path) : fd_(fd), path_(path) {}
  void write(std::span<const std::byte> bytes) {
    write_exactly(fd_, path_, bytes);
    crc_ = mindspore::crc32_update(crc_, bytes);
  }
  void write(const std::string& bytes) { write(std::as_bytes(std::span(bytes))); }
  std::uint32_t crc() const { return crc_; }

 private:
  int fd_;
  const fs::path& path_;
  std::uint32_t crc_ = 0;
};

// The bytes of one Checkpoint message holding one Value, up to (not
// including) its tensor_content of `content_size` bytes. Fields in field
// number order, dims unpacked: what protobuf's serializer produces.
std::string value_header(const NamedTensor& tensor, std::uint64_t content_size) {
  const std::string_view type = mindspore::tensor_type_of(tensor.dtype);
  std::uint64_t tensor_size = length_delimited_field_size(mindspore::kTensorType, type.size()) +
                              length_delimited_field_size(mindspore::kTensorContent, content_size);
  for (const std::int64_t dim : tensor.shape)
    tensor_size += varint_field_size(mindspore::kTensorDims, static_cast<std::uint64_t>(dim));
  const std::uint64_t value_size =
      length_delimited_field_size(mindspore::kValueTag, tensor.name.size()) +
      length_delimited_field_size(mindspore::kValueTensor, tensor_size);

  std::string header;
  append_length_delimited_header(header, mindspore::kCheckpointValue, value_size);
  append_length_delimited(header, mindspore::kValueTag, tensor.name);
  append_length_delimited_header(header, mindspore::kValueTensor, tensor_size);
  for (const std::int64_t dim : tensor.shape) {
    append_key(header, mindspore::kTensorDims, WireType::kVarint);
    append_varint(header, static_cast<std::uint64_t>(dim));
  }
  append_length_delimited(header, mindspore::kTensorType, type);
  append_length_delimited_header(header, mindspore::kTensorContent, content_size);
  return header;
}

// One value per `slice_bytes` of content, each with the whole tensor's dims,
// as save_checkpoint splits; an empty tensor still gets its one value.
void write_tensor(CheckpointOutput& out, const NamedTensor& tensor, std::uint64_t slice_bytes) {
  const std::span<const std::byte> data(tensor.data);
  std::uint64_t offset = 0;
  do {
    const auto slice =
        data.subspan(offset, std::min<std::uint64_t>(slice_bytes, data.size() - offset));
    out.write(value_header(tensor, slice.size()));
    out.write(slice);
    offset += slice.size();
  } while (offset < data.size());
}

void check_tensors(const fs::path& path, std::span<const NamedTensor> tensors) {
  std::set<std::string_view> names;
  for (const NamedTensor& tensor : tensors) {
    tensor.check(path.string());
    const std::string where = path.string() + ", tag '" + tensor.name + "'";
    if (tensor.name == mindspore::kRandomStateTag)
      throw Error("a tensor cannot be named 'random_op'", where,
                  "MindSpore's load_checkpoint reads that tag as the random generators' state; "
                  "rename the tensor");
    if (!names.insert(tensor.name).second)
      throw Error("two tensors are named '" + tensor.name + "'", where,
                  "a checkpoint holds each name once");
  }
}

}  // namespace

void write_mindspore_checkpoint(const fs::path& path, std::span<const NamedTensor> tensors,
                                const MindsporeWriteOptions& options) {
  if (options.slice_bytes == 0)
    throw Error("slice_bytes is 0", path.string(),
                "pass a positive slice size (MindSpore: 512 MiB)");
  check_tensors(path, tensors);
  FileDescriptor fd = create_for_writing(path, "MindSpore checkpoint");
  try {
    CheckpointOutput out(fd.get(), path);
    for (const NamedTensor& tensor : tensors) write_tensor(out, tensor, options.slice_bytes);
    if (options.crc_trailer) out.write(mindspore::crc_trailer(out.crc()));
    fd.close_checked(path);
  } catch (...) {
    fd = FileDescriptor();
    ::unlink(path.c_str());
    throw;
  }
}

}  // namespace parity::importers
