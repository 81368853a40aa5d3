// Training throughput of the reference ResNet on the CPU backend: images/s
// of full training steps (forward, loss, backward, SGD) on a fixed synthetic
// batch, and the layout conversions per steady-state step. The PyTorch side
// of the comparison is scripts/bench/torch_resnet_peer.py, run by
// scripts/bench/trainer.sh.
//
//   trainer_bench DEPTH IMAGE_SIZE BATCH STEPS [WARMUP]
//
// Prints "images_per_second X", "activation_reorders_per_step X",
// "weight_reorders_per_step X".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/loss/softmax_cross_entropy.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "parity/trainer/optim/sgd.hpp"

using namespace parity::trainer;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: trainer_bench DEPTH IMAGE_SIZE BATCH STEPS [WARMUP]\n");
    return 2;
  }
  const int depth = std::atoi(argv[1]);
  const std::int64_t size = std::atoll(argv[2]), batch = std::atoll(argv[3]);
  const int steps = std::atoi(argv[4]), warmup = argc > 5 ? std::atoi(argv[5]) : 2;
  const std::int64_t classes = 1000;

  auto backend = make_cpu_backend({});
  Tracing tracing;
  // torchvision's network: the ImageNet stem at every image size.
  ResNet model(*backend, {depth, classes, false, {batch, 3, size, size}, 1, Stem::kImageNet, {}}, tracing);
  Sgd optimizer(*backend, model.state().parameters, {0.9, 0.0, false, 1e-4});

  std::mt19937 engine(1);
  std::normal_distribution<float> normal;
  std::vector<float> images(std::size_t(batch * 3 * size * size));
  for (auto& v : images) v = normal(engine);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(batch));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::int32_t(i % classes);

  const auto step = [&] {
    const Tensor logits = model.forward(backend->from_host({batch, 3, size, size}, images), Mode::kTrain);
    const LossResult loss = softmax_cross_entropy(backend->to_host(logits), labels, classes, {0.1});
    model.backward(backend->from_host({batch, classes}, loss.grad_logits));
    optimizer.step(0.01);
  };
  for (int i = 0; i < warmup; ++i) step();
  const BackendStats before = backend->stats();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) step();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const BackendStats after = backend->stats();
  std::printf("images_per_second %.2f\n", double(batch) * steps / seconds);
  std::printf("activation_reorders_per_step %.2f\n",
              double(after.activation_reorders - before.activation_reorders) / steps);
  std::printf("weight_reorders_per_step %.2f\n", double(after.weight_reorders - before.weight_reorders) / steps);
  return 0;
}
