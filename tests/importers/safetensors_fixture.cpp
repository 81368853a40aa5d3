#include "safetensors_fixture.hpp"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace parity::test {

double pattern_value(DType dtype, std::int64_t i) {
  const double real = static_cast<double>(i % 17) * 0.25 - 2.0;
  const auto k = static_cast<double>((i * 7) % 23 - 11);
  switch (dtype) {
    case DType::kFloat64:
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kBFloat16:
      return real;
    case DType::kInt64:
      return k * 8589934592.0;  // 2^33: needs all 8 bytes
    case DType::kInt32:
      return k * 65536.0;
    case DType::kInt16:
      return k * 1000.0;
    case DType::kInt8:
      return k;
    case DType::kUInt8:
      return static_cast<double>((i * 7) % 23) * 10.0;
    case DType::kBool:
      return i % 3 == 0 ? 1.0 : 0.0;
  }
  return 0.0;
}

namespace {
template <class T>
void store(std::byte* out, T value) {
  std::memcpy(out, &value, sizeof value);
}
}  // namespace

importers::NamedTensor pattern_tensor(std::string name, DType dtype,
                                      std::vector<std::int64_t> shape) {
  importers::NamedTensor tensor{std::move(name), dtype, std::move(shape), {}};
  const std::int64_t count = tensor.element_count();
  const std::size_t size = dtype_size(dtype);
  tensor.data.resize(static_cast<std::size_t>(count) * size);
  for (std::int64_t i = 0; i < count; ++i) {
    std::byte* out = tensor.data.data() + static_cast<std::size_t>(i) * size;
    const double value = pattern_value(dtype, i);
    switch (dtype) {
      case DType::kFloat64:
        store(out, value);
        break;
      case DType::kFloat32:
        store(out, static_cast<float>(value));
        break;
      case DType::kFloat16:
        store(out, float_to_half(static_cast<float>(value)));
        break;
      case DType::kBFloat16:
        store(out, float_to_bfloat16(static_cast<float>(value)));
        break;
      case DType::kInt64:
        store(out, static_cast<std::int64_t>(value));
        break;
      case DType::kInt32:
        store(out, static_cast<std::int32_t>(value));
        break;
      case DType::kInt16:
        store(out, static_cast<std::int16_t>(value));
        break;
      case DType::kInt8:
        store(out, static_cast<std::int8_t>(value));
        break;
      case DType::kUInt8:
        store(out, static_cast<std::uint8_t>(value));
        break;
      case DType::kBool:
        store(out, static_cast<std::uint8_t>(value != 0.0));
        break;
    }
  }
  return tensor;
}

const std::vector<TensorSpec>& peer_tensor_specs() {
  static const std::vector<TensorSpec> specs{
      {"f64", DType::kFloat64, {2, 3}},
      {"f32", DType::kFloat32, {4, 5}},
      {"f16", DType::kFloat16, {3, 3}},
      {"bf16", DType::kBFloat16, {7}},
      {"i64", DType::kInt64, {5}},
      {"i32", DType::kInt32, {2, 2}},
      {"i16", DType::kInt16, {3}},
      {"i8", DType::kInt8, {9}},
      {"u8", DType::kUInt8, {10}},
      {"bool", DType::kBool, {6}},
      {"layer1.0.bn1.num_batches_tracked", DType::kInt64, {}},
      {"scalar.f32", DType::kFloat32, {}},
      {"scalar.bf16", DType::kBFloat16, {}},
      {"scalar.bool", DType::kBool, {}},
      {"empty.f32", DType::kFloat32, {0}},
      {"empty.i8", DType::kInt8, {3, 0}},
      {"empty.f64", DType::kFloat64, {0, 2, 1}},
  };
  return specs;
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void write_raw_safetensors(const std::filesystem::path& path, std::string_view header,
                           std::string_view data, std::optional<std::uint64_t> length) {
  const std::uint64_t n = length.value_or(header.size());
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i)
    bytes[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  bytes += header;
  bytes += data;
  write_bytes(path, bytes);
}

}  // namespace parity::test
