// The float64 reference backend (precision: float64), op by op: against the
// oneDNN CPU backend on small random shapes, forward and backward (input and
// parameter gradients, running statistics), agreeing to float32 rounding;
// and against values worked by hand where the two could share a mistake
// (a one-channel convolution with padding, PyTorch's max-pool ties, NaN and
// -inf windows, BN's unbiased running variance, the loss and SGD formulas).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

#include "parity/core/error.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/backend/reference_backend.hpp"
#include "random_floats.hpp"

using namespace parity::trainer;

namespace {

Backend& cpu() {
  static const std::unique_ptr<Backend> instance = make_cpu_backend({});
  return *instance;
}
Backend& reference() {
  static const std::unique_ptr<Backend> instance = make_reference_backend({});
  return *instance;
}

using Values = std::vector<double>;
using LayerMaker = std::function<std::unique_ptr<LayerOp>(Backend&)>;

// max |got - want| / max |want|: float32 rounding is about 1e-7 of the
// largest element, whatever the small ones do.
double relative_difference(const Values& got, const Values& want) {
  REQUIRE(got.size() == want.size());
  double worst = 0, scale = 1e-30;
  for (std::size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return worst / scale;
}

// One training forward and backward of a layer on `backend`, with the
// parameters, input and output gradient drawn from `seed`, then an
// evaluation forward: everything it produced, in float64.
struct LayerRun {
  Values y, dx, eval;
  std::vector<Values> grads, buffers;
};

LayerRun run_layer(Backend& backend, const LayerMaker& make, const Dims& input, unsigned seed) {
  auto op = make(backend);
  unsigned stream = seed;
  for (const ParamSlot& slot : op->parameters())
    backend.write(slot.tensors->value,
                  random_floats(std::size_t(element_count(slot.shape)), ++stream, -1.f, 1.f));
  const auto x = random_floats(std::size_t(element_count(input)), seed, -2.f, 2.f);
  LayerRun run;
  const Tensor y = op->forward(backend.from_host(input, x), Mode::kTrain);
  run.y = backend.to_host_double(y);
  const Tensor dy =
      backend.from_host(y.dims(), random_floats(std::size_t(y.element_count()), seed + 100));
  const Tensor dx = op->backward(dy);
  if (dx.defined()) run.dx = backend.to_host_double(dx);
  for (const ParamSlot& slot : op->parameters())
    run.grads.push_back(backend.to_host_double(slot.tensors->grad));
  for (const BufferSlot& slot : op->buffers()) run.buffers.push_back(backend.to_host_double(*slot.tensor));
  run.eval = backend.to_host_double(op->forward(backend.from_host(input, x), Mode::kEval));
  return run;
}

// The layer on both backends: every output within `tolerance` of oneDNN's.
void compare_with_onednn(const LayerMaker& make, const Dims& input, double tolerance = 1e-5) {
  const LayerRun want = run_layer(cpu(), make, input, 7);
  const LayerRun got = run_layer(reference(), make, input, 7);
  CHECK(relative_difference(got.y, want.y) < tolerance);
  REQUIRE(got.dx.size() == want.dx.size());
  if (!want.dx.empty()) CHECK(relative_difference(got.dx, want.dx) < tolerance);
  REQUIRE(got.grads.size() == want.grads.size());
  for (std::size_t i = 0; i < want.grads.size(); ++i) {
    INFO("gradient of parameter " << i);
    CHECK(relative_difference(got.grads[i], want.grads[i]) < tolerance);
  }
  REQUIRE(got.buffers.size() == want.buffers.size());
  for (std::size_t i = 0; i < want.buffers.size(); ++i) {
    INFO("buffer " << i);
    CHECK(relative_difference(got.buffers[i], want.buffers[i]) < tolerance);
  }
  CHECK(relative_difference(got.eval, want.eval) < tolerance);
}

struct ConvCase {
  std::int64_t in, out, size, kernel, stride, padding;
  bool input_grad = true;
  std::int64_t padding_end = -1;
};

}  // namespace

TEST_CASE("reference conv2d agrees with oneDNN forward and backward", "[unit]") {
  const ConvCase cases[] = {
      {3, 8, 9, 3, 1, 1},         {4, 6, 7, 3, 2, 1},  {8, 5, 6, 1, 1, 0},
      {8, 4, 7, 1, 2, 0},         {3, 5, 9, 7, 2, 3, false},
      {4, 4, 8, 3, 2, 0, true, 1},  // MindSpore's "same": nothing before, 1 after
      // Past one depth block (288 > 256) and one column block (576 > 512)
      // of the matrix product, with rows that are not a multiple of its tile.
      {32, 6, 24, 3, 1, 1},
      // A column matrix of 576 x 4096 per image, over the 2^22 elements of
      // one group: each image is a group of its own.
      {64, 4, 64, 3, 1, 1},
  };
  for (const ConvCase& c : cases) {
    DYNAMIC_SECTION("conv " << c.in << "->" << c.out << " " << c.size << "px k" << c.kernel << " s"
                            << c.stride << " p" << c.padding << " end " << c.padding_end
                            << (c.input_grad ? "" : " no input gradient")) {
      const Dims input{2, c.in, c.size, c.size};
      compare_with_onednn(
          [&](Backend& b) {
            return b.conv2d({c.in, c.out, c.kernel, c.stride, c.padding, input, c.input_grad,
                             c.padding_end});
          },
          input);
    }
  }
}

TEST_CASE("reference batch norm, ReLU, pooling, linear agree with oneDNN", "[unit]") {
  const Dims image{4, 8, 5, 5};
  SECTION("batch norm") {
    compare_with_onednn([&](Backend& b) { return b.batch_norm({8, 1e-5, 0.1, false, image}); },
                        image);
  }
  SECTION("batch norm with fused ReLU") {
    compare_with_onednn([&](Backend& b) { return b.batch_norm({8, 1e-5, 0.1, true, image}); },
                        image);
  }
  SECTION("relu") { compare_with_onednn([](Backend& b) { return b.relu(); }, image); }
  SECTION("max pool 3x3 stride 2 padding 1") {
    const Dims input{2, 4, 7, 7};
    compare_with_onednn([&](Backend& b) { return b.max_pool({3, 2, 1, input}); }, input);
  }
  SECTION("max pool 2x2 stride 2") {
    const Dims input{2, 3, 6, 6};
    compare_with_onednn([&](Backend& b) { return b.max_pool({2, 2, 0, input}); }, input);
  }
  SECTION("global average pool") {
    compare_with_onednn([](Backend& b) { return b.global_avg_pool(); }, image);
  }
  SECTION("linear on pooled [N, C, 1, 1]") {
    const Dims pooled{4, 24, 1, 1};
    compare_with_onednn([&](Backend& b) { return b.linear({24, 10, pooled}); }, pooled);
  }
  SECTION("linear on [N, C]") {
    const Dims matrix{3, 20};
    compare_with_onednn([&](Backend& b) { return b.linear({20, 7, matrix}); }, matrix);
  }
}

TEST_CASE("reference residual add + ReLU and add agree with oneDNN", "[unit]") {
  const Dims dims{2, 6, 4, 4};
  const auto a = random_floats(192, 1), b = random_floats(192, 2), r = random_floats(192, 3);
  const auto run = [&](Backend& backend) {
    auto op = backend.residual_add_relu();
    const Tensor y =
        op->forward(backend.from_host(dims, a), backend.from_host(dims, b), Mode::kTrain);
    const Tensor dx = op->backward(backend.from_host(dims, r));
    const Tensor sum = backend.add(backend.from_host(dims, a), backend.from_host(dims, b));
    return std::vector<Values>{backend.to_host_double(y), backend.to_host_double(dx),
                               backend.to_host_double(sum)};
  };
  const auto want = run(cpu()), got = run(reference());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(relative_difference(got[i], want[i]) < 1e-6);
}

TEST_CASE("reference conv2d matches a one-channel convolution worked by hand", "[unit]") {
  Backend& b = reference();
  // x = 1..9 in a 3x3 image, w = [[1, 2], [3, 4]].
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9}, w{1, 2, 3, 4};
  const Dims input{1, 1, 3, 3};
  SECTION("no padding: forward, weight and input gradients") {
    auto op = b.conv2d({1, 1, 2, 1, 0, input, true});
    b.write(op->parameters()[0].tensors->value, w);
    const Tensor y = op->forward(b.from_host(input, x), Mode::kTrain);
    CHECK(b.to_host_double(y) == Values{37, 47, 67, 77});
    const Tensor dx = op->backward(b.from_host({1, 1, 2, 2}, std::vector<float>{1, 1, 1, 1}));
    // dW[i][j]: the sum of the inputs each weight met; dx: the sum of the weights each input met.
    CHECK(b.to_host_double(op->parameters()[0].tensors->grad) == Values{12, 16, 24, 28});
    CHECK(b.to_host_double(dx) == Values{1, 3, 2, 4, 10, 6, 3, 7, 4});
  }
  SECTION("padding 1, stride 2: windows over the padding") {
    auto op = b.conv2d({1, 1, 2, 2, 1, input, true});
    b.write(op->parameters()[0].tensors->value, w);
    const Tensor y = op->forward(b.from_host(input, x), Mode::kTrain);
    CHECK(b.to_host_double(y) == Values{1 * 4, 2 * 3 + 3 * 4, 4 * 2 + 7 * 4, 5 + 12 + 24 + 36});
  }
  SECTION("asymmetric padding: none before, 1 after (MindSpore's same)") {
    auto op = b.conv2d({1, 1, 2, 2, 0, input, true, 1});
    b.write(op->parameters()[0].tensors->value, w);
    const Tensor y = op->forward(b.from_host(input, x), Mode::kTrain);
    CHECK(y.dims() == Dims{1, 1, 2, 2});
    CHECK(b.to_host_double(y) == Values{37, 3 * 1 + 6 * 3, 7 * 1 + 8 * 2, 9 * 1});
  }
}

// What PyTorch 1.13's max_pool2d gives on these inputs (float64, kernel 3,
// stride 2, padding 1, output gradient 1, 10, 100, 1000): the first maximum
// of a window in row-major order wins a tie, a NaN wins over every number,
// and a window of -inf outputs -inf with its gradient at the window's first
// element inside the image. (oneDNN's differ on NaN and -inf: cpu_layer_test.)
TEST_CASE("reference max pool breaks ties, NaN and -inf windows as PyTorch does", "[unit]") {
  Backend& b = reference();
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  constexpr float inf = std::numeric_limits<float>::infinity();
  const Dims dims{1, 3, 3, 3};
  const std::vector<float> x{1,    2,    3,    4,    nan,  6,    7,    8,    0,  // NaN in every window
                             -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf,
                             0,    3,    3,    0,    3,    0,    0,    0,    0};  // ties of 3
  auto pool = b.max_pool({3, 2, 1, dims});
  const Values y = b.to_host_double(pool->forward(b.from_host(dims, x), Mode::kTrain));
  REQUIRE(y.size() == 12);
  for (int i = 0; i < 4; ++i) CHECK(std::isnan(y[std::size_t(i)]));
  for (int i = 4; i < 8; ++i) CHECK(y[std::size_t(i)] == -std::numeric_limits<double>::infinity());
  for (int i = 8; i < 12; ++i) CHECK(y[std::size_t(i)] == 3);
  const std::vector<float> dy{1, 10, 100, 1000, 1, 10, 100, 1000, 1, 10, 100, 1000};
  const Values dx = b.to_host_double(pool->backward(b.from_host({1, 3, 2, 2}, dy)));
  CHECK(dx == Values{0, 0, 0, 0, 1111, 0, 0, 0, 0,  //
                     1, 10, 0, 100, 1000, 0, 0, 0, 0,  //
                     0, 11, 0, 0, 1100, 0, 0, 0, 0});
}

TEST_CASE("reference batch norm keeps PyTorch's running statistics, worked by hand", "[unit]") {
  Backend& b = reference();
  // One channel, four samples 1, 2, 3, 4: mean 2.5, biased variance 1.25,
  // unbiased 5/3.
  const Dims dims{4, 1, 1, 1};
  auto bn = b.batch_norm({1, 1e-5, 0.1, false, dims});
  const Values y =
      b.to_host_double(bn->forward(b.from_host(dims, std::vector<float>{1, 2, 3, 4}), Mode::kTrain));
  const double sigma = std::sqrt(1.25 + 1e-5);
  CHECK(y == Values{-1.5 / sigma, -0.5 / sigma, 0.5 / sigma, 1.5 / sigma});
  const auto buffers = bn->buffers();
  REQUIRE(buffers.size() == 2);
  CHECK(b.to_host_double(*buffers[0].tensor) == Values{0.1 * 2.5});
  CHECK(b.to_host_double(*buffers[1].tensor)[0] == Approx(0.9 + 0.1 * 5.0 / 3.0).epsilon(1e-15));
  // Evaluation normalizes with them.
  const Values eval =
      b.to_host_double(bn->forward(b.from_host(dims, std::vector<float>{1, 2, 3, 4}), Mode::kEval));
  CHECK(eval[0] == Approx((1 - 0.25) / std::sqrt(0.9 + 0.5 / 3.0 + 1e-5)).epsilon(1e-15));
}

TEST_CASE("reference backend keeps float64: to_host rounds, to_host_double does not", "[unit]") {
  Backend& b = reference();
  auto pool = b.global_avg_pool();
  // The mean of 1, 1, 2 is 4/3, which float32 cannot hold.
  const Tensor mean =
      pool->forward(b.from_host({1, 1, 1, 3}, std::vector<float>{1, 1, 2}), Mode::kEval);
  CHECK(b.to_host_double(mean) == Values{4.0 / 3.0});
  CHECK(b.to_host(mean) == std::vector<float>{float(4.0 / 3.0)});
  CHECK_FALSE(b.host_elements(mean).has_value());
  CHECK_THAT(b.describe(), Catch::StartsWith("float64 reference kernels (plain C++), ") &&
                               Catch::EndsWith(" OpenMP threads"));
  // Data parallel exchanges float32 buckets; the reference backend has none.
  ParamTensors param{b.from_host({2}, std::vector<float>{1, 2}), b.from_host({2}, std::vector<float>{0, 0}),
                     b.from_host({2}, std::vector<float>{0, 0})};
  ParamTensors* params[] = {&param};
  CHECK_THROWS_WITH(b.contiguous_gradients(params), Catch::Contains("float64 gradients"));
}

TEST_CASE("reference SGD follows the SgdStep formula in float64", "[unit]") {
  Backend& b = reference();
  const auto param_of = [&](float w, float g) {
    return ParamTensors{b.from_host({1}, std::vector<float>{w}), b.from_host({1}, std::vector<float>{g}),
                        b.from_host({1}, std::vector<float>{0})};
  };
  SECTION("momentum, weight decay, loss scale, then nesterov") {
    ParamTensors p = param_of(1.0f, 8.0f);
    // g = 8 / 4 + 0.1 * 1 = 2.1; buf = g; w = 1 - 0.3 * 2.1
    b.sgd_update(p, {0.3, 0.9, 0.0, 0.1, 4.0, false, true});
    const double w1 = 1 - 0.3 * 2.1;
    CHECK(b.to_host_double(p.momentum) == Values{2.1});
    CHECK(b.to_host_double(p.value) == Values{w1});
    // Nesterov: g = 2 + 0.1 w1 (scale 4 again), buf = 0.9 * 2.1 + g, w -= lr (g + 0.9 buf)
    b.sgd_update(p, {0.3, 0.9, 0.0, 0.1, 4.0, true, false});
    const double g = 8.0 / 4.0 + 0.1 * w1, buf = 0.9 * 2.1 + g;
    CHECK(b.to_host_double(p.momentum)[0] == Approx(buf).epsilon(1e-15));
    CHECK(b.to_host_double(p.value)[0] == Approx(w1 - 0.3 * (g + 0.9 * buf)).epsilon(1e-15));
  }
  SECTION("gradients_finite sees an Inf or a NaN") {
    ParamTensors clean = param_of(1, 2), overflow = param_of(1, 2);
    ParamTensors* both[] = {&clean, &overflow};
    CHECK(b.gradients_finite(both));
    b.fill(overflow.grad, std::numeric_limits<float>::infinity());
    CHECK_FALSE(b.gradients_finite(both));
    b.fill(overflow.grad, std::numeric_limits<float>::quiet_NaN());
    CHECK_FALSE(b.gradients_finite(both));
  }
}

TEST_CASE("reference cross-entropy is softmax_cross_entropy in float64", "[unit]") {
  Backend& b = reference();
  SECTION("two equal logits: ln 2, gradient -1/2 and 1/2") {
    const std::int32_t labels[] = {0};
    const BackendLoss loss =
        b.cross_entropy(b.from_host({1, 2}, std::vector<float>{0, 0}), labels, {});
    CHECK(loss.loss == Approx(std::log(2.0)).epsilon(1e-15));
    CHECK(b.to_host_double(loss.grad_logits) == Values{-0.5, 0.5});
  }
  SECTION("with smoothing and a loss scale, as the CPU backend within float32 rounding") {
    const std::vector<float> logits = random_floats(4 * 10, 5, -3.f, 3.f);
    const std::int32_t labels[] = {3, 0, 9, 3};
    const LossOptions options{0.1, SmoothingConvention::kPyTorch, 128.0};
    const BackendLoss want = cpu().cross_entropy(cpu().from_host({4, 10}, logits), labels, options);
    const BackendLoss got = b.cross_entropy(b.from_host({4, 10}, logits), labels, options);
    CHECK(got.loss == Approx(want.loss).epsilon(1e-12));  // both sum in double
    CHECK(got.correct == want.correct);
    CHECK(relative_difference(b.to_host_double(got.grad_logits),
                              cpu().to_host_double(want.grad_logits)) < 1e-6);
  }
}
