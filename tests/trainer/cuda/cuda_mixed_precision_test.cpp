// The CUDA backend in float16 and bfloat16 (the seeds' amp_level O2) on a
// GPU ([gpu]): every op against the CPU backend's float32 within the issue's
// 1e-2, activations rounded exactly as the formats round, and a float16 run
// whose loss scale is too large for float16 recovering by itself.
#include <sstream>

#include "layer_comparison.hpp"
#include "parity/trainer/config/train_config.hpp"
#include "parity/trainer/train/training_run.hpp"
#include "temp_dir.hpp"

using namespace cuda_test;

namespace {

constexpr Precision kLowPrecisions[] = {Precision::kFloat16, Precision::kBFloat16};

}  // namespace

TEST_CASE("every CUDA op in float16 and bfloat16 matches the CPU backend to 1e-2", "[gpu]") {
  if (skip_without_gpu()) return;
  for (const Precision precision : kLowPrecisions) {
    DYNAMIC_SECTION(precision_name(precision)) {
      struct Conv {
        std::int64_t in, out, size, kernel, stride, pad, pad_end;
        bool input_grad;
      };
      for (const Conv& c :
           {Conv{16, 32, 8, 3, 1, 1, -1, true}, Conv{32, 16, 8, 1, 2, 0, -1, true},
            Conv{3, 16, 16, 7, 2, 3, -1, false}, Conv{16, 16, 8, 3, 2, 0, 1, true}}) {
        INFO("conv " << c.in << "->" << c.out << " k" << c.kernel << " s" << c.stride);
        const Dims input{4, c.in, c.size, c.size};
        compare_layer(
            [&](Backend& b) {
              return b.conv2d(
                  {c.in, c.out, c.kernel, c.stride, c.pad, input, c.input_grad, c.pad_end});
            },
            input, {3, c.in, c.size, c.size}, precision);
      }
      for (const bool relu : {false, true}) {
        INFO("batch norm, relu " << relu);
        compare_layer(
            [&](Backend& b) {
              return b.batch_norm({32, 1e-5, 0.1, relu, {8, 32, 5, 5}});
            },
            {8, 32, 5, 5}, {2, 32, 5, 5}, precision);
      }
      compare_layer(
          [](Backend& b) {
            return b.max_pool({3, 2, 1, {4, 16, 9, 9}});
          },
          {4, 16, 9, 9}, {2, 16, 9, 9}, precision);
      compare_layer([](Backend& b) { return b.global_avg_pool(); }, {4, 64, 7, 7}, {2, 64, 7, 7},
                    precision);
      compare_layer([](Backend& b) { return b.relu(); }, {4, 16, 6, 6}, {1, 16, 6, 6}, precision);
      compare_layer([](Backend& b) { return b.relu(); }, {3, 5, 7, 3}, {1, 5, 7, 3}, precision);
      for (const Dims& dims : kElementwiseShapes) {
        INFO("residual add " << dims_text(dims));
        const auto want = residual_add_results(cpu(), dims, precision);
        const auto got = residual_add_results(gpu(precision), dims, precision);
        for (std::size_t k = 0; k < want.size(); ++k)
          check_close(got[k], want[k], "residual add", kLowPrecisionTolerance);
      }
      compare_layer(
          [](Backend& b) {
            return b.linear({256, 10, {8, 256, 1, 1}});
          },
          {8, 256, 1, 1}, {3, 256, 1, 1}, precision);
    }
  }
}

TEST_CASE("CUDA activations in bfloat16 and float16 hold the input rounded to the format",
          "[gpu]") {
  if (skip_without_gpu()) return;
  const Dims dims{2, 8, 5, 5};
  // Positive: a ReLU passes them through, so its output is the rounded input.
  const auto x = random_floats(std::size_t(element_count(dims)), 11, 0.01f, 300.f);
  for (const Precision precision : kLowPrecisions) {
    INFO(precision_name(precision));
    Backend& backend = gpu(precision);
    auto relu = backend.relu();
    const std::vector<float> y =
        backend.to_host(relu->forward(backend.from_host(dims, x), Mode::kEval));
    REQUIRE(y.size() == x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO("element " << i << ": " << x[i] << " -> " << y[i]);
      CHECK(y[i] == rounded_to(precision, {x[i]})[0]);
    }
  }
}

TEST_CASE("a float16 run whose loss scale overflows float16 scales down and trains on", "[gpu]") {
  if (skip_without_gpu()) return;
  // A loss scale of 1e12 leaves the gradient of the logits (scale / batch
  // size) far above float16's 65504: the classifier's input gradient is
  // Inf. Each overflow divides the scale by 1000 and skips the step, until
  // 1e3 fits; float32 holds 1e12-scaled gradients and skips nothing.
  const auto run = [](const char* precision) {
    TempDir dir;
    const TrainConfig config = load_train_config(
        {}, {"dataset=synthetic", "net_name=resnet18", "class_num=4", "batch_size=8",
             "train_image_size=16", "synthetic_size=64", "epoch_size=1", "save_checkpoint=false",
             "device_target=GPU", std::string("precision=") + precision, "num_workers=1",
             "loss_scale_manager=dynamic", "loss_scale=1e12", "loss_scale_factor=1000",
             "loss_scale_window=1000"});
    TrainOptions options;
    options.max_steps = 8;
    std::ostringstream log;
    const TrainSummary summary = train(config, options, log);
    INFO(log.str());
    CHECK(summary.steps == 8);
    return summary;
  };
  const TrainSummary half = run("float16");
  CHECK(half.overflow_skips >= 2);
  CHECK(half.overflow_skips < 8);
  CHECK(half.loss_scale <= 1e6);
  const TrainSummary full = run("float32");
  CHECK(full.overflow_skips == 0);
  CHECK(full.loss_scale == 1e12);
}
