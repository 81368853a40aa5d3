// Training throughput of ResNet-50 on the CUDA backend, for the GPU
// benchmark against PyTorch (scripts/gpu/bench.sh runs both on the lent
// machine): full steps (forward, loss with label smoothing 0.1, backward,
// SGD with momentum and weight decay) on one synthetic batch that stays on
// the GPU, as PyTorch's side keeps its batch there. float16 checks every
// step's gradients for overflow under a loss scale of 1024 (what PyTorch's
// GradScaler does); bfloat16 and float32 need no scale. With --trace, the
// same steps are recorded as parity-train records them: layer ranges in the
// recorder and every kernel, copy and API call through CUPTI.
//
//   gpu_trainer_bench PRECISION BATCH STEPS WARMUP [--trace DB]
//
// Prints "median_step_ms X", "images_per_second X" (from the median step)
// and, traced, "dropped_records X".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "parity/core/error.hpp"
#include "parity/profiler/cupti_collector.hpp"
#include "parity/profiler/recorder.hpp"
#include "parity/trainer/backend/cuda_backend.hpp"
#include "parity/trainer/nn/resnet.hpp"
#include "parity/trainer/optim/sgd.hpp"

using namespace parity::trainer;

namespace {

constexpr std::int64_t kSize = 224, kClasses = 1000;
constexpr double kFloat16LossScale = 1024.0;

Precision parse_precision(const std::string& text) {
  if (text == "float32") return Precision::kFloat32;
  if (text == "float16") return Precision::kFloat16;
  if (text == "bfloat16") return Precision::kBFloat16;
  throw parity::Error("precision '" + text + "'", "gpu_trainer_bench",
                      "choose float32, float16 or bfloat16");
}

int run(int argc, char** argv) {
  if (argc != 5 && !(argc == 7 && std::string(argv[5]) == "--trace")) {
    std::fprintf(stderr, "usage: gpu_trainer_bench PRECISION BATCH STEPS WARMUP [--trace DB]\n");
    return 2;
  }
  const Precision precision = parse_precision(argv[1]);
  const std::int64_t batch = std::atoll(argv[2]);
  const int steps = std::atoi(argv[3]), warmup = std::atoi(argv[4]);
  if (batch < 1 || steps < 1 || warmup < 0) {
    std::fprintf(stderr, "gpu_trainer_bench: BATCH and STEPS must be positive, WARMUP >= 0\n");
    return 2;
  }

  std::unique_ptr<parity::profiler::Recorder> recorder;
  if (argc == 7) {
    parity::profiler::RecorderOptions options;
    options.path = argv[6];
    options.command_line = "gpu_trainer_bench " + std::string(argv[1]) + " " + argv[2];
    recorder = std::make_unique<parity::profiler::Recorder>(std::move(options));
    recorder->name_thread("train");
  }
  CudaBackendOptions backend_options;
  backend_options.precision = precision;
  const auto backend = make_cuda_backend(backend_options);
  backend->set_recorder(recorder.get());
  std::unique_ptr<parity::profiler::CuptiCollector> cupti;
  if (recorder) {
    cupti = std::make_unique<parity::profiler::CuptiCollector>(*recorder);
    cupti->start();
  }
  Tracing tracing{recorder.get(), nullptr};
  const Dims input{batch, 3, kSize, kSize};
  ResNet model(*backend, {50, kClasses, false, input, 1, Stem::kImageNet, {}}, tracing);
  Sgd optimizer(*backend, model.state().parameters, {0.9, 0.0, false, 1e-4});
  std::vector<ParamTensors*> gradients;
  for (const Parameter& p : model.state().parameters) gradients.push_back(p.tensors);

  std::mt19937 engine(1);
  std::normal_distribution<float> normal;
  std::vector<float> pixels(std::size_t(element_count(input)));
  for (float& v : pixels) v = normal(engine);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(batch));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::int32_t(i % kClasses);
  const Tensor images = backend->from_host(input, pixels);

  const bool scaled = precision == Precision::kFloat16;
  const double scale = scaled ? kFloat16LossScale : 1.0;
  std::int64_t skipped = 0;
  // Traced, each step and its phases are ranges, as parity-train records
  // them, so that parity report reads the trace.
  using parity::profiler::Category;
  const auto range = [&recorder](std::optional<parity::profiler::Scope>& scope, const char* name,
                                 Category category, std::int64_t arg = 0) {
    if (!recorder) return;
    const parity::profiler::NameId id = parity::profiler::intern(name);
    if (category == Category::kStep)
      scope.emplace(*recorder, id, category, arg);
    else
      scope.emplace(*recorder, id, category);
  };
  const auto step = [&](std::int64_t number) {
    std::optional<parity::profiler::Scope> step_range, phase;
    range(step_range, "step", Category::kStep, number);
    range(phase, "forward", Category::kPhase);
    const Tensor logits = model.forward(images, Mode::kTrain);
    const BackendLoss loss =
        backend->cross_entropy(logits, labels, {0.1, SmoothingConvention::kPyTorch, scale});
    phase.reset();
    range(phase, "backward", Category::kPhase);
    model.backward(loss.grad_logits);
    phase.reset();
    range(phase, "optimizer", Category::kPhase);
    if (scaled && !backend->gradients_finite(gradients))
      ++skipped;
    else
      optimizer.step(0.1, scale);
    backend->synchronize();
  };
  for (int i = 0; i < warmup; ++i) step(i);
  std::vector<double> step_ms;
  for (int i = 0; i < steps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    step(warmup + i);
    step_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  if (cupti) cupti->stop();
  // The median as Python's statistics.median takes it (the peer's): the mean
  // of the middle two of an even count.
  std::sort(step_ms.begin(), step_ms.end());
  const std::size_t middle = step_ms.size() / 2;
  const double median =
      step_ms.size() % 2 == 1 ? step_ms[middle] : (step_ms[middle - 1] + step_ms[middle]) / 2;
  std::printf("device %s\n", backend->describe().c_str());
  std::printf("median_step_ms %.3f\n", median);
  std::printf("images_per_second %.1f\n", double(batch) * 1000.0 / median);
  std::printf("skipped_steps %lld\n", static_cast<long long>(skipped));
  if (recorder) {
    recorder->stop();
    // Lost anywhere: CUPTI's dropped or incomplete records, the recorder's ring.
    const parity::profiler::GpuTraceCounts gpu = cupti->counts();
    std::printf(
        "dropped_records %llu\n",
        static_cast<unsigned long long>(recorder->stats().dropped + gpu.dropped + gpu.incomplete));
    std::printf("traced_kernels %llu\n", static_cast<unsigned long long>(gpu.kernels));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const parity::Error& error) {
    std::fprintf(stderr, "gpu_trainer_bench: %s\n", error.what());
    return 2;
  }
}
