// Whole training steps of a ResNet-18 on the CUDA backend against the CPU
// backend ([gpu]): the same initial weights (the seed), the same batch, the
// loss with label smoothing, backward through every layer and two SGD steps
// with momentum and weight decay. Logits, loss and running statistics must
// agree to float32 accuracy. Gradients and the steps' updates are compared
// in the Euclidean norm: a ReLU input within rounding of zero passes on one
// backend and blocks on the other, which moves the few sums it enters (with
// 8 images at 2x2 in the last stage, a weight gradient sums 32 terms) and
// nothing else. In float16 and bfloat16 the same steps follow the CPU's
// float32 to the rounding of 16-bit activations.
#include "backend_pair.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "parity/trainer/optim/sgd.hpp"

using namespace cuda_test;

namespace {

struct StepResult {
  std::vector<float> logits;
  double loss = 0;
  std::int64_t correct = 0;
  std::vector<std::vector<float>> grads, updates, buffers;
};

std::vector<float> difference(const std::vector<float>& after, const std::vector<float>& before) {
  std::vector<float> d(after.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = after[i] - before[i];
  return d;
}

std::vector<StepResult> train(Backend& backend, const Dims& input, std::int64_t classes,
                              int steps) {
  Tracing tracing;
  ResNet model(backend, {18, classes, false, input, 5, Stem::kAuto, {}}, tracing);
  Sgd sgd(backend, model.state().parameters, {0.9, 0.0, false, 1e-4});
  std::vector<std::int32_t> labels(static_cast<std::size_t>(input[0]));
  for (std::size_t n = 0; n < labels.size(); ++n)
    labels[n] = std::int32_t(n % std::size_t(classes));
  std::vector<StepResult> results;
  for (int step = 0; step < steps; ++step) {
    const auto images = random_floats(std::size_t(element_count(input)), unsigned(100 + step));
    StepResult r;
    const Tensor logits = model.forward(backend.from_host(input, images), Mode::kTrain);
    r.logits = backend.to_host(logits);
    const BackendLoss loss =
        backend.cross_entropy(logits, labels, {0.1, SmoothingConvention::kPyTorch, 1.0});
    r.loss = loss.loss;
    r.correct = loss.correct;
    model.backward(loss.grad_logits);
    std::vector<std::vector<float>> before;
    for (const Parameter& p : model.state().parameters)
      before.push_back(backend.to_host(p.tensors->value));
    sgd.step(0.1);
    for (std::size_t i = 0; i < before.size(); ++i) {
      const Parameter& p = model.state().parameters[i];
      r.grads.push_back(backend.to_host(p.tensors->grad));
      r.updates.push_back(difference(backend.to_host(p.tensors->value), before[i]));
    }
    for (const StateEntry& entry : model.state().entries)
      if (entry.kind == StateEntry::kBuffer) r.buffers.push_back(backend.to_host(*entry.tensor));
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace

TEST_CASE("ResNet-18 training steps on the GPU match the CPU backend", "[gpu]") {
  if (skip_without_gpu()) return;
  const Dims input{8, 3, 16, 16};
  const auto want = train(cpu(), input, 10, 2);
  const auto got = train(gpu(), input, 10, 2);
  for (std::size_t step = 0; step < want.size(); ++step) {
    INFO("step " << step);
    check_close(got[step].logits, want[step].logits, "logits");
    CHECK(got[step].loss == Approx(want[step].loss).epsilon(1e-5));
    CHECK(got[step].correct == want[step].correct);
    for (std::size_t i = 0; i < want[step].grads.size(); ++i) {
      INFO("parameter " << i);
      CHECK(l2_relative_error(got[step].grads[i], want[step].grads[i]) <= 1e-2);
      CHECK(l2_relative_error(got[step].updates[i], want[step].updates[i]) <= 1e-2);
    }
    for (std::size_t i = 0; i < want[step].buffers.size(); ++i)
      check_close(got[step].buffers[i], want[step].buffers[i], "running statistic");
  }
}

TEST_CASE("ResNet-18 training steps in float16 and bfloat16 follow the CPU backend's float32",
          "[gpu]") {
  if (skip_without_gpu()) return;
  const Dims input{8, 3, 16, 16};
  const auto want = train(cpu(), input, 10, 2);
  for (const Precision precision : {Precision::kFloat16, Precision::kBFloat16}) {
    DYNAMIC_SECTION(precision_name(precision)) {
      const auto got = train(gpu(precision), input, 10, 2);
      for (std::size_t step = 0; step < want.size(); ++step) {
        INFO("step " << step);
        // Rounding every activation to 16 bits through 18 layers moves the
        // logits by a few of bfloat16's 2^-8 steps; the loss averages that out.
        CHECK(relative_error(got[step].logits, want[step].logits) <= 5e-2);
        CHECK(got[step].loss == Approx(want[step].loss).epsilon(1e-2));
        for (std::size_t i = 0; i < want[step].grads.size(); ++i) {
          INFO("parameter " << i);
          CHECK(l2_relative_error(got[step].grads[i], want[step].grads[i]) <= 1e-1);
          CHECK(l2_relative_error(got[step].updates[i], want[step].updates[i]) <= 1e-1);
        }
        for (std::size_t i = 0; i < want[step].buffers.size(); ++i)
          check_close(got[step].buffers[i], want[step].buffers[i], "running statistic",
                      kLowPrecisionTolerance);
      }
    }
  }
}
