// Every CPU backend layer: forward against a naive float64 implementation,
// backward (input and parameter gradients) against central differences of
// that implementation.
#include <catch2/catch.hpp>

#include <limits>

#include "gradient_check.hpp"
#include "naive_layers.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"

using namespace parity::trainer;

namespace {

Backend& backend() {
  static const std::unique_ptr<Backend> instance = make_cpu_backend({});
  return *instance;
}

// Runs op forward (training) on x and backward on r; returns (y, dx).
std::pair<std::vector<float>, std::vector<float>> run(LayerOp& op, const Dims& dims,
                                                      const std::vector<float>& x,
                                                      const std::vector<float>& r,
                                                      const Dims& out_dims) {
  const Tensor y = op.forward(backend().from_host(dims, x), Mode::kTrain);
  REQUIRE(y.dims() == out_dims);
  const Tensor dx = op.backward(backend().from_host(out_dims, r));
  return {backend().to_host(y), dx.defined() ? backend().to_host(dx) : std::vector<float>{}};
}

struct ConvCase {
  std::int64_t in, out, size, kernel, stride;
  bool input_grad;
  std::int64_t pad_end = -1;  // MindSpore's "same": 0 before, 1 after for k3 s2 on even sizes
};

}  // namespace

TEST_CASE("conv2d matches a float64 convolution forward and its finite differences backward",
          "[unit]") {
  const ConvCase cases[] = {
      {16, 32, 6, 3, 1, true},  {16, 32, 7, 3, 2, true}, {32, 16, 6, 1, 2, true},
      {16, 64, 4, 1, 1, true},  {3, 16, 8, 3, 1, false}, {3, 16, 9, 7, 2, false},
      {16, 16, 8, 3, 2, true, 1},
      // Images smaller than the kernel (ResNet-50's layer3 and layer4 with the
      // ImageNet stem at 32 px), where oneDNN 2.6 on AVX2 has no JIT kernel
      // for the weight gradient in the forward's layouts.
      {32, 32, 1, 3, 1, true},  {32, 32, 2, 3, 1, true}, {32, 32, 2, 3, 2, true},
  };
  for (const ConvCase& c : cases) {
    DYNAMIC_SECTION("conv " << c.in << "->" << c.out << " k" << c.kernel << " s" << c.stride
                             << " pad end " << c.pad_end) {
      const std::int64_t pad = c.pad_end < 0 ? c.kernel / 2 : 0;
      const naive::Shape in{2, c.in, c.size, c.size};
      const Dims dims{in.n, in.c, in.h, in.w};
      const auto reference_kernels_before = backend().stats().reference_kernels;
      auto op = backend().conv2d({c.in, c.out, c.kernel, c.stride, pad, dims, c.input_grad, c.pad_end});
      // Every direction runs on a JIT kernel: a reference kernel is 100x slower.
      CHECK(backend().stats().reference_kernels == reference_kernels_before);
      const auto slots = op->parameters();
      REQUIRE(slots.size() == 1);
      REQUIRE(slots[0].shape == Dims{c.out, c.in, c.kernel, c.kernel});

      // Two rounds: the second after an SGD step, so that the weights the
      // backward-data pass reads (a mirror in another layout) must have
      // followed the update.
      std::vector<float> w = random_floats(std::size_t(c.out * c.in * c.kernel * c.kernel), 1, -0.3f, 0.3f);
      backend().write(slots[0].tensors->value, w);
      for (int round = 0; round < 2; ++round) {
        INFO("round " << round);
        const auto x = random_floats(std::size_t(in.count()), 2 + round);
        naive::Shape out;
        const auto reference = naive::conv2d(widen(x), in, widen(w), c.out, c.kernel, c.stride, pad, &out, c.pad_end);
        const auto r = random_floats(std::size_t(out.count()), 3 + round);
        const Dims out_dims{out.n, out.c, out.h, out.w};
        const Tensor input = backend().from_host(dims, x), grad_out = backend().from_host(out_dims, r);
        const auto reorders_before = backend().stats().weight_reorders;
        const Tensor y = op->forward(input, Mode::kTrain);
        const Tensor dx = op->backward(grad_out);
        backend().sgd_update(*slots[0].tensors, SgdStep{0.05, 0.0, 0.0, 0.0, 1.0, false, true});
        // The weights never change layout during a step.
        CHECK(backend().stats().weight_reorders == reorders_before);

        CHECK(relative_error(backend().to_host(y), reference) < 1e-5);
        REQUIRE(dx.defined() == c.input_grad);
        if (c.input_grad)
          check_gradient([&](const naive::Values& v) {
            return naive::conv2d(v, in, widen(w), c.out, c.kernel, c.stride, pad, nullptr, c.pad_end);
          }, widen(x), widen(r), backend().to_host(dx), "input gradient");
        const auto dw = backend().to_host(slots[0].tensors->grad);
        check_gradient([&](const naive::Values& v) {
          return naive::conv2d(widen(x), in, v, c.out, c.kernel, c.stride, pad, nullptr, c.pad_end);
        }, widen(w), widen(r), dw, "weight gradient");

        const auto updated = backend().to_host(slots[0].tensors->value);
        for (std::size_t i = 0; i < w.size(); ++i) REQUIRE(updated[i] == Approx(w[i] - 0.05f * dw[i]));
        w = updated;
      }
    }
  }
}

TEST_CASE("batch norm matches float64 training statistics, with and without fused ReLU", "[unit]") {
  for (const bool fused : {false, true}) {
    DYNAMIC_SECTION("fused relu " << fused) {
      const naive::Shape in{4, 16, 3, 3};
      const Dims dims{in.n, in.c, in.h, in.w};
      auto op = backend().batch_norm({in.c, 1e-5, 0.1, fused, dims});
      const auto slots = op->parameters();
      REQUIRE(slots.size() == 2);
      CHECK_FALSE(slots[0].weight_decay);
      const auto gamma = random_floats(16, 11, 0.5f, 1.5f), beta = random_floats(16, 12);
      backend().write(slots[0].tensors->value, gamma);
      backend().write(slots[1].tensors->value, beta);
      const auto x = random_floats(std::size_t(in.count()), 13, -2.f, 2.f);
      const auto reference = naive::batch_norm(widen(x), in, widen(gamma), widen(beta), 1e-5, fused);
      const auto r = random_floats(x.size(), 14);
      const auto [y, dx] = run(*op, dims, x, r, dims);
      CHECK(relative_error(y, reference) < 1e-5);
      check_gradient([&](const naive::Values& v) {
        return naive::batch_norm(v, in, widen(gamma), widen(beta), 1e-5, fused);
      }, widen(x), widen(r), dx, "input gradient");
      check_gradient([&](const naive::Values& v) {
        return naive::batch_norm(widen(x), in, v, widen(beta), 1e-5, fused);
      }, widen(gamma), widen(r), backend().to_host(slots[0].tensors->grad), "weight gradient");
      check_gradient([&](const naive::Values& v) {
        return naive::batch_norm(widen(x), in, widen(gamma), v, 1e-5, fused);
      }, widen(beta), widen(r), backend().to_host(slots[1].tensors->grad), "bias gradient");

      // PyTorch's running statistics: momentum 0.1, unbiased variance.
      const auto buffers = op->buffers();
      REQUIRE(buffers.size() == 2);
      const auto running_mean = backend().to_host(*buffers[0].tensor);
      const auto running_var = backend().to_host(*buffers[1].tensor);
      const double count = double(in.n * in.h * in.w);
      for (std::int64_t c = 0; c < in.c; ++c) {
        double mean = 0, sq = 0;
        for (std::int64_t n = 0; n < in.n; ++n)
          for (std::int64_t i = 0; i < 9; ++i) mean += x[std::size_t((n * in.c + c) * 9 + i)];
        mean /= count;
        for (std::int64_t n = 0; n < in.n; ++n)
          for (std::int64_t i = 0; i < 9; ++i) {
            const double d = x[std::size_t((n * in.c + c) * 9 + i)] - mean;
            sq += d * d;
          }
        CHECK(running_mean[c] == Approx(0.1 * mean).margin(1e-6));
        CHECK(running_var[c] == Approx(0.9 + 0.1 * sq / (count - 1)).epsilon(1e-5));
      }

      // Evaluation uses the running statistics.
      const auto eval = backend().to_host(op->forward(backend().from_host(dims, x), Mode::kEval));
      for (std::int64_t c = 0; c < in.c; ++c) {
        const auto at = std::size_t(c * 9);
        double v = gamma[c] * (x[at] - running_mean[c]) / std::sqrt(running_var[c] + 1e-5) + beta[c];
        if (fused) v = std::max(v, 0.0);
        CHECK(eval[at] == Approx(v).margin(1e-5));
      }
    }
  }
}

// A batch norm after a convolution reads the convolution's output in the
// backend's blocked layout. Its batch mean and variance are the float64 ones
// of those float32 values, to float32 rounding, even where a float32 sum of
// the channel would have drifted: 8192 values near 50 per channel.
TEST_CASE("batch norm's training statistics are float64-exact in the backend's own layout",
          "[unit]") {
  const Dims in{8, 16, 32, 32};
  auto conv = backend().conv2d({16, 32, 1, 1, 0, in, true});
  backend().write(conv->parameters()[0].tensors->value, random_floats(32 * 16, 31, 0.05f, 0.075f));
  const auto x = random_floats(std::size_t(element_count(in)), 32, 45.f, 55.f);
  const Tensor features = conv->forward(backend().from_host(in, x), Mode::kTrain);
  const Dims dims = features.dims();
  auto bn = backend().batch_norm({32, 1e-5, 0.1, false, dims});
  const Tensor y = bn->forward(features, Mode::kTrain);

  const auto values = backend().to_host(features), normalized = backend().to_host(y);
  const auto running_mean = backend().to_host(*bn->buffers()[0].tensor);
  const auto running_var = backend().to_host(*bn->buffers()[1].tensor);
  const std::int64_t plane = dims[2] * dims[3], count = dims[0] * plane;
  for (std::int64_t c = 0; c < dims[1]; ++c) {
    double mean = 0, sq = 0, normalized_mean = 0;
    const auto at = [&](std::int64_t n, std::int64_t i) { return std::size_t((n * dims[1] + c) * plane + i); };
    for (std::int64_t n = 0; n < dims[0]; ++n)
      for (std::int64_t i = 0; i < plane; ++i) mean += values[at(n, i)];
    mean /= double(count);
    for (std::int64_t n = 0; n < dims[0]; ++n)
      for (std::int64_t i = 0; i < plane; ++i) {
        sq += (values[at(n, i)] - mean) * (values[at(n, i)] - mean);
        normalized_mean += normalized[at(n, i)];
      }
    INFO("channel " << c << ": mean " << mean);
    REQUIRE(mean > 20);  // far from zero: a float32 sum's error shows
    // One rounding to float32 of 0.1 mean (and of 0.9 + 0.1 var): 2^-24 relative.
    CHECK(std::abs(running_mean[c] - 0.1 * mean) <= 0.1 * mean * 0x1p-24);
    const double var = 0.9 + 0.1 * sq / double(count - 1);
    CHECK(std::abs(running_var[c] - var) <= var * 0x1p-23);
    // Normalized with that mean, rounded to float32 as oneDNN takes it: no
    // bias beyond that rounding (in units of the standard deviation).
    const double rounding = mean * 0x1p-24 / std::sqrt(sq / double(count));
    CHECK(std::abs(normalized_mean / double(count)) <= 2 * rounding + 1e-7);
  }
}

// oneDNN's max pooling replaces its running maximum (which starts at the
// lowest float, at the window's top-left position) only by a greater value:
// a NaN never wins, a window of -inf gives the lowest float and sends its
// gradient to its top-left position, dropped when that is padding. The CUDA
// backend copies these rules; this pins them, so that a oneDNN that changes
// them is noticed.
TEST_CASE("max pool passes over NaN and clamps a window of -inf to the lowest float", "[unit]") {
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  constexpr float inf = std::numeric_limits<float>::infinity();
  const Dims dims{1, 2, 3, 3};
  // Channel 0 holds a NaN in every window, channel 1 is -inf throughout.
  const std::vector<float> x{1, 2, 3, 4, nan, 6, 7, 8, 0,  //
                             -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf};
  auto max_pool = backend().max_pool({3, 2, 1, dims});
  const Tensor y = max_pool->forward(backend().from_host(dims, x), Mode::kTrain);
  const float lowest = std::numeric_limits<float>::lowest();
  CHECK(backend().to_host(y) ==
        std::vector<float>{4, 6, 8, 8, lowest, lowest, lowest, lowest});
  const Tensor dx = max_pool->backward(
      backend().from_host({1, 2, 2, 2}, std::vector<float>{1, 10, 100, 1000, 1, 10, 100, 1000}));
  CHECK(backend().to_host(dx) == std::vector<float>{0, 0, 0, 1, 0, 10, 0, 1100, 0,  //
                                                    0, 0, 0, 0, 1000, 0, 0, 0, 0});
}

TEST_CASE("max pool and global average pool match float64 references and finite differences",
          "[unit]") {
  const naive::Shape in{2, 16, 7, 7};
  const Dims dims{in.n, in.c, in.h, in.w};
  // Distinct values, so that the max is never tied and is differentiable.
  auto x = random_floats(std::size_t(in.count()), 21, -4.f, 4.f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += float(i) * 1e-3f;

  auto max_pool = backend().max_pool({3, 2, 1, dims});
  naive::Shape out;
  const auto reference = naive::max_pool(widen(x), in, 3, 2, 1, &out);
  const auto r = random_floats(std::size_t(out.count()), 22);
  const auto [y, dx] = run(*max_pool, dims, x, r, {out.n, out.c, out.h, out.w});
  CHECK(relative_error(y, reference) == 0.0);
  check_gradient([&](const naive::Values& v) { return naive::max_pool(v, in, 3, 2, 1, nullptr); },
                 widen(x), widen(r), dx, "max pool input gradient");

  auto avg_pool = backend().global_avg_pool();
  const auto r2 = random_floats(std::size_t(in.n * in.c), 23);
  const auto [y2, dx2] = run(*avg_pool, dims, x, r2, {in.n, in.c, 1, 1});
  CHECK(relative_error(y2, naive::global_avg_pool(widen(x), in)) < 1e-6);
  check_gradient([&](const naive::Values& v) { return naive::global_avg_pool(v, in); }, widen(x),
                 widen(r2), dx2, "average pool input gradient");
}

TEST_CASE("linear reads the pooled [N, C, 1, 1] tensor as a matrix and matches references",
          "[unit]") {
  const std::int64_t batch = 4, in_features = 32, out_features = 10;
  const Dims pooled{batch, in_features, 1, 1};
  auto op = backend().linear({in_features, out_features, pooled});
  const auto slots = op->parameters();
  REQUIRE(slots.size() == 2);
  CHECK(slots[0].shape == Dims{out_features, in_features});
  CHECK(slots[0].weight_decay);
  CHECK_FALSE(slots[1].weight_decay);
  const auto w = random_floats(std::size_t(out_features * in_features), 31);
  const auto b = random_floats(std::size_t(out_features), 32);
  backend().write(slots[0].tensors->value, w);
  backend().write(slots[1].tensors->value, b);

  // The input comes from a global average pool, in oneDNN's blocked layout.
  const naive::Shape image{batch, in_features, 2, 2};
  const auto pixels = random_floats(std::size_t(image.count()), 33);
  auto conv = backend().conv2d({in_features, in_features, 1, 1, 0, {batch, in_features, 2, 2}, true});
  backend().write(conv->parameters()[0].tensors->value,
                  [&] {
                    std::vector<float> identity(std::size_t(in_features * in_features), 0.f);
                    for (std::int64_t i = 0; i < in_features; ++i) identity[std::size_t(i * in_features + i)] = 1.f;
                    return identity;
                  }());
  auto pool = backend().global_avg_pool();
  const Tensor features = pool->forward(
      conv->forward(backend().from_host({batch, in_features, 2, 2}, pixels), Mode::kTrain), Mode::kTrain);
  const auto r = random_floats(std::size_t(batch * out_features), 34);
  const Tensor grad_out = backend().from_host({batch, out_features}, r);
  const auto before = backend().stats().activation_reorders;
  const Tensor logits = op->forward(features, Mode::kTrain);
  const Tensor dx = op->backward(grad_out);
  CHECK(backend().stats().activation_reorders == before);  // no conversion on the way
  CHECK(dx.dims() == pooled);

  const auto x = widen(backend().to_host(features));
  const auto reference = naive::linear(x, batch, widen(w), widen(b), out_features);
  CHECK(relative_error(backend().to_host(logits), reference) < 1e-5);
  check_gradient([&](const naive::Values& v) { return naive::linear(v, batch, widen(w), widen(b), out_features); },
                 x, widen(r), backend().to_host(dx), "input gradient");
  check_gradient([&](const naive::Values& v) { return naive::linear(x, batch, v, widen(b), out_features); },
                 widen(w), widen(r), backend().to_host(slots[0].tensors->grad), "weight gradient");
  check_gradient([&](const naive::Values& v) { return naive::linear(x, batch, widen(w), v, out_features); },
                 widen(b), widen(r), backend().to_host(slots[1].tensors->grad), "bias gradient");
}

TEST_CASE("relu, residual add + relu and gradient accumulation match references", "[unit]") {
  const Dims dims{2, 16, 3, 3};
  auto a = random_floats(288, 41), b = random_floats(288, 42);
  for (auto* v : {&a, &b})  // keep away from the kink at 0
    for (auto& e : *v) e += e >= 0 ? 0.01f : -0.01f;
  const auto r = random_floats(288, 43);

  auto relu = backend().relu();
  const auto [y, dx] = run(*relu, dims, a, r, dims);
  CHECK(relative_error(y, naive::relu(widen(a))) == 0.0);
  check_gradient([](const naive::Values& v) { return naive::relu(v); }, widen(a), widen(r), dx, "relu");

  auto residual = backend().residual_add_relu();
  const Tensor sum = residual->forward(backend().from_host(dims, a), backend().from_host(dims, b), Mode::kTrain);
  CHECK(relative_error(backend().to_host(sum), naive::add_relu(widen(a), widen(b))) < 1e-7);
  const auto d = backend().to_host(residual->backward(backend().from_host(dims, r)));
  check_gradient([&](const naive::Values& v) { return naive::add_relu(v, widen(b)); }, widen(a),
                 widen(r), d, "residual");

  const auto total = backend().to_host(backend().add(backend().from_host(dims, a), backend().from_host(dims, b)));
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(total[i] == a[i] + b[i]);
}
