#include "parity/importers/safetensors.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "io/posix_file.hpp"
#include "parity/core/error.hpp"

namespace parity::importers {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kFileKind = "safetensors file";
constexpr std::string_view kMetadataKey = "__metadata__";
// The header is an object of tensor objects holding a shape array: depth 3.
// Anything deeper is refused before it can exhaust memory or the stack.
constexpr int kMaxHeaderDepth = 3;

constexpr std::string_view kTruncatedHint =
    "the file is truncated or damaged; write it again, or copy it again from its source";
constexpr std::string_view kNotSafetensorsHint =
    "the file is not safetensors, or it is damaged (safetensors starts with an 8-byte header "
    "length, then a JSON object)";

struct DTypeCode {
  DType dtype;
  std::string_view code;
};
constexpr std::array<DTypeCode, 10> kDTypeCodes{{
    {DType::kFloat64, "F64"},
    {DType::kFloat32, "F32"},
    {DType::kFloat16, "F16"},
    {DType::kBFloat16, "BF16"},
    {DType::kInt64, "I64"},
    {DType::kInt32, "I32"},
    {DType::kInt16, "I16"},
    {DType::kInt8, "I8"},
    {DType::kUInt8, "U8"},
    {DType::kBool, "BOOL"},
}};

std::string supported_codes() {
  std::string text;
  for (const auto& entry : kDTypeCodes) {
    if (!text.empty()) text += ", ";
    text += entry.code;
  }
  return text;
}

std::string system_error(int error) { return std::strerror(error); }

std::string at_tensor(const fs::path& path, std::string_view name) {
  return path.string() + ", tensor '" + std::string(name) + "'";
}

std::string at_offset(const fs::path& path, std::uint64_t offset) {
  return path.string() + ", offset " + std::to_string(offset);
}

std::string range_text(std::uint64_t begin, std::uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

// Parses the header, refusing duplicate keys at every level (a JSON object
// would silently keep the last one) and nesting deeper than the format's, and
// returns the top-level keys in file order.
json parse_header(const std::string& text, const fs::path& path,
                  std::vector<std::string>& top_level_keys) {
  std::vector<std::set<std::string>> open_objects;
  const json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxHeaderDepth)
      throw Error("the header nests JSON deeper than safetensors allows (depth " +
                      std::to_string(depth) + ")",
                  path.string(), std::string(kNotSafetensorsHint));
    switch (event) {
      case json::parse_event_t::object_start:
        open_objects.emplace_back();
        break;
      case json::parse_event_t::object_end:
        open_objects.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!open_objects.back().insert(key).second) {
          if (open_objects.size() == 1 && key != kMetadataKey)
            throw Error("duplicate tensor name '" + key + "' in the header", at_tensor(path, key),
                        "a safetensors file holds each name once; the file was written wrongly");
          throw Error("duplicate key '" + key + "' in the header", path.string(),
                      "the file was written wrongly");
        }
        if (open_objects.size() == 1) top_level_keys.push_back(key);
        break;
      }
      default:
        break;
    }
    return true;
  };
  try {
    return json::parse(text, callback);
  } catch (const json::parse_error& e) {
    // e.byte counts from 1 within the header, which starts at file offset 8.
    const std::uint64_t offset = 8 + (e.byte > 0 ? e.byte - 1 : 0);
    std::string message = e.what();
    if (const auto colon = message.find("syntax error"); colon != std::string::npos)
      message = message.substr(colon);
    throw Error("the header is not valid JSON: " + message, at_offset(path, offset),
                std::string(kNotSafetensorsHint));
  } catch (const json::exception& e) {
    throw Error(std::string("the header is not valid JSON: ") + e.what(), path.string(),
                std::string(kNotSafetensorsHint));
  }
}

// A non-negative JSON integer, refused (naming `what`) otherwise.
std::uint64_t unsigned_field(const json& value, const fs::path& path, std::string_view name,
                             std::string_view what) {
  if (!value.is_number_unsigned())
    throw Error(std::string(what) + " must be a non-negative integer, not " + value.dump(),
                at_tensor(path, name), std::string(kNotSafetensorsHint));
  return value.get<std::uint64_t>();
}

SafetensorsTensorInfo parse_tensor_entry(const std::string& name, const json& entry,
                                         const fs::path& path, std::uint64_t data_size) {
  const std::string where = at_tensor(path, name);
  if (!entry.is_object())
    throw Error(
        "the header entry of a tensor must be an object with dtype, shape and "
        "data_offsets, not " +
            std::string(entry.type_name()),
        where, std::string(kNotSafetensorsHint));
  for (const auto& [key, value] : entry.items())
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      throw Error("unknown key '" + key + "' in the tensor's header entry", where,
                  "a tensor entry holds dtype, shape and data_offsets only");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!entry.contains(key))
      throw Error(std::string("the tensor's header entry has no '") + key + "'", where,
                  std::string(kNotSafetensorsHint));

  SafetensorsTensorInfo info;
  info.name = name;
  const json& dtype = entry["dtype"];
  if (!dtype.is_string())
    throw Error("dtype must be a string, not " + dtype.dump(), where,
                std::string(kNotSafetensorsHint));
  const auto parsed = parse_safetensors_dtype(dtype.get_ref<const std::string&>());
  if (!parsed)
    throw Error("unknown or unsupported dtype '" + dtype.get<std::string>() + "'", where,
                "Parity reads the safetensors dtypes " + supported_codes() +
                    "; convert the tensor to one of them");
  info.dtype = *parsed;

  const json& shape = entry["shape"];
  if (!shape.is_array())
    throw Error("shape must be an array, not " + shape.dump(), where,
                std::string(kNotSafetensorsHint));
  for (const json& dim : shape) {
    const std::uint64_t value = unsigned_field(dim, path, name, "every shape dimension");
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw Error("shape dimension " + std::to_string(value) + " is too large", where,
                  std::string(kNotSafetensorsHint));
    info.shape.push_back(static_cast<std::int64_t>(value));
  }

  const json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2)
    throw Error("data_offsets must be an array [begin, end], not " + offsets.dump(), where,
                std::string(kNotSafetensorsHint));
  info.begin = unsigned_field(offsets[0], path, name, "data_offsets begin");
  info.end = unsigned_field(offsets[1], path, name, "data_offsets end");
  if (info.end < info.begin)
    throw Error("data_offsets " + range_text(info.begin, info.end) + " end before they begin",
                where, std::string(kNotSafetensorsHint));
  if (info.end > data_size)
    throw Error("data_offsets " + range_text(info.begin, info.end) +
                    " run past the end of the data, which holds " + std::to_string(data_size) +
                    " bytes",
                where, std::string(kTruncatedHint));

  const auto bytes = checked_byte_size(info.dtype, info.shape);
  if (!bytes)
    throw Error("shape " + shape_to_string(info.shape) + " holds more bytes than int64 counts",
                where, std::string(kNotSafetensorsHint));
  if (static_cast<std::uint64_t>(*bytes) != info.byte_size())
    throw Error(std::string(safetensors_dtype_code(info.dtype)) + " " +
                    shape_to_string(info.shape) + " needs " + std::to_string(*bytes) +
                    " bytes, but data_offsets " + range_text(info.begin, info.end) + " span " +
                    std::to_string(info.byte_size()),
                where, "the header disagrees with itself; the file was written wrongly");
  return info;
}

// The tensors' ranges must tile the data exactly: no overlap, no hole, nothing after.
void check_coverage(const std::vector<SafetensorsTensorInfo>& tensors, const fs::path& path,
                    std::uint64_t data_offset, std::uint64_t data_size) {
  std::vector<const SafetensorsTensorInfo*> sorted;
  for (const auto& info : tensors) sorted.push_back(&info);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return std::pair(a->begin, a->end) < std::pair(b->begin, b->end);
  });
  std::uint64_t cursor = 0;
  const SafetensorsTensorInfo* previous = nullptr;
  for (const auto* info : sorted) {
    if (info->begin < cursor)
      throw Error("tensors '" + previous->name + "' " + range_text(previous->begin, previous->end) +
                      " and '" + info->name + "' " + range_text(info->begin, info->end) +
                      " overlap",
                  at_tensor(path, info->name),
                  "each tensor must own its bytes; the file was written wrongly");
    if (info->begin > cursor)
      throw Error("data bytes " + range_text(cursor, info->begin) + " belong to no tensor",
                  at_offset(path, data_offset + cursor),
                  "safetensors data must be covered by tensors without holes; the file was "
                  "written wrongly");
    cursor = info->end;
    previous = info;
  }
  if (cursor != data_size)
    throw Error("data bytes " + range_text(cursor, data_size) +
                    " at the end of the file belong to no tensor",
                at_offset(path, data_offset + cursor),
                "the file has trailing bytes, or a tensor is missing from its header");
}

}  // namespace

std::string_view safetensors_dtype_code(DType dtype) {
  for (const auto& entry : kDTypeCodes)
    if (entry.dtype == dtype) return entry.code;
  return "?";
}

std::optional<DType> parse_safetensors_dtype(std::string_view code) {
  for (const auto& entry : kDTypeCodes)
    if (entry.code == code) return entry.dtype;
  return std::nullopt;
}

std::int64_t SafetensorsTensorInfo::element_count() const {
  return checked_element_count(shape).value_or(0);
}

SafetensorsFile SafetensorsFile::open(const fs::path& path) {
  OpenedFile opened = open_for_reading(path, kFileKind);
  SafetensorsFile file;
  file.path_ = path;
  file.fd_ = std::move(opened.fd);
  file.file_size_ = opened.size;
  if (file.file_size_ < 8)
    throw Error("the file is too short to be safetensors: " + std::to_string(file.file_size_) +
                    " bytes, less than the 8-byte header length",
                path.string(), std::string(kTruncatedHint));

  std::array<std::byte, 8> length_bytes{};
  read_exactly(file.fd_.get(), path, 0, length_bytes, "the header length");
  std::uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i)
    header_size = (header_size << 8) | std::to_integer<std::uint64_t>(length_bytes[i]);
  if (header_size > kSafetensorsMaxHeaderBytes)
    throw Error("the header length " + std::to_string(header_size) + " is beyond the limit of " +
                    std::to_string(kSafetensorsMaxHeaderBytes) + " bytes",
                at_offset(path, 0), std::string(kNotSafetensorsHint));
  if (header_size > file.file_size_ - 8)
    throw Error("the header length " + std::to_string(header_size) +
                    " runs past the end of the file, which holds " +
                    std::to_string(file.file_size_) + " bytes",
                at_offset(path, 0),
                "the file is truncated, or it is not safetensors (a .pth, .ckpt or .npy file?)");
  file.data_offset_ = 8 + header_size;
  const std::uint64_t data_size = file.file_size_ - file.data_offset_;

  std::string text(header_size, '\0');
  read_exactly(file.fd_.get(), path, 8, std::as_writable_bytes(std::span(text)), "the header");
  std::vector<std::string> keys;
  const json header = parse_header(text, path, keys);
  if (!header.is_object())
    throw Error("the header is a JSON " + std::string(header.type_name()) + ", not an object",
                at_offset(path, 8), std::string(kNotSafetensorsHint));

  for (const std::string& key : keys) {
    const json& entry = header[key];
    if (key == kMetadataKey) {
      if (!entry.is_object())
        throw Error(
            "__metadata__ must be an object of strings, not " + std::string(entry.type_name()),
            path.string(), std::string(kNotSafetensorsHint));
      for (const auto& [name, value] : entry.items()) {
        if (!value.is_string())
          throw Error("__metadata__ value of '" + name + "' must be a string, not " + value.dump(),
                      path.string(), std::string(kNotSafetensorsHint));
        file.metadata_[name] = value.get<std::string>();
      }
      continue;
    }
    file.tensors_.push_back(parse_tensor_entry(key, entry, path, data_size));
  }
  check_coverage(file.tensors_, path, file.data_offset_, data_size);
  for (std::size_t i = 0; i < file.tensors_.size(); ++i) file.index_[file.tensors_[i].name] = i;
  return file;
}

const SafetensorsTensorInfo* SafetensorsFile::find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const SafetensorsTensorInfo& SafetensorsFile::info_or_throw(std::string_view name) const {
  if (const auto* info = find(name)) return *info;
  std::string hint = "the file holds " + std::to_string(tensors_.size()) + " tensors";
  if (!tensors_.empty()) hint += ", e.g. '" + tensors_.front().name + "'";
  throw Error("no tensor named '" + std::string(name) + "'", path_.string(), hint);
}

void SafetensorsFile::read_into(std::string_view name, std::span<std::byte> out) const {
  const SafetensorsTensorInfo& info = info_or_throw(name);
  if (out.size() != info.byte_size())
    throw Error("destination holds " + std::to_string(out.size()) + " bytes, the tensor " +
                    std::to_string(info.byte_size()),
                at_tensor(path_, name));
  read_exactly(fd_.get(), path_, data_offset_ + info.begin, out, "tensor '" + info.name + "'");
  if (info.dtype == DType::kBool) {
    for (std::size_t i = 0; i < out.size(); ++i)
      if (std::to_integer<unsigned>(out[i]) > 1)
        throw Error(
            "BOOL element " + std::to_string(i) + " is " +
                std::to_string(std::to_integer<unsigned>(out[i])) + ", not 0 or 1",
            at_tensor(path_, name) + ", offset " + std::to_string(data_offset_ + info.begin + i),
            "the tensor's bytes are damaged");
  }
}

NamedTensor SafetensorsFile::read(std::string_view name) const {
  const SafetensorsTensorInfo& info = info_or_throw(name);
  NamedTensor tensor;
  tensor.name = info.name;
  tensor.dtype = info.dtype;
  tensor.shape = info.shape;
  tensor.data.resize(info.byte_size());
  read_into(name, tensor.data);
  return tensor;
}

std::vector<NamedTensor> SafetensorsFile::read_all() const {
  std::vector<NamedTensor> out;
  out.reserve(tensors_.size());
  for (const auto& info : tensors_) out.push_back(read(info.name));
  return out;
}

void write_safetensors(const fs::path& path, std::span<const NamedTensor> tensors,
                       const std::map<std::string, std::string>& metadata,
                       const SafetensorsWriteOptions& options) {
  std::set<std::string_view> names;
  for (const NamedTensor& tensor : tensors) {
    tensor.check(path.string());
    if (tensor.name == kMetadataKey)
      throw Error("a tensor cannot be named __metadata__", at_tensor(path, tensor.name),
                  "that key holds the file's metadata; rename the tensor");
    if (!names.insert(tensor.name).second)
      throw Error("two tensors are named '" + tensor.name + "'", at_tensor(path, tensor.name),
                  "a safetensors file holds each name once");
  }

  // Bytes by decreasing element size, so that every tensor is aligned to its
  // element size (the data starts at a multiple of 8).
  std::vector<std::size_t> layout(tensors.size());
  for (std::size_t i = 0; i < layout.size(); ++i) layout[i] = i;
  std::stable_sort(layout.begin(), layout.end(), [&](std::size_t a, std::size_t b) {
    return dtype_size(tensors[a].dtype) > dtype_size(tensors[b].dtype);
  });
  std::vector<std::pair<std::uint64_t, std::uint64_t>> offsets(tensors.size());
  std::uint64_t cursor = 0;
  for (const std::size_t i : layout) {
    offsets[i] = {cursor, cursor + tensors[i].data.size()};
    cursor += tensors[i].data.size();
  }

  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    auto& object = header[std::string(kMetadataKey)] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : metadata) object[key] = value;
  }
  for (std::size_t i = 0; i < tensors.size(); ++i)
    header[tensors[i].name] = {{"dtype", safetensors_dtype_code(tensors[i].dtype)},
                               {"shape", tensors[i].shape},
                               {"data_offsets", {offsets[i].first, offsets[i].second}}};
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::ordered_json::type_error&) {
    throw Error("a tensor name or a metadata key or value is not valid UTF-8", path.string(),
                "names and metadata are JSON strings: pass UTF-8 text (encode binary data, "
                "e.g. in base64)");
  }
  text.append((8 - text.size() % 8) % 8, ' ');

  FileDescriptor fd = create_for_writing(path, kFileKind);
  try {
    std::array<unsigned char, 8> length{};
    for (std::size_t i = 0; i < 8; ++i)
      length[i] =
          static_cast<unsigned char>((static_cast<std::uint64_t>(text.size()) >> (8 * i)) & 0xffu);
    write_exactly(fd.get(), path, std::as_bytes(std::span(length)), kFileKind);
    write_exactly(fd.get(), path, std::as_bytes(std::span(text)), kFileKind);
    for (const std::size_t i : layout) write_exactly(fd.get(), path, tensors[i].data, kFileKind);
    if (options.sync && ::fsync(fd.get()) != 0)
      throw Error("cannot flush safetensors file to disk: " + system_error(errno), path.string(),
                  "check the free space of the disk");
    fd.close_checked(path, kFileKind);
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
}

}  // namespace parity::importers
