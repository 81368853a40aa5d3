#include "numpy/npy_header.hpp"

#include <algorithm>

#include "io/little_endian.hpp"
#include "numpy/npy_dtype.hpp"
#include "numpy/python_literal.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/named_tensor.hpp"

namespace parity::importers {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::uint64_t kArrayAlignment = 64;
// np.save leaves room for the first dimension to grow to this many digits in place.
constexpr std::size_t kGrowthAxisDigits = 21;
constexpr std::string_view kNotNpyHint =
    "the file is not NumPy's .npy format (np.save writes it), or it is damaged";

// Magic, version and length field: 10 bytes in version 1.0, 12 after.
std::size_t preamble_size(int major_version) { return major_version == 1 ? 10 : 12; }

void require_kind(const PythonLiteral& value, PythonLiteral::Kind kind, std::string_view key,
                  std::string_view expected, const std::string& where) {
  if (value.kind != kind)
    throw Error(
        "'" + std::string(key) + "' must be " + std::string(expected) + ", not " + value.source,
        where, std::string(kNotNpyHint));
}

NpyDType parse_descr(const PythonLiteral& descr, const std::string& where) {
  if (descr.kind == PythonLiteral::Kind::kList)
    throw Error("structured dtype " + descr.source + " is not supported", where,
                "Parity reads arrays of one numeric type; save each field as its own array");
  require_kind(descr, PythonLiteral::Kind::kString, "descr", "a dtype string like '<f4'", where);
  return parse_npy_descr(descr.text, where);
}

std::vector<std::int64_t> parse_shape(const PythonLiteral& shape, const std::string& where) {
  require_kind(shape, PythonLiteral::Kind::kTuple, "shape", "a tuple of integers", where);
  std::vector<std::int64_t> dims;
  for (const PythonLiteral& dim : shape.items) {
    if (dim.kind != PythonLiteral::Kind::kInteger || dim.integer < 0)
      throw Error("shape " + shape.source + " holds " + dim.source + ", not a non-negative integer",
                  where, std::string(kNotNpyHint));
    dims.push_back(dim.integer);
  }
  return dims;
}

std::string shape_repr(std::span<const std::int64_t> shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

std::uint64_t npy_header_length(std::span<const std::byte> first_bytes, const std::string& where) {
  const std::string_view start(reinterpret_cast<const char*>(first_bytes.data()),
                               first_bytes.size());
  if (!start.starts_with(kMagic))
    throw Error("not a .npy array: it does not start with \\x93NUMPY", where,
                std::string(kNotNpyHint));
  const std::size_t version_end = 8;
  if (first_bytes.size() < version_end)
    throw Error("the .npy header is truncated", where, std::string(kNotNpyHint));
  const int major = std::to_integer<int>(first_bytes[6]);
  const int minor = std::to_integer<int>(first_bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    throw Error("npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                    " is not supported",
                where, "Parity reads .npy format versions 1.0, 2.0 and 3.0");
  const std::size_t preamble = preamble_size(major);
  if (first_bytes.size() < preamble)
    throw Error("the .npy header is truncated", where, std::string(kNotNpyHint));
  const std::uint64_t length = preamble + (major == 1 ? load_le<std::uint16_t>(first_bytes, 8)
                                                      : load_le<std::uint32_t>(first_bytes, 8));
  if (length > kNpyMaxHeaderBytes)
    throw Error("the .npy header is " + std::to_string(length) + " bytes, beyond the limit of " +
                    std::to_string(kNpyMaxHeaderBytes),
                where, "headers this long only describe dtypes Parity does not read, or lie");
  return length;
}

NpyHeader parse_npy_header(std::span<const std::byte> header, const std::string& where) {
  NpyHeader out;
  out.data_offset =
      npy_header_length(header.first(std::min(header.size(), kNpyPreambleBytes)), where);
  if (header.size() != out.data_offset)
    throw Error("the .npy header is truncated: " + std::to_string(header.size()) + " of its " +
                    std::to_string(out.data_offset) + " bytes",
                where, std::string(kNotNpyHint));
  out.major_version = std::to_integer<int>(header[6]);
  const auto dict_bytes = header.subspan(preamble_size(out.major_version));
  // Version 1.0 and 2.0 headers are latin-1, 3.0 UTF-8; both leave the ASCII
  // of a numeric dtype's dict alone, so the bytes are parsed as they are.
  const PythonLiteral dict = parse_python_literal(
      std::string_view(reinterpret_cast<const char*>(dict_bytes.data()), dict_bytes.size()), where);
  require_kind(dict, PythonLiteral::Kind::kDict, "the header", "a dict", where);

  const PythonLiteral* descr = nullptr;
  const PythonLiteral* fortran_order = nullptr;
  const PythonLiteral* shape = nullptr;
  for (std::size_t i = 0; i < dict.items.size(); i += 2) {
    const PythonLiteral& key = dict.items[i];
    const PythonLiteral* value = &dict.items[i + 1];
    const PythonLiteral** slot = key.kind != PythonLiteral::Kind::kString ? nullptr
                                 : key.text == "descr"                    ? &descr
                                 : key.text == "fortran_order"            ? &fortran_order
                                 : key.text == "shape"                    ? &shape
                                                                          : nullptr;
    if (!slot)
      throw Error("unexpected key " + key.source + " in the .npy header", where,
                  "a .npy header holds 'descr', 'fortran_order' and 'shape' only");
    if (*slot)
      throw Error("key " + key.source + " appears twice in the .npy header", where,
                  std::string(kNotNpyHint));
    *slot = value;
  }
  for (const auto& [slot, key] :
       {std::pair{descr, "descr"}, std::pair{fortran_order, "fortran_order"},
        std::pair{shape, "shape"}})
    if (!slot)
      throw Error(std::string("the .npy header has no '") + key + "'", where,
                  std::string(kNotNpyHint));

  const NpyDType dtype = parse_descr(*descr, where);
  out.dtype = dtype.dtype;
  out.big_endian = dtype.big_endian;
  require_kind(*fortran_order, PythonLiteral::Kind::kBool, "fortran_order", "True or False", where);
  out.fortran_order = fortran_order->boolean;
  out.shape = parse_shape(*shape, where);
  const auto bytes = checked_byte_size(out.dtype, out.shape);
  if (!bytes)
    throw Error("shape " + shape->source + " holds more bytes than int64 counts", where,
                std::string(kNotNpyHint));
  out.data_size = static_cast<std::uint64_t>(*bytes);
  return out;
}

NpyHeader read_npy_header(const NpyPrefixReader& read_prefix, std::uint64_t stored_size,
                          const std::string& where) {
  constexpr std::string_view kTruncatedHint =
      "the array is truncated; copy the file again from its source";
  const std::uint64_t header_length = npy_header_length(read_prefix(kNpyPreambleBytes), where);
  if (header_length > stored_size)
    throw Error("the .npy header is " + std::to_string(header_length) +
                    " bytes long, but the array is stored in " + std::to_string(stored_size),
                where, std::string(kTruncatedHint));
  NpyHeader header = parse_npy_header(read_prefix(header_length), where);
  const std::uint64_t data_bytes = stored_size - header.data_offset;
  if (data_bytes != header.data_size)
    throw Error(std::string(dtype_name(header.dtype)) + " " + shape_to_string(header.shape) +
                    " needs " + std::to_string(header.data_size) + " bytes of data, but " +
                    std::to_string(data_bytes) + " follow the header",
                where,
                data_bytes < header.data_size
                    ? std::string(kTruncatedHint)
                    : "more than one array is stored here (several np.save calls to one "
                      "file?); Parity reads one array per .npy file or member");
  return header;
}

std::string format_npy_header(DType dtype, std::span<const std::int64_t> shape,
                              const std::string& where) {
  std::string dict = "{'descr': '" + npy_descr(dtype, where) +
                     "', 'fortran_order': False, 'shape': " + shape_repr(shape) + ", }";
  if (!shape.empty())
    dict.append(kGrowthAxisDigits - std::min(kGrowthAxisDigits, std::to_string(shape[0]).size()),
                ' ');
  const std::uint64_t dict_with_newline = dict.size() + 1;
  // Spaces before the newline so that the data starts aligned (64 of them
  // when it already would: NumPy's rule, kept for byte-identical files).
  const auto padding = [&](int major) {
    return kArrayAlignment - (preamble_size(major) + dict_with_newline) % kArrayAlignment;
  };
  const int major = dict_with_newline + padding(1) > 0xffff ? 2 : 1;
  const std::uint64_t length = dict_with_newline + padding(major);

  std::string header(kMagic);
  header.push_back(static_cast<char>(major));
  header.push_back('\0');
  if (major == 1)
    append_le<std::uint16_t>(header, static_cast<std::uint16_t>(length));
  else
    append_le<std::uint32_t>(header, static_cast<std::uint32_t>(length));
  header += dict;
  header.append(length - dict_with_newline, ' ');
  header.push_back('\n');
  return header;
}

}  // namespace parity::importers
