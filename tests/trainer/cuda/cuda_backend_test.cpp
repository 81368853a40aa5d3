// Every op of the CUDA backend against the CPU backend on random inputs
// ([gpu]; float32, TF32 off: relative error at most 1e-4), and what the
// backend says on a machine without a GPU ([unit]).
#include <cuda_runtime.h>

#include <limits>
#include <numeric>

#include "backend_pair.hpp"
#include "expect_error.hpp"
#include "layer_comparison.hpp"
#include "parity/core/error.hpp"

using namespace cuda_test;

TEST_CASE("without a GPU the CUDA backend refuses with a hint", "[unit]") {
  if (cuda_device_unavailable_reason().empty()) return;  // the [gpu] cases cover GPUs
  parity::test::expect_error([] { make_cuda_backend({}); }, "no usable GPU", {"cuda backend"});
  try {
    make_cuda_backend({});
  } catch (const parity::Error& error) {
    CHECK_THAT(error.hint(), Catch::Contains("device_target: CPU"));
  }
}

TEST_CASE("host copies round-trip through the device layouts", "[gpu]") {
  if (skip_without_gpu()) return;
  for (const Dims& dims : {Dims{2, 3, 4, 5}, Dims{6, 7}, Dims{11}}) {
    const auto values = random_floats(std::size_t(element_count(dims)), 1);
    const Tensor t = gpu().from_host(dims, values);
    CHECK(gpu().to_host(t) == values);
    gpu().fill(t, 2.5f);
    CHECK(gpu().to_host(t) == std::vector<float>(values.size(), 2.5f));
  }
  parity::test::expect_error(
      [] {
        gpu().from_host({2, 2}, std::vector<float>(3));
      },
      "3 values", {"cuda backend"});
}

TEST_CASE("CUDA convolutions match the CPU backend", "[gpu]") {
  if (skip_without_gpu()) return;
  struct Case {
    std::int64_t in, out, size, kernel, stride, pad, pad_end;
    bool input_grad;
  };
  const Case cases[] = {{16, 32, 8, 3, 1, 1, -1, true},
                        {16, 32, 9, 3, 2, 1, -1, true},
                        {32, 16, 8, 1, 2, 0, -1, true},
                        {3, 16, 16, 7, 2, 3, -1, false},
                        {16, 16, 8, 3, 2, 0, 1, true}};
  for (const Case& c : cases) {
    DYNAMIC_SECTION("conv " << c.in << "->" << c.out << " k" << c.kernel << " s" << c.stride
                            << " pad " << c.pad << "/" << c.pad_end) {
      const Dims input{4, c.in, c.size, c.size};
      compare_layer(
          [&](Backend& b) {
            return b.conv2d(
                {c.in, c.out, c.kernel, c.stride, c.pad, input, c.input_grad, c.pad_end});
          },
          input, {3, c.in, c.size, c.size});
    }
  }
}

TEST_CASE("CUDA batch norm, with and without its ReLU, matches the CPU backend", "[gpu]") {
  if (skip_without_gpu()) return;
  for (const bool relu : {false, true}) {
    DYNAMIC_SECTION("fused relu " << relu) {
      const Dims input{8, 32, 5, 5};
      compare_layer(
          [&](Backend& b) {
            return b.batch_norm({32, 1e-5, 0.1, relu, input});
          },
          input, {2, 32, 5, 5});
    }
  }
}

TEST_CASE("CUDA pooling, ReLU and the classifier match the CPU backend", "[gpu]") {
  if (skip_without_gpu()) return;
  SECTION("max pool 3x3 stride 2") {
    for (const std::int64_t size : {8, 9}) {
      const Dims input{4, 16, size, size};
      compare_layer(
          [&](Backend& b) {
            return b.max_pool({3, 2, 1, input});
          },
          input, {2, 16, size, size});
    }
  }
  SECTION("global average pool") {
    compare_layer([](Backend& b) { return b.global_avg_pool(); }, {4, 64, 7, 7}, {2, 64, 7, 7});
  }
  SECTION("relu") {
    compare_layer([](Backend& b) { return b.relu(); }, {4, 16, 6, 6}, {1, 16, 6, 6});
  }
  SECTION("linear on pooled features and on a matrix") {
    compare_layer(
        [](Backend& b) {
          return b.linear({256, 10, {8, 256, 1, 1}});
        },
        {8, 256, 1, 1}, {3, 256, 1, 1});
    compare_layer([](Backend& b) { return b.linear({100, 7, {5, 100}}); }, {5, 100}, {2, 100});
  }
}

TEST_CASE("CUDA max pooling passes over NaN and -inf as the CPU backend does", "[gpu]") {
  if (skip_without_gpu()) return;
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  constexpr float inf = std::numeric_limits<float>::infinity();
  const Dims dims{2, 3, 5, 5};
  auto x = random_floats(std::size_t(element_count(dims)), 4);
  // NaN scattered over image 0, image 1's channel 2 all -inf.
  for (std::size_t i = 0; i < 75; i += 7) x[i] = nan;
  for (std::size_t i = 125; i < 150; ++i) x[i] = -inf;
  const auto dy = random_floats(std::size_t(2 * 3 * 3 * 3), 5);
  std::vector<float> y[2], dx[2];
  Backend* backends[] = {&cpu(), &gpu()};
  for (int i = 0; i < 2; ++i) {
    auto op = backends[i]->max_pool({3, 2, 1, dims});
    y[i] = backends[i]->to_host(op->forward(backends[i]->from_host(dims, x), Mode::kTrain));
    dx[i] = backends[i]->to_host(op->backward(backends[i]->from_host({2, 3, 3, 3}, dy)));
  }
  CHECK(y[1] == y[0]);  // no NaN left to compare unequal
  CHECK(dx[1] == dx[0]);
}

TEST_CASE("the CUDA residual add with ReLU and the plain add match the CPU backend", "[gpu]") {
  if (skip_without_gpu()) return;
  for (const Dims& dims : kElementwiseShapes) {
    INFO(dims_text(dims));
    const auto want = residual_add_results(cpu(), dims, Precision::kFloat32);
    const auto got = residual_add_results(gpu(), dims, Precision::kFloat32);
    for (std::size_t k = 0; k < want.size(); ++k) check_close(got[k], want[k], "output");
  }
}

TEST_CASE("the CUDA cross-entropy kernel matches the host loss in both conventions", "[gpu]") {
  if (skip_without_gpu()) return;
  constexpr std::int64_t kRows = 37, kClasses = 1000;
  const auto logits = random_floats(std::size_t(kRows * kClasses), 4, -6.f, 6.f);
  std::vector<std::int32_t> labels(kRows);
  for (std::int64_t n = 0; n < kRows; ++n)
    labels[std::size_t(n)] = std::int32_t((n * 389) % kClasses);
  for (const auto convention : {SmoothingConvention::kPyTorch, SmoothingConvention::kMindSpore}) {
    DYNAMIC_SECTION("convention " << int(convention)) {
      const LossOptions options{0.1, convention, 128.0};
      const LossResult want = softmax_cross_entropy(logits, labels, kClasses, options);
      const BackendLoss got =
          gpu().cross_entropy(gpu().from_host({kRows, kClasses}, logits), labels, options);
      CHECK(got.loss == Approx(want.loss).epsilon(1e-9));
      CHECK(got.correct == want.correct);
      check_close(gpu().to_host(got.grad_logits), want.grad_logits, "gradient");
    }
  }
  parity::test::expect_error(
      [&] {
        std::vector<std::int32_t> bad = labels;
        bad[3] = std::int32_t(kClasses);
        gpu().cross_entropy(gpu().from_host({kRows, kClasses}, logits), bad, {});
      },
      "label 1000 of sample 3", {"softmax cross-entropy"});
}

TEST_CASE("one fused CUDA SGD launch updates like the CPU backend's per-parameter loop", "[gpu]") {
  if (skip_without_gpu()) return;
  // Sizes around the kernel's chunk (65536) and below one block.
  const std::vector<std::int64_t> sizes{70000, 65536, 100, 3};
  for (const bool nesterov : {false, true}) {
    DYNAMIC_SECTION("nesterov " << nesterov) {
      std::vector<std::vector<float>> results[2];
      Backend* backends[] = {&cpu(), &gpu()};
      for (int b = 0; b < 2; ++b) {
        Backend& backend = *backends[b];
        std::vector<ParamTensors> params;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const Dims dims{sizes[i]};
          params.push_back(
              {backend.from_host(dims, random_floats(std::size_t(sizes[i]), unsigned(i))),
               backend.from_host(dims, std::vector<float>(std::size_t(sizes[i]))),
               backend.from_host(dims, std::vector<float>(std::size_t(sizes[i])))});
        }
        std::vector<ParamTensors*> pointers;
        for (ParamTensors& p : params) pointers.push_back(&p);
        for (int step = 0; step < 3; ++step) {
          std::vector<SgdStep> steps;
          for (std::size_t i = 0; i < params.size(); ++i) {
            backend.write(params[i].grad,
                          random_floats(std::size_t(sizes[i]), unsigned(10 * step + i + 50)));
            steps.push_back(
                {0.1 / (step + 1), 0.9, 0.0, i % 2 ? 1e-4 : 0.0, 8.0, nesterov, step == 0});
          }
          backend.sgd_update_all(pointers, steps);
        }
        for (ParamTensors& p : params) {
          results[b].push_back(backend.to_host(p.value));
          results[b].push_back(backend.to_host(p.momentum));
        }
      }
      for (std::size_t k = 0; k < results[0].size(); ++k)
        check_close(results[1][k], results[0][k], "parameter");
    }
  }
}

TEST_CASE("CUDA gradients moved into one buffer keep their values and take backward's writes",
          "[gpu]") {
  if (skip_without_gpu()) return;
  auto op = gpu().linear({64, 10, {4, 64}});
  auto slots = op->parameters();
  std::vector<ParamTensors*> params;
  for (const ParamSlot& slot : slots) {
    gpu().write(slot.tensors->grad, random_floats(std::size_t(element_count(slot.shape)), 9));
    params.push_back(slot.tensors);
  }
  const auto before = gpu().to_host(slots[1].tensors->grad);
  const auto spans = gpu().contiguous_gradients(params);
  REQUIRE(spans.size() == 2);
  CHECK(gpu().to_host(slots[1].tensors->grad) == before);
  const auto x = random_floats(256, 1), dy = random_floats(40, 2);
  op->forward(gpu().from_host({4, 64}, x), Mode::kTrain);
  op->backward(gpu().from_host({4, 10}, dy));
  // What backward must have written there: dW = dy^T x, db = column sums of dy.
  std::vector<float> weight_grad(10 * 64, 0.f), bias_grad(10, 0.f);
  for (std::size_t n = 0; n < 4; ++n)
    for (std::size_t k = 0; k < 10; ++k) {
      bias_grad[k] += dy[n * 10 + k];
      for (std::size_t c = 0; c < 64; ++c)
        weight_grad[k * 64 + c] += dy[n * 10 + k] * x[n * 64 + c];
    }
  const std::vector<float>* expected[] = {&weight_grad, &bias_grad};
  for (std::size_t i = 0; i < spans.size(); ++i) {
    INFO("parameter " << i);
    std::vector<float> in_arena(spans[i].size());
    REQUIRE(cudaMemcpy(in_arena.data(), spans[i].data(), spans[i].size_bytes(),
                       cudaMemcpyDeviceToHost) == cudaSuccess);
    check_close(in_arena, *expected[i], "gradient in the arena");
  }
}
