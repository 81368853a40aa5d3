#include "mindspore/mindspore_checkpoint_scan.hpp"

#include <array>
#include <cstdio>
#include <map>
#include <span>
#include <string>

#include "mindspore/mindspore_checkpoint_format.hpp"
#include "mindspore/mindspore_crc_trailer.hpp"
#include "mindspore/mindspore_value_parser.hpp"
#include "parity/core/error.hpp"

namespace parity::importers::mindspore {
namespace {

namespace fs = std::filesystem;
using protobuf::ByteRange;
using protobuf::FieldKey;
using protobuf::WireError;
using protobuf::WireReader;
using protobuf::WireType;

constexpr std::string_view kDamagedHint =
    "the file is truncated or damaged; copy it again from its source, or save it again with "
    "MindSpore's save_checkpoint";
constexpr std::string_view kNotCheckpointHint =
    "the file is not a MindSpore checkpoint (a .ckpt file is a series of protobuf Checkpoint "
    "messages), or it is damaged";

std::string location(const fs::path& path, std::string_view tag, std::uint64_t offset) {
  std::string where = path.string();
  if (!tag.empty()) where += ", tag '" + std::string(tag) + "'";
  return where + ", offset " + std::to_string(offset);
}

std::string hex32(std::uint64_t value) {
  std::array<char, 24> text{};
  std::snprintf(text.data(), text.size(), "0x%08llx", static_cast<unsigned long long>(value));
  return text.data();
}

void refuse_encrypted(ReadAheadWindow& file) {
  if (file.file_size() < 4) return;
  std::array<std::byte, 4> head{};
  file.read(0, head);
  std::uint32_t marker = 0;
  for (std::size_t i = head.size(); i-- > 0;)
    marker = (marker << 8) | std::to_integer<std::uint32_t>(head[i]);
  if (const auto mode = encryption_mode_of_marker(marker))
    throw Error(
        "encrypted MindSpore checkpoint: decrypt it with MindSpore's load_checkpoint(dec_key=...) "
        "and save it unencrypted",
        location(file.path(), "", 0),
        "the file starts with the block marker " + hex32(marker) + " of MindSpore's " +
            std::string(*mode) + " encryption; Parity does not decrypt checkpoints");
}

// How much of the CRC trailer's marker the bytes at `offset` match: all of
// it, a part cut short by the end of the file, or none.
enum class TrailerMatch { kNone, kWhole, kCutShort };

TrailerMatch match_trailer_marker(ReadAheadWindow& file, std::uint64_t offset) {
  const std::uint64_t left = file.file_size() - offset;
  const std::size_t compared = left < kCrcMarker.size() ? left : kCrcMarker.size();
  std::array<char, kCrcMarker.size()> bytes{};
  file.read(offset, std::as_writable_bytes(std::span(bytes).first(compared)));
  if (std::string_view(bytes.data(), compared) != kCrcMarker.substr(0, compared))
    return TrailerMatch::kNone;
  return compared == kCrcMarker.size() ? TrailerMatch::kWhole : TrailerMatch::kCutShort;
}

void verify_crc_trailer(int fd, ReadAheadWindow& file, std::uint64_t offset) {
  const std::uint64_t size = file.file_size() - offset;
  if (size != kCrcTrailerBytes)
    throw Error("the CRC trailer has " + std::to_string(size) + " bytes, not " +
                    std::to_string(kCrcTrailerBytes) + " (\"crc_num\" and a 10-byte value)",
                location(file.path(), "", offset), std::string(kDamagedHint));
  std::array<std::byte, kCrcValueBytes> value_bytes{};
  file.read(offset + kCrcMarker.size(), value_bytes);
  const std::uint64_t recorded = crc_trailer_value(value_bytes);
  const std::uint32_t computed = crc32_of_file_prefix(fd, file.path(), offset);
  if (recorded != computed)
    throw Error("CRC-32 mismatch: the trailer records " + hex32(recorded) + ", but the " +
                    std::to_string(offset) + " bytes before it hash to " + hex32(computed),
                location(file.path(), "", offset),
                "the file is damaged; copy it again from its source");
}

// Turns values into tensors: consecutive values with one tag are slices of
// one tensor; values that are not tensors are left out.
class TensorIndex {
 public:
  explicit TensorIndex(const fs::path& path) : path_(path) {}

  void add(const EncodedValue& value, std::uint64_t offset);
  std::vector<ScannedTensor> finish();

 private:
  const fs::path& path_;
  std::vector<ScannedTensor> tensors_;
  std::map<std::string, std::size_t, std::less<>> index_;
  // The value added last was a tensor: a value with its tag continues it.
  bool last_is_tensor_ = false;
};

void TensorIndex::add(const EncodedValue& value, std::uint64_t offset) {
  const bool is_tensor = value.tensor && value.tag != kRandomStateTag &&
                         value.tensor->tensor_type != kStringTensorType;
  const bool continues = last_is_tensor_ && is_tensor && tensors_.back().entry.name == value.tag;
  last_is_tensor_ = is_tensor;
  if (!is_tensor) return;

  const EncodedTensor& encoded = *value.tensor;
  const std::string where = location(path_, value.tag, offset);
  const auto dtype = dtype_of_tensor_type(encoded.tensor_type);
  if (!dtype) {
    if (is_unsupported_tensor_type(encoded.tensor_type))
      throw Error("tensor_type '" + encoded.tensor_type + "' has no Parity dtype", where,
                  "Parity reads the MindSpore types " + supported_tensor_types() +
                      "; cast the tensor to one of them in MindSpore and save it again");
    throw Error("unknown tensor_type '" + encoded.tensor_type + "'", where,
                "MindSpore writes the types " + supported_tensor_types() +
                    " (and a few Parity cannot hold); the file is damaged or from an unknown "
                    "writer");
  }

  if (continues) {
    ScannedTensor& tensor = tensors_.back();
    if (*dtype != tensor.entry.dtype || encoded.dims != tensor.entry.shape)
      throw Error("a slice of the tensor is " + encoded.tensor_type + " " +
                      shape_to_string(encoded.dims) + ", its first slice " +
                      std::string(tensor_type_of(tensor.entry.dtype)) + " " +
                      shape_to_string(tensor.entry.shape),
                  where,
                  "every slice of a split tensor carries the whole tensor's type and dims; " +
                      std::string(kDamagedHint));
    tensor.slices.push_back(encoded.content);
    return;
  }
  if (index_.contains(value.tag))
    throw Error("the tag appears again after other values", where,
                "a checkpoint holds each tag once (values with one tag in a row are the slices of "
                "one tensor); " +
                    std::string(kDamagedHint));
  index_.emplace(value.tag, tensors_.size());
  // The shape stays the encoded dims until finish() has seen every slice.
  tensors_.push_back({{value.tag, *dtype, encoded.dims}, {encoded.content}});
}

std::vector<ScannedTensor> TensorIndex::finish() {
  for (ScannedTensor& tensor : tensors_) {
    TensorEntry& entry = tensor.entry;
    std::uint64_t content_bytes = 0;
    for (const ByteRange& slice : tensor.slices) content_bytes += slice.size;
    // Older MindSpore wrote a scalar's dims as [0]; its load_checkpoint reads
    // dims [0] as a scalar. One element of content tells it from an empty vector.
    if (entry.shape == std::vector<std::int64_t>{0} && content_bytes == dtype_size(entry.dtype))
      entry.shape.clear();
    const std::string where = location(path_, entry.name, tensor.slices.front().offset);
    const auto needed = checked_byte_size(entry.dtype, entry.shape);
    if (!needed)
      throw Error("dims " + shape_to_string(entry.shape) + " hold more bytes than int64 counts",
                  where, std::string(kDamagedHint));
    if (static_cast<std::uint64_t>(*needed) != content_bytes)
      throw Error(
          std::string(tensor_type_of(entry.dtype)) + " " + shape_to_string(entry.shape) +
              " needs " + std::to_string(*needed) + " bytes, but tensor_content holds " +
              std::to_string(content_bytes) +
              (tensor.slices.size() > 1 ? " in " + std::to_string(tensor.slices.size()) + " slices"
                                        : std::string()),
          where, std::string(kDamagedHint));
  }
  return std::move(tensors_);
}

}  // namespace

std::vector<ScannedTensor> scan_checkpoint(int fd, const fs::path& path, std::uint64_t file_size) {
  if (file_size == 0)
    throw Error("the file is empty", location(path, "", 0), std::string(kDamagedHint));
  ReadAheadWindow file(fd, path, file_size);
  refuse_encrypted(file);

  TensorIndex index(path);
  WireReader records(file, {0, file_size});
  while (!records.at_end()) {
    const std::uint64_t offset = records.position();
    switch (match_trailer_marker(file, offset)) {
      case TrailerMatch::kWhole:
        verify_crc_trailer(fd, file, offset);
        return index.finish();
      case TrailerMatch::kCutShort:
        throw Error("the file ends inside its CRC trailer", location(path, "", offset),
                    std::string(kDamagedHint));
      case TrailerMatch::kNone:
        break;
    }
    EncodedValue value;
    try {
      const FieldKey key = records.read_key();
      if (key.number != kCheckpointValue || key.type != WireType::kLengthDelimited)
        throw Error("field " + std::to_string(key.number) + " (" +
                        std::string(protobuf::wire_type_name(key.type)) +
                        ") where a checkpoint holds only values (field 1, length-delimited)",
                    location(path, "", offset), std::string(kNotCheckpointHint));
      parse_value(file, records.read_length_delimited(), value);
    } catch (const WireError& e) {
      throw Error(e.what(), location(path, value.tag, e.offset()), std::string(kDamagedHint));
    }
    index.add(value, offset);
  }
  return index.finish();
}

}  // namespace parity::importers::mindspore
