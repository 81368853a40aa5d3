// The small network of the THOR tests: conv1 (3 -> 16, 3x3, stride 1,
// padding 1) -> relu -> conv2 (16 -> 8, 3x3, stride 2, MindSpore's "same"
// padding: 0 before, 1 after) -> relu -> global average pool -> fc (8 -> 130),
// on [N, 3, 6, 6] images. conv2's A (144 rows) and fc's G (130) both split into
// blocks of 128, and 8 channels pad oneDNN's 16-channel blocks. No batch norm,
// so N images on one process and N/R on each of R ranks see the same math.
#pragma once

#include <cmath>
#include <memory>
#include <random>

#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/nn/layer.hpp"
#include "parity/trainer/nn/sequential.hpp"
#include "parity/trainer/optim/sgd.hpp"
#include "parity/trainer/optim/thor.hpp"

namespace thor_test {

using namespace parity::trainer;

constexpr std::int64_t kClasses = 130;

inline Dims image_dims(std::int64_t batch) { return {batch, 3, 6, 6}; }

inline std::vector<float> normal_floats(std::int64_t count, std::uint32_t seed, float stddev) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.f, stddev);
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) v = normal(engine);
  return values;
}

struct SmallNet {
  std::unique_ptr<Backend> backend;
  Tracing tracing;
  Sequential root{"", tracing};
  ModelState state;

  explicit SmallNet(std::int64_t batch, int threads = 0) : SmallNet(batch, make_cpu_backend({threads, true})) {}

  // The same network on another backend.
  SmallNet(std::int64_t batch, std::unique_ptr<Backend> on) : backend(std::move(on)) {
    const Conv2dSpec conv1{3, 16, 3, 1, 1, image_dims(batch), true};
    const Conv2dSpec conv2{16, 8, 3, 2, 0, {batch, 16, 6, 6}, true, 1};
    root.add(std::make_unique<Layer>("conv1", tracing, backend->conv2d(conv1), WeightGeometry::conv(conv1)));
    root.add(std::make_unique<Layer>("relu1", tracing, backend->relu()));
    root.add(std::make_unique<Layer>("conv2", tracing, backend->conv2d(conv2), WeightGeometry::conv(conv2)));
    root.add(std::make_unique<Layer>("relu2", tracing, backend->relu()));
    root.add(std::make_unique<Layer>("avgpool", tracing, backend->global_avg_pool()));
    root.add(std::make_unique<Layer>("fc", tracing, backend->linear({8, kClasses, {batch, 8, 1, 1}}),
                                     WeightGeometry::linear()));
    root.collect(state);
  }

  // Seeded He-like weights, the same for every seed on every process; returns them.
  std::vector<std::vector<float>> initialise(std::uint32_t seed) {
    std::vector<std::vector<float>> values;
    for (const Parameter& p : state.parameters) {
      const double fan_in = double(element_count(p.shape)) / double(p.shape[0]);
      values.push_back(normal_floats(element_count(p.shape), seed++, float(1.0 / std::sqrt(fan_in))));
      backend->write(p.tensors->value, values.back());
    }
    return values;
  }

  // Forward and backward of one batch; the loss gradient is that of the
  // batch's mean loss times `loss_scale`.
  void forward_backward(const std::vector<float>& images, const std::vector<std::int32_t>& labels,
                        double loss_scale) {
    const auto batch = static_cast<std::int64_t>(labels.size());
    const Tensor logits = root.forward(backend->from_host(image_dims(batch), images), Mode::kTrain);
    const BackendLoss loss = backend->cross_entropy(logits, labels, {0.0, {}, loss_scale});
    root.backward(loss.grad_logits);
  }
};

// THOR steps of a SmallNet as the THOR tests take them: the inverses
// refreshed at step 0 and reused at step 1, then the momentum step with
// every parameter decayed (nn.thor has no decay filter).
struct ThorSteps {
  static constexpr double kLr = 0.05, kMomentum = 0.9, kWeightDecay = 5e-4, kDamping = 0.03,
                          kLossScale = 128;

  SmallNet& net;
  ThorPreconditioner thor;
  Sgd sgd;

  explicit ThorSteps(SmallNet& on)
      : net(on),
        thor(*on.backend, on.state, options(), nullptr, nullptr),
        sgd(*on.backend, all_decayed(on.state), {kMomentum, 0.0, false, kWeightDecay}) {
    net.tracing.curvature = &thor;
  }

  // Returns whether the step collected the statistics of a refresh.
  bool step(int step, const std::vector<float>& images, const std::vector<std::int32_t>& labels) {
    thor.begin_step(step);
    const bool collected = thor.collecting();
    net.forward_backward(images, labels, kLossScale);
    thor.precondition(step, kLossScale);
    sgd.step(kLr, kLossScale);
    return collected;
  }

 private:
  static ThorOptions options() {
    ThorOptions options;
    options.frequency = 100;
    options.dampings = {kDamping, kDamping};
    return options;
  }
  static std::vector<Parameter> all_decayed(const ModelState& state) {
    std::vector<Parameter> parameters = state.parameters;
    for (Parameter& p : parameters) p.weight_decay = true;
    return parameters;
  }
};

}  // namespace thor_test
