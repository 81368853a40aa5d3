#include "parity/importers/dump/tensor_stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <omp.h>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace parity::importers {
namespace {

// The running sums of one pass, in float64. Sums are taken around a shift,
// the first finite value (it keeps the variance exact when the mean is large
// against the spread), which every part of a tensor summed apart shares.
struct Sums {
  std::int64_t count = 0;
  double shift = 0, sum = 0, sum_squares = 0, l2_squares = 0, low = 0, high = 0;

  // Nothing summed yet; `shift` is a value of the tensor, so it may start
  // the minimum and the maximum.
  static Sums around(double shift) { return {0, shift, 0, 0, 0, shift, shift}; }

  void add(double x) {
    ++count;
    const double d = x - shift;
    sum += d;
    sum_squares += d * d;
    l2_squares += x * x;
    low = std::min(low, x);
    high = std::max(high, x);
  }
  void merge(const Sums& part) {
    count += part.count;
    sum += part.sum;
    sum_squares += part.sum_squares;
    l2_squares += part.l2_squares;
    low = std::min(low, part.low);
    high = std::max(high, part.high);
  }
};

// One element at a time, counting NaN and Inf.
template <class T>
void add_checked(std::span<const T> values, Sums& sums, TensorStats& stats) {
  for (const T element : values) {
    const double x = static_cast<double>(element);
    if (std::isnan(x))
      ++stats.nan;
    else if (std::isinf(x))
      ++stats.inf;
    else
      sums.add(x);
  }
}

#if defined(__SSE2__)
// Four floats at a time, each sum in two float64 lanes twice over (eight
// elements a loop), so that no addition waits for the one before: a dump's
// statistics cost about as much as reading the tensor (docs/results.md). A
// block holding a NaN or an Inf goes through add_checked instead.
void add_blocks(std::span<const float> values, Sums& sums, TensorStats& stats) {
  constexpr std::size_t kBlock = 256;
  const __m128d shift = _mm_set1_pd(sums.shift);
  __m128d sum[4], sum_squares[4], l2_squares[4];
  for (int k = 0; k < 4; ++k) sum[k] = sum_squares[k] = l2_squares[k] = _mm_setzero_pd();
  __m128 low = _mm_set1_ps(static_cast<float>(sums.low));
  __m128 high = _mm_set1_ps(static_cast<float>(sums.high));
  std::int64_t count = 0;
  std::size_t start = 0;
  for (; start + kBlock <= values.size(); start += kBlock) {
    const float* block = values.data() + start;
    // x - x is 0 for a finite x and NaN for NaN and Inf; ordered only for 0.
    __m128 finite = _mm_castsi128_ps(_mm_set1_epi32(-1));
    for (std::size_t i = 0; i < kBlock; i += 4) {
      const __m128 x = _mm_loadu_ps(block + i);
      const __m128 zero_if_finite = _mm_sub_ps(x, x);
      finite = _mm_and_ps(finite, _mm_cmpord_ps(zero_if_finite, zero_if_finite));
    }
    if (_mm_movemask_ps(finite) != 0xF) {
      add_checked(std::span(block, kBlock), sums, stats);
      continue;
    }
    for (std::size_t i = 0; i < kBlock; i += 8) {
      const __m128 x0 = _mm_loadu_ps(block + i), x1 = _mm_loadu_ps(block + i + 4);
      low = _mm_min_ps(low, _mm_min_ps(x0, x1));
      high = _mm_max_ps(high, _mm_max_ps(x0, x1));
      const __m128d x[4] = {_mm_cvtps_pd(x0), _mm_cvtps_pd(_mm_movehl_ps(x0, x0)),
                            _mm_cvtps_pd(x1), _mm_cvtps_pd(_mm_movehl_ps(x1, x1))};
      for (int k = 0; k < 4; ++k) {
        const __m128d d = _mm_sub_pd(x[k], shift);
        sum[k] = _mm_add_pd(sum[k], d);
        sum_squares[k] = _mm_add_pd(sum_squares[k], _mm_mul_pd(d, d));
        l2_squares[k] = _mm_add_pd(l2_squares[k], _mm_mul_pd(x[k], x[k]));
      }
    }
    count += kBlock;
  }
  alignas(16) double lanes[2];
  const auto total = [&lanes](const __m128d (&parts)[4]) {
    _mm_store_pd(lanes, _mm_add_pd(_mm_add_pd(parts[0], parts[1]), _mm_add_pd(parts[2], parts[3])));
    return lanes[0] + lanes[1];
  };
  sums.sum += total(sum);
  sums.sum_squares += total(sum_squares);
  sums.l2_squares += total(l2_squares);
  alignas(16) float four[4];
  _mm_store_ps(four, low);
  for (const float v : four) sums.low = std::min(sums.low, static_cast<double>(v));
  _mm_store_ps(four, high);
  for (const float v : four) sums.high = std::max(sums.high, static_cast<double>(v));
  sums.count += count;
  add_checked(values.subspan(start), sums, stats);
}
#endif

// Without SSE2, and for float64 values (a dump's loss): one at a time.
template <class T>
void add_blocks(std::span<const T> values, Sums& sums, TensorStats& stats) {
  add_checked(values, sums, stats);
}

// Tensors from this many elements are summed in one part per thread: a
// statistics-only dump reads every tensor of a step, and the step's own
// threads are idle while it does.
constexpr std::size_t kParallelElements = std::size_t{1} << 18;

template <class T>
TensorStats stats_of(std::span<const T> values) {
  TensorStats stats;
  // Up to the first finite value, which sets the shift: NaN and Inf counted.
  const auto finite = [](T value) { return std::isfinite(static_cast<double>(value)); };
  const auto first =
      static_cast<std::size_t>(std::find_if(values.begin(), values.end(), finite) - values.begin());
  Sums none;
  add_checked(values.first(first), none, stats);
  if (first == values.size()) return stats;
  Sums sums = Sums::around(static_cast<double>(values[first]));
  sums.add(static_cast<double>(values[first]));
  const std::span<const T> rest = values.subspan(first + 1);
  const int parts = rest.size() >= kParallelElements ? std::max(1, omp_get_max_threads()) : 1;
  std::vector<Sums> part_sums(static_cast<std::size_t>(parts), Sums::around(sums.shift));
  std::vector<TensorStats> part_counts(static_cast<std::size_t>(parts));
#pragma omp parallel for schedule(static) if (parts > 1)
  for (int p = 0; p < parts; ++p) {
    const std::size_t begin = rest.size() * std::size_t(p) / std::size_t(parts);
    const std::size_t end = rest.size() * std::size_t(p + 1) / std::size_t(parts);
    add_blocks(rest.subspan(begin, end - begin), part_sums[std::size_t(p)],
               part_counts[std::size_t(p)]);
  }
  for (int p = 0; p < parts; ++p) {
    sums.merge(part_sums[std::size_t(p)]);
    stats.nan += part_counts[std::size_t(p)].nan;
    stats.inf += part_counts[std::size_t(p)].inf;
  }
  const double n = static_cast<double>(sums.count);
  const double mean_shifted = sums.sum / n;
  stats.l2 = std::sqrt(sums.l2_squares);
  stats.min = sums.low;
  stats.max = sums.high;
  stats.mean = sums.shift + mean_shifted;
  stats.std = std::sqrt(std::max(0.0, sums.sum_squares / n - mean_shifted * mean_shifted));
  return stats;
}

}  // namespace

TensorStats compute_stats(std::span<const float> values) { return stats_of(values); }
TensorStats compute_stats(std::span<const double> values) { return stats_of(values); }
TensorStats compute_stats(std::span<const std::int64_t> values) { return stats_of(values); }

TensorStats compute_stats(const NamedTensor& tensor) {
  if (tensor.dtype == DType::kFloat32) {
    tensor.check();
    return stats_of(std::span(reinterpret_cast<const float*>(tensor.data.data()),
                              tensor.data.size() / sizeof(float)));
  }
  const std::vector<double> values = tensor.to_double();
  return stats_of(std::span<const double>(values));
}

}  // namespace parity::importers
