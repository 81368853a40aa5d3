#include "parity/analyzer/weights/tensor_diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

// Element readers: element i of a little-endian buffer as double.
template <class T>
struct Plain {
  static double at(const std::byte* data, std::int64_t i) {
    T value;
    std::memcpy(&value, data + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    return static_cast<double>(value);
  }
};
struct Half {
  static double at(const std::byte* data, std::int64_t i) {
    std::uint16_t bits;
    std::memcpy(&bits, data + 2 * i, 2);
    return half_to_float(bits);
  }
};
struct BFloat16 {
  static double at(const std::byte* data, std::int64_t i) {
    std::uint16_t bits;
    std::memcpy(&bits, data + 2 * i, 2);
    return bfloat16_to_float(bits);
  }
};

template <class F>
auto with_reader(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat64: return f(Plain<double>{});
    case DType::kFloat32: return f(Plain<float>{});
    case DType::kFloat16: return f(Half{});
    case DType::kBFloat16: return f(BFloat16{});
    case DType::kInt64: return f(Plain<std::int64_t>{});
    case DType::kInt32: return f(Plain<std::int32_t>{});
    case DType::kInt16: return f(Plain<std::int16_t>{});
    case DType::kInt8: return f(Plain<std::int8_t>{});
    case DType::kUInt8: return f(Plain<std::uint8_t>{});
    case DType::kBool: return f(Plain<std::uint8_t>{});
  }
  throw Error("unknown dtype", "compare_tensors");
}

template <class ReaderA, class ReaderB>
TensorMetrics compare(const std::byte* a, const std::byte* b, std::int64_t count,
                      const Tolerance& tolerance) {
  TensorMetrics m;
  m.elements = count;
  double sum_abs = 0, dot = 0, norm_a = 0, norm_b = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double x = ReaderA::at(a, i), y = ReaderB::at(b, i);
    if (std::isnan(x) || std::isnan(y)) {
      ++m.nan_elements;
      continue;
    }
    if (std::isfinite(x) && std::isfinite(y)) {
      dot += x * y;
      norm_a += x * x;
      norm_b += y * y;
    }
    if (x == y) {
      ++m.equal_elements;
      ++m.within_tolerance;
      continue;
    }
    const double diff = std::abs(x - y);
    // Infinities are close only to themselves (the x == y case above).
    if (std::isfinite(diff) && diff <= tolerance.atol + tolerance.rtol * std::abs(y)) ++m.within_tolerance;
    sum_abs += diff;
    if (diff > m.max_abs_diff || m.max_abs_index < 0) {
      m.max_abs_diff = diff;
      m.max_abs_index = i;
    }
    const double rel = y == 0 ? std::numeric_limits<double>::infinity() : diff / std::abs(y);
    if (rel > m.max_rel_diff || m.max_rel_index < 0) {
      m.max_rel_diff = rel;
      m.max_rel_index = i;
    }
  }
  const std::int64_t compared = count - m.nan_elements;
  m.mean_abs_diff = compared > 0 ? sum_abs / static_cast<double>(compared) : 0;
  if (norm_a == 0 && norm_b == 0)
    m.cosine_similarity = 1;
  else if (norm_a == 0 || norm_b == 0)
    m.cosine_similarity = 0;
  else
    m.cosine_similarity = std::clamp(dot / std::sqrt(norm_a * norm_b), -1.0, 1.0);
  return m;
}

}  // namespace

Tolerance default_tolerance(DType dtype) {
  switch (dtype) {
    case DType::kFloat64: return {1e-7, 1e-7};
    case DType::kFloat32: return {1.3e-6, 1e-5};
    case DType::kFloat16: return {1e-3, 1e-5};
    case DType::kBFloat16: return {1.6e-2, 1e-5};
    default: return {0, 0};
  }
}

Tolerance default_tolerance(DType a, DType b) {
  const Tolerance x = default_tolerance(a), y = default_tolerance(b);
  return {std::max(x.rtol, y.rtol), std::max(x.atol, y.atol)};
}

double TensorMetrics::share_within_tolerance() const {
  return elements == 0 ? 1.0 : static_cast<double>(within_tolerance) / static_cast<double>(elements);
}

TensorMetrics compare_tensors(const importers::NamedTensor& a, const importers::NamedTensor& b,
                              const Tolerance& tolerance) {
  a.check();
  b.check();
  const std::int64_t count = a.element_count();
  if (count != b.element_count())
    throw Error("cannot compare '" + a.name + "' " + importers::shape_to_string(a.shape) +
                    " with '" + b.name + "' " + importers::shape_to_string(b.shape),
                a.name, "the element counts differ");
  return with_reader(a.dtype, [&](auto reader_a) {
    return with_reader(b.dtype, [&](auto reader_b) {
      return compare<decltype(reader_a), decltype(reader_b)>(a.data.data(), b.data.data(), count,
                                                             tolerance);
    });
  });
}

}  // namespace parity::analyzer
