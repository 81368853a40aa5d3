// THOR's block arithmetic against naive float64 loops: im2col against a
// direct convolution (asymmetric padding included), Gram blocks, damped
// Cholesky inverses, and the two-sided block preconditioning.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "block_precondition.hpp"
#include "damped_inverse.hpp"
#include "kronecker_factors.hpp"
#include "parity/core/error.hpp"

using namespace parity::trainer;
using namespace parity::trainer::thor;

namespace {

std::vector<float> random_values(std::size_t count, std::uint32_t seed) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> values(count);
  for (float& v : values) v = normal(engine);
  return values;
}

// The dense matrix a block-diagonal holds, zero off the blocks.
std::vector<double> dense(const BlockDiagonal& m) {
  const std::int64_t n = m.dim();
  std::vector<double> out(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t b = 0; b < m.blocks(); ++b) {
    const std::int64_t start = m.block_start(b), size = m.block_size(b);
    for (std::int64_t i = 0; i < size; ++i)
      for (std::int64_t j = 0; j < size; ++j)
        out[(start + i) * n + start + j] = m.block(b)[i * size + j];
  }
  return out;
}

}  // namespace

TEST_CASE("block-diagonal storage: full blocks of 128, then the rest", "[unit]") {
  CHECK(BlockLayout{64}.storage_size() == 64 * 64);
  CHECK(BlockLayout{128}.storage_size() == 128 * 128);
  CHECK(BlockLayout{300}.storage_size() == 2 * 128 * 128 + 44 * 44);
  CHECK(BlockLayout{300}.full_blocks() == 2);
  CHECK(BlockLayout{300}.block_offset(2) == 2 * 128 * 128);
  const BlockDiagonal m(300);
  CHECK(m.blocks() == 3);
  CHECK(m.block_size(2) == 44);
  CHECK(m.block(2).size() == 44 * 44);
  CHECK(m.block(2).data() == m.values().data() + 2 * 128 * 128);
}

TEST_CASE("im2col times the weight is the convolution, padding and stride included", "[unit]") {
  const std::int64_t c = 3, h = 7, w = 6, out_c = 2;
  for (const WeightGeometry g : {WeightGeometry{WeightGeometry::kConv, 3, 1, 1, 1},
                                 WeightGeometry{WeightGeometry::kConv, 3, 2, 0, 1},
                                 WeightGeometry{WeightGeometry::kConv, 1, 2, 0, 0},
                                 WeightGeometry{WeightGeometry::kConv, 7, 2, 3, 3}}) {
    const std::vector<float> image = random_values(c * h * w, 1);
    const std::vector<float> weight = random_values(out_c * c * g.kernel * g.kernel, 2);
    const std::int64_t oh = g.output_size(h), ow = g.output_size(w);
    const std::vector<float> columns = im2col(image, c, h, w, g);
    const std::int64_t rows = c * g.kernel * g.kernel;
    REQUIRE(columns.size() == static_cast<std::size_t>(rows * oh * ow));
    for (std::int64_t o = 0; o < out_c; ++o)
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t x = 0; x < ow; ++x) {
          double direct = 0.0, product = 0.0;
          for (std::int64_t ch = 0; ch < c; ++ch)
            for (std::int64_t i = 0; i < g.kernel; ++i)
              for (std::int64_t j = 0; j < g.kernel; ++j) {
                const std::int64_t row = y * g.stride - g.padding + i, col = x * g.stride - g.padding + j;
                if (row < 0 || row >= h || col < 0 || col >= w) continue;
                direct += double(weight[((o * c + ch) * g.kernel + i) * g.kernel + j]) *
                          image[(ch * h + row) * w + col];
              }
          for (std::int64_t r = 0; r < rows; ++r)
            product += double(weight[o * rows + r]) * columns[r * oh * ow + y * ow + x];
          CHECK(product == Approx(direct).margin(1e-5));
        }
  }
}

TEST_CASE("Gram blocks are the diagonal blocks of alpha M M^T", "[unit]") {
  const std::int64_t dim = 200, length = 37;
  const std::vector<float> m = random_values(dim * length, 3);
  const BlockDiagonal gram = gram_blocks(m, dim, length, 0.25);
  const std::vector<double> got = dense(gram);
  for (std::int64_t i = 0; i < dim; ++i)
    for (std::int64_t j = 0; j < dim; ++j) {
      const bool same_block = i / kThorBlockSize == j / kThorBlockSize;
      double expected = 0.0;
      if (same_block)
        for (std::int64_t k = 0; k < length; ++k) expected += double(m[i * length + k]) * m[j * length + k];
      CHECK(got[i * dim + j] == Approx(0.25 * expected).margin(1e-4));
    }
}

TEST_CASE("damped inverse: scale * (block + damping I)^-1, block by block", "[unit]") {
  const std::int64_t dim = 150, length = 20;  // rank-deficient blocks: the damping makes them invertible
  const std::vector<float> m = random_values(dim * length, 4);
  const BlockDiagonal factor = gram_blocks(m, dim, length, 1.0 / length);
  const double damping = 0.05, scale = 0.5;
  const BlockDiagonal inverse = damped_inverse(factor, damping, scale, "test");
  const std::vector<double> f = dense(factor), inv = dense(inverse);
  double worst = 0.0;
  for (std::int64_t i = 0; i < dim; ++i)
    for (std::int64_t j = 0; j < dim; ++j) {
      double product = 0.0;
      for (std::int64_t k = 0; k < dim; ++k)
        product += (f[i * dim + k] + (i == k ? damping : 0.0)) * inv[k * dim + j];
      worst = std::max(worst, std::abs(product - (i == j ? scale : 0.0)));
    }
  INFO("largest error of (F + dI) * inverse against scale * I: " << worst);
  CHECK(worst < 1e-4);
}

TEST_CASE("a factor holding NaN is refused, naming its layer", "[unit]") {
  BlockDiagonal factor(4);
  factor.values()[0] = std::nanf("");
  CHECK_THROWS_WITH(damped_inverse(factor, 0.1, 1.0, "layer1.0.conv1.weight"),
                    Catch::Contains("layer1.0.conv1.weight") && Catch::Contains("not positive definite"));
}

TEST_CASE("preconditioning is G^-1 * grad * A^-1 with both block-diagonal", "[unit]") {
  const std::int64_t rows = 130, columns = 140;
  BlockDiagonal g(rows), a(columns);
  const std::vector<float> gv = random_values(g.values().size(), 5), av = random_values(a.values().size(), 6);
  std::copy(gv.begin(), gv.end(), g.values().begin());
  std::copy(av.begin(), av.end(), a.values().begin());
  std::vector<float> grad = random_values(rows * columns, 7);
  const std::vector<float> original = grad;
  std::vector<float> scratch;
  precondition(grad, g, a, scratch);
  const std::vector<double> gd = dense(g), ad = dense(a);
  std::vector<double> left(rows * columns, 0.0);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t k = 0; k < rows; ++k)
      for (std::int64_t j = 0; j < columns; ++j) left[i * columns + j] += gd[i * rows + k] * original[k * columns + j];
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < columns; ++j) {
      double expected = 0.0;
      for (std::int64_t k = 0; k < columns; ++k) expected += left[i * columns + k] * ad[k * columns + j];
      CHECK(grad[i * columns + j] == Approx(expected).margin(1e-3).epsilon(1e-4));
    }
}
