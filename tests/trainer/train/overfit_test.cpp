// Training end to end in-process: a ResNet-18 (small-image stem) trained
// with Sgd and softmax cross-entropy on ONE fixed batch of random images with
// random labels must memorise it: loss below 0.05 and every image classified
// right within a bounded number of steps, with every parameter updated on
// the way. Forward, loss gradient, backward through every layer and the
// optimizer all take part; a wrong sign or a stale weight stalls the loss.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/loss/softmax_cross_entropy.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "parity/trainer/optim/sgd.hpp"
#include "peer.hpp"

using namespace parity::trainer;
using namespace train_test;

TEST_CASE("ResNet-18 with SGD memorises one batch of random images", "[e2e]") {
  constexpr std::int64_t kImages = 16, kClasses = 4, kSize = 16;
  constexpr int kMaxSteps = 60;
  const Dims input{kImages, 3, kSize, kSize};

  auto backend = make_cpu_backend({});
  Tracing tracing;
  ResNet model(*backend, {18, kClasses, false, input, 3, Stem::kAuto, {}}, tracing);
  Sgd sgd(*backend, model.state().parameters, {0.9, 0.0, false, 0.0});

  const std::vector<float> images = normal_floats(std::size_t(element_count(input)), 21, 1.f);
  // Four images of each class, in shuffled order.
  std::vector<std::int32_t> labels(kImages);
  for (std::int64_t n = 0; n < kImages; ++n) labels[std::size_t(n)] = std::int32_t(n % kClasses);
  std::shuffle(labels.begin(), labels.end(), std::mt19937(22));

  std::vector<std::vector<float>> initial;
  for (const Parameter& p : model.state().parameters)
    initial.push_back(backend->to_host(p.tensors->value));

  std::vector<double> losses;
  std::int64_t correct = 0;
  for (int step = 0; step < kMaxSteps; ++step) {
    const Tensor logits = model.forward(backend->from_host(input, images), Mode::kTrain);
    const LossResult loss = softmax_cross_entropy(backend->to_host(logits), labels, kClasses, {});
    losses.push_back(loss.loss);
    correct = loss.correct;
    if (loss.loss < 0.05 && correct == kImages) break;
    model.backward(backend->from_host({kImages, kClasses}, loss.grad_logits));
    sgd.step(0.05);
  }
  INFO("steps " << losses.size() << ", first loss " << losses.front() << ", last loss "
                << losses.back() << ", correct " << correct << " of " << kImages);
  // Chance level for 4 classes is ln 4 = 1.39; the untrained net starts near it.
  CHECK(losses.front() > 0.5);
  CHECK(losses.back() < 0.05);
  CHECK(correct == kImages);
  CHECK(losses.size() < std::size_t(kMaxSteps));
  // The classifier alone could memorise 16 points: every parameter, down to
  // conv1, must have been updated, so gradients reached every layer.
  const auto& parameters = model.state().parameters;
  REQUIRE(parameters.size() == 62);
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    INFO(parameters[i].name);
    CHECK(backend->to_host(parameters[i].tensors->value) != initial[i]);
  }
}
