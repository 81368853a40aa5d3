#include "parity/analyzer/weights/tensor_diff.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "parity/analyzer/report_format.hpp"
#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

// Element readers: element i of a little-endian buffer as double; integer
// readers also give it exactly (`exact`), since an int64 beyond 2^53 has no
// double of its own.
template <class T, DType D>
struct Plain {
  static constexpr DType kDType = D;
  static constexpr bool kInteger = std::is_integral_v<T>;
  static T exact(const std::byte* data, std::int64_t i) {
    T value;
    std::memcpy(&value, data + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    return value;
  }
  static double at(const std::byte* data, std::int64_t i) {
    return static_cast<double>(exact(data, i));
  }
};
struct Half {
  static constexpr DType kDType = DType::kFloat16;
  static constexpr bool kInteger = false;
  static double at(const std::byte* data, std::int64_t i) {
    std::uint16_t bits;
    std::memcpy(&bits, data + 2 * i, 2);
    return half_to_float(bits);
  }
};
struct BFloat16 {
  static constexpr DType kDType = DType::kBFloat16;
  static constexpr bool kInteger = false;
  static double at(const std::byte* data, std::int64_t i) {
    std::uint16_t bits;
    std::memcpy(&bits, data + 2 * i, 2);
    return bfloat16_to_float(bits);
  }
};

template <class F>
auto with_reader(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat64:
      return f(Plain<double, DType::kFloat64>{});
    case DType::kFloat32:
      return f(Plain<float, DType::kFloat32>{});
    case DType::kFloat16:
      return f(Half{});
    case DType::kBFloat16:
      return f(BFloat16{});
    case DType::kInt64:
      return f(Plain<std::int64_t, DType::kInt64>{});
    case DType::kInt32:
      return f(Plain<std::int32_t, DType::kInt32>{});
    case DType::kInt16:
      return f(Plain<std::int16_t, DType::kInt16>{});
    case DType::kInt8:
      return f(Plain<std::int8_t, DType::kInt8>{});
    case DType::kUInt8:
      return f(Plain<std::uint8_t, DType::kUInt8>{});
    case DType::kBool:
      return f(Plain<std::uint8_t, DType::kBool>{});
  }
  throw Error("unknown dtype", "compare_tensors");
}

// Stored mantissa bits of a floating dtype; 0 for integers and bool.
constexpr int mantissa_bits(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
      return 52;
    case DType::kFloat32:
      return 23;
    case DType::kFloat16:
      return 10;
    case DType::kBFloat16:
      return 7;
    default:
      return 0;
  }
}

constexpr DType coarser(DType a, DType b) { return mantissa_bits(a) <= mantissa_bits(b) ? a : b; }

// Sign-magnitude bits as an integer that counts representable values:
// neighbouring values differ by 1, and -0 and +0 are both 0.
std::int64_t ordered(std::uint64_t bits, int sign_bit) {
  const auto magnitude = static_cast<std::int64_t>(bits & ((std::uint64_t{1} << sign_bit) - 1));
  return (bits >> sign_bit) & 1 ? -magnitude : magnitude;
}

// `x` rounded to dtype D (float64 -> float16 rounds twice, through float32:
// at most one ULP off, for a pair nobody compares), as ordered() counts it.
template <DType D>
std::int64_t ulp_position(double x) {
  if constexpr (D == DType::kFloat64)
    return ordered(std::bit_cast<std::uint64_t>(x), 63);
  else if constexpr (D == DType::kFloat32)
    return ordered(std::bit_cast<std::uint32_t>(static_cast<float>(x)), 31);
  else if constexpr (D == DType::kFloat16)
    return ordered(float_to_half(static_cast<float>(x)), 15);
  else
    return ordered(float_to_bfloat16(static_cast<float>(x)), 15);
}

// |x - y| without overflow: positions span almost 2^64.
std::uint64_t distance(std::int64_t x, std::int64_t y) {
  return x >= y ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)
                : static_cast<std::uint64_t>(y) - static_cast<std::uint64_t>(x);
}

template <class ReaderA, class ReaderB>
TensorMetrics compare(const std::byte* a, const std::byte* b, std::int64_t count,
                      const Tolerance& tolerance, bool equal_nan) {
  constexpr bool kUlps = mantissa_bits(ReaderA::kDType) > 0 && mantissa_bits(ReaderB::kDType) > 0;
  constexpr DType kUlpDType = coarser(ReaderA::kDType, ReaderB::kDType);
  TensorMetrics m;
  m.elements = count;
  if (kUlps) m.max_ulp_diff = 0;
  double sum_abs = 0, dot = 0, norm_a = 0, norm_b = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double x = ReaderA::at(a, i), y = ReaderB::at(b, i);
    const bool finite = std::isfinite(x) && std::isfinite(y);
    if (finite) {
      dot += x * y;
      norm_a += x * x;
      norm_b += y * y;
    } else {
      const bool both_nan = std::isnan(x) && std::isnan(y);
      if (!(x == y) && !both_nan) {
        ++m.nonfinite_mismatches;
        if (m.first_nonfinite_mismatch < 0) m.first_nonfinite_mismatch = i;
      }
      if (std::isnan(x) || std::isnan(y)) {
        ++m.nan_elements;
        if (equal_nan && both_nan) {
          ++m.equal_elements;
          ++m.within_tolerance;
        }
        continue;
      }
    }
    bool equal = x == y;
    double diff = std::abs(x - y);
    if constexpr (ReaderA::kInteger && ReaderB::kInteger) {
      // Exactly: two int64 a unit apart beyond 2^53 round to one double.
      const std::int64_t p = ReaderA::exact(a, i), q = ReaderB::exact(b, i);
      equal = p == q;
      diff = static_cast<double>(distance(p, q));
    }
    if (equal) {
      ++m.equal_elements;
      ++m.within_tolerance;
      continue;
    }
    // Infinities are close only to themselves (the x == y case above).
    if (std::isfinite(diff) && diff <= tolerance.atol + tolerance.rtol * std::abs(y))
      ++m.within_tolerance;
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
    if constexpr (kUlps)
      if (finite)
        m.max_ulp_diff = std::max(*m.max_ulp_diff,
                                  distance(ulp_position<kUlpDType>(x), ulp_position<kUlpDType>(y)));
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

std::string to_string(const Tolerance& tolerance) {
  return "rtol=" + format_number(tolerance.rtol) + " atol=" + format_number(tolerance.atol);
}

Tolerance default_tolerance(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
      return {1e-7, 1e-7};
    case DType::kFloat32:
      return {1.3e-6, 1e-5};
    case DType::kFloat16:
      return {1e-3, 1e-5};
    case DType::kBFloat16:
      return {1.6e-2, 1e-5};
    default:
      return {0, 0};
  }
}

Tolerance default_tolerance(DType a, DType b) {
  const Tolerance x = default_tolerance(a), y = default_tolerance(b);
  return {std::max(x.rtol, y.rtol), std::max(x.atol, y.atol)};
}

double TensorMetrics::share_within_tolerance() const {
  return elements == 0 ? 1.0
                       : static_cast<double>(within_tolerance) / static_cast<double>(elements);
}

TensorMetrics compare_tensors(const importers::NamedTensor& a, const importers::NamedTensor& b,
                              const Tolerance& tolerance, bool equal_nan) {
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
                                                             tolerance, equal_nan);
    });
  });
}

}  // namespace parity::analyzer
