// THOR on the CUDA backend ([gpu]): its KroneckerEngine (cuBLAS products,
// cuSOLVER's batched Cholesky) against the host engine on the CPU backend,
// which thor_step_test holds to a float64 PyTorch reference. First the
// engine alone on one convolution and one classifier whose factors split
// into full and partial blocks, then two whole THOR steps of the small
// network of the THOR tests, float32 on both (TF32 off).
#include "backend_pair.hpp"
#include "parity/core/error.hpp"
#include "parity/trainer/optim/kronecker_engine.hpp"
#include "small_net.hpp"

using namespace cuda_test;

namespace {

// A convolution 16 -> 130, 3x3, stride 2, "same" padding (0 before, 1
// after) on [4, 16, 9, 9]: A has 144 rows (a block of 128 and one of 16),
// G 130 (128 and 2). The classifier: 200 features, 130 classes.
const WeightGeometry kConv{WeightGeometry::kConv, 3, 2, 0, 1};
const std::vector<KroneckerLayerShape> kShapes{{130, 144, true}, {130, 200, false}};
const Dims kConvInput{4, 16, 9, 9}, kConvOutputGrad{4, 130, 5, 5}, kConvWeight{130, 16, 3, 3};
const Dims kFcInput{4, 200}, kFcOutputGrad{4, 130}, kFcWeight{130, 200};

struct EngineResult {
  std::vector<std::vector<float>> inverses, preconditioned;
};

EngineResult run_engine(Backend& backend, KroneckerEngine& engine, bool plant_nan = false) {
  std::vector<float> conv_input = random_floats(element_count(kConvInput), 1);
  if (plant_nan) conv_input[17] = std::nanf("");
  engine.collect_input(0, kConv, backend.from_host(kConvInput, conv_input));
  engine.collect_output_grad(
      0, backend.from_host(kConvOutputGrad, random_floats(element_count(kConvOutputGrad), 2)));
  engine.collect_input(1, WeightGeometry::linear(),
                       backend.from_host(kFcInput, random_floats(element_count(kFcInput), 3)));
  engine.collect_output_grad(
      1, backend.from_host(kFcOutputGrad, random_floats(element_count(kFcOutputGrad), 4)));
  // The scales a convolution of 25 output pixels and batch 4 gets under a loss scale of 8.
  engine.form_factors(0, {1.0 / 25, 16.0 / 64 / 25});
  engine.form_factors(1, {1.0, 1.0 / 64});
  const std::vector<InverseSettings> settings{{0.2, 0.2, "conv.weight"}, {0.17, 1.0, "fc.weight"}};
  engine.invert(settings);
  const Tensor conv_grad =
      backend.from_host(kConvWeight, random_floats(element_count(kConvWeight), 5));
  const Tensor fc_grad = backend.from_host(kFcWeight, random_floats(element_count(kFcWeight), 6));
  const std::vector<const Tensor*> grads{&conv_grad, &fc_grad};
  engine.precondition(grads);
  EngineResult result;
  for (std::size_t l = 0; l < kShapes.size(); ++l)
    for (const KroneckerPart part : {KroneckerPart::kAInverse, KroneckerPart::kGInverse})
      result.inverses.push_back(engine.read(l, part));
  result.preconditioned = {backend.to_host(conv_grad), backend.to_host(fc_grad)};
  return result;
}

}  // namespace

TEST_CASE("the CUDA THOR engine's factors, inverses and preconditioning match the host engine's",
          "[gpu]") {
  if (skip_without_gpu()) return;
  const auto host = make_host_kronecker_engine(cpu(), kShapes);
  const auto device = gpu().kronecker_engine(kShapes);
  REQUIRE(device != nullptr);
  const EngineResult want = run_engine(cpu(), *host), got = run_engine(gpu(), *device);
  for (std::size_t i = 0; i < want.inverses.size(); ++i) {
    INFO("inverse " << i << " (conv A, conv G, fc A, fc G)");
    CHECK(relative_error(got.inverses[i], want.inverses[i]) < 1e-5);
  }
  for (std::size_t l = 0; l < want.preconditioned.size(); ++l) {
    INFO("preconditioned gradient of layer " << l);
    CHECK(relative_error(got.preconditioned[l], want.preconditioned[l]) < 1e-5);
  }
}

TEST_CASE("the CUDA THOR engine refuses a factor holding NaN, naming the layer", "[gpu]") {
  if (skip_without_gpu()) return;
  const auto device = gpu().kronecker_engine(kShapes);
  CHECK_THROWS_WITH(run_engine(gpu(), *device, true),
                    Catch::Contains("conv.weight") && Catch::Contains("not positive definite"));
}

TEST_CASE("two THOR steps of the small network on the GPU match the CPU's", "[gpu]") {
  if (skip_without_gpu()) return;
  constexpr std::int64_t kBatch = 4;
  struct Run {
    std::vector<std::vector<float>> updates, inverses;
  };
  const auto run = [&](std::unique_ptr<Backend> backend) {
    thor_test::SmallNet net(kBatch, std::move(backend));
    const std::vector<std::vector<float>> initial = net.initialise(10);
    thor_test::ThorSteps steps(net);
    for (int step = 0; step < 2; ++step)
      steps.step(step, thor_test::normal_floats(kBatch * 3 * 6 * 6, 20 + step, 1.0f),
                 {3, 77, 129, std::int32_t(step)});
    Run result;
    for (std::size_t i = 0; i < initial.size(); ++i) {
      std::vector<float> update = net.backend->to_host(net.state.parameters[i].tensors->value);
      for (std::size_t k = 0; k < update.size(); ++k) update[k] -= initial[i][k];
      result.updates.push_back(std::move(update));
    }
    for (const auto& inverse : steps.thor.export_state())
      result.inverses.push_back(inverse.values<float>());
    return result;
  };
  const Run want = run(make_cpu_backend({1, true})), got = run(make_cuda_backend({}));
  REQUIRE(got.inverses.size() == want.inverses.size());
  for (std::size_t i = 0; i < want.inverses.size(); ++i) {
    INFO("inverse " << i);
    CHECK(relative_error(got.inverses[i], want.inverses[i]) < 1e-4);
  }
  // Judged on the updates of two steps, which is what THOR changes.
  for (std::size_t i = 0; i < want.updates.size(); ++i) {
    INFO("parameter " << i);
    CHECK(l2_relative_error(got.updates[i], want.updates[i]) < 1e-3);
  }
}
