// SGD against torch.optim.SGD, step by step: momentum 0.9 and 0.875,
// Nesterov on and off, dampening 0 and 0.1, weight decay on the decay group
// only, a loss scale of 128 (our gradients arrive multiplied by it, PyTorch's
// do not), and a different learning rate at every step. The parameters are a
// real convolution's weight (16 -> 32 channels, 3x3: oneDNN's blocked layout,
// mirrored in the backward-data layout on AVX-512) and a batch norm's weight
// and bias (the no-decay group), set with Backend::write and read back with
// to_host, so the update runs on the backend's own layouts. After the last
// step the convolution's backward-data pass must see the updated weight:
// that proves the mirror was written along with the weight.
#include "parity/trainer/optim/sgd.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <optional>

#include "parity/trainer/backend/cpu_backend.hpp"
#include "peer.hpp"

using namespace parity::trainer;
using namespace train_test;

namespace {

struct Config {
  double momentum, dampening;
  bool nesterov;
  double weight_decay, loss_scale;
};

// PyTorch refuses Nesterov with dampening, so dampening goes with plain momentum.
const std::vector<Config> kConfigs{
    {0.9, 0.0, false, 1e-2, 1.0},
    {0.9, 0.0, true, 1e-2, 128.0},
    {0.875, 0.1, false, 5e-2, 128.0},
    {0.875, 0.0, true, 3.0517578125e-05, 1.0},
};
const std::vector<double> kRates{0.1, 0.05, 0.2, 0.0125, 0.3};

const Dims kInput{2, 16, 8, 8};
const Dims kOutput{2, 32, 8, 8};
const std::vector<std::string> kNames{"conv", "bnw", "bnb"};

// The three parameters and the ops that own them.
struct Model {
  std::unique_ptr<Backend> backend = make_cpu_backend({});
  std::unique_ptr<LayerOp> conv = backend->conv2d({16, 32, 3, 1, 1, kInput, true});
  std::unique_ptr<LayerOp> bn = backend->batch_norm({32, 1e-5, 0.1, false, kOutput});
  std::vector<Parameter> parameters;

  Model() {
    for (LayerOp* op : {conv.get(), bn.get()})
      for (const ParamSlot& slot : op->parameters())
        parameters.push_back(
            {std::string(op == conv.get() ? "conv" : "bn") + "." + std::string(slot.suffix),
             slot.shape, slot.tensors, slot.weight_decay, std::uint32_t(parameters.size())});
    REQUIRE(parameters.size() == 3);
    // The test relies on the ops' groups: conv weight decays, BN's do not.
    REQUIRE(parameters[0].weight_decay);
    REQUIRE_FALSE(parameters[1].weight_decay);
    REQUIRE_FALSE(parameters[2].weight_decay);
  }
};

struct Inputs {
  std::vector<std::vector<float>> init;                // per parameter
  std::vector<std::vector<std::vector<float>>> grads;  // per step, per parameter (unscaled)
  std::vector<float> x, dy;
};

Inputs make_inputs(const Model& model) {
  Inputs in;
  std::uint32_t seed = 11;
  for (const Parameter& p : model.parameters)
    in.init.push_back(uniform_floats(std::size_t(element_count(p.shape)), seed++, -0.5f, 0.5f));
  for (std::size_t s = 0; s < kRates.size(); ++s) {
    in.grads.emplace_back();
    for (const Parameter& p : model.parameters)
      in.grads.back().push_back(
          uniform_floats(std::size_t(element_count(p.shape)), seed++, -1.f, 1.f));
  }
  in.x = uniform_floats(std::size_t(element_count(kInput)), seed++, -1.f, 1.f);
  in.dy = uniform_floats(std::size_t(element_count(kOutput)), seed++, -1.f, 1.f);
  return in;
}

// PyTorch's run, made once for both test cases (the inputs are seeded).
const SafetensorsFile& torch_reference(const Model& model, const Inputs& in) {
  static TempDir dir;
  static std::optional<SafetensorsFile> file;
  if (file) return *file;
  std::vector<NamedTensor> tensors;
  for (std::size_t i = 0; i < kNames.size(); ++i)
    tensors.push_back(NamedTensor::from_values<float>("init." + kNames[i],
                                                      model.parameters[i].shape, in.init[i]));
  for (std::size_t s = 0; s < kRates.size(); ++s)
    for (std::size_t i = 0; i < kNames.size(); ++i)
      tensors.push_back(NamedTensor::from_values<float>(
          "grad" + std::to_string(s) + "." + kNames[i], model.parameters[i].shape, in.grads[s][i]));
  tensors.push_back(NamedTensor::from_values<double>("lr", {std::int64_t(kRates.size())}, kRates));
  std::vector<double> configs;
  for (const Config& c : kConfigs)
    configs.insert(configs.end(),
                   {c.momentum, c.dampening, c.nesterov ? 1.0 : 0.0, c.weight_decay});
  tensors.push_back(
      NamedTensor::from_values<double>("configs", {std::int64_t(kConfigs.size()), 4}, configs));
  tensors.push_back(NamedTensor::from_values<float>("x", kInput, in.x));
  tensors.push_back(NamedTensor::from_values<float>("dy", kOutput, in.dy));
  file.emplace(run_peer(dir, "sgd", tensors));
  return *file;
}

// Both sides compute in float32 with the same float32 coefficients, in the
// same order, but PyTorch's CPU kernels fuse a + alpha * b into one FMA where
// we may round twice. A step rounds four times (g, buf, the Nesterov sum, w);
// each may differ by up to half an ulp of its operands, which stay below 4 in
// magnitude here (|w| < 1, |g| < 1.1, |buf| < 4.5), i.e. 2^-23 x 4 / 2 at
// most, and differences carry over to later steps: 4 x 2^-23 per step taken
// (scaled up for values above 1). Measured: at most 2.4 x 2^-23 after five
// steps. A wrong formula is far larger: a missed weight decay alone is
// 1e-2 x 0.5 x lr = 5e-4, two hundred times the bound.
double tolerance(std::size_t steps_taken, double magnitude) {
  return 4.0 * double(steps_taken) * std::ldexp(std::max(1.0, magnitude), -23);
}

std::size_t count_mismatches(const std::vector<float>& ours, const std::vector<float>& torch,
                             std::size_t steps_taken, const std::string& what) {
  REQUIRE(ours.size() == torch.size());
  std::size_t bad = 0;
  for (std::size_t k = 0; k < ours.size(); ++k)
    if (std::abs(double(ours[k]) - torch[k]) > tolerance(steps_taken, std::abs(torch[k])))
      if (bad++ < 3)
        UNSCOPED_INFO(what << "[" << k << "]: ours " << ours[k] << ", torch " << torch[k]);
  return bad;
}

enum class Driver { kBackend, kSgd };

void compare_with_torch(Driver driver) {
  for (std::size_t c = 0; c < kConfigs.size(); ++c) {
    const Config& config = kConfigs[c];
    Model model;
    const Inputs in = make_inputs(model);
    const SafetensorsFile& torch = torch_reference(model, in);
    Backend& backend = *model.backend;
    for (std::size_t i = 0; i < kNames.size(); ++i)
      backend.write(model.parameters[i].tensors->value, in.init[i]);
    Sgd sgd(backend, model.parameters,
            {config.momentum, config.dampening, config.nesterov, config.weight_decay});

    for (std::size_t s = 0; s < kRates.size(); ++s) {
      for (std::size_t i = 0; i < kNames.size(); ++i) {
        std::vector<float> scaled = in.grads[s][i];
        for (float& g : scaled) g *= float(config.loss_scale);  // exact: a power of two
        backend.write(model.parameters[i].tensors->grad, scaled);
      }
      if (driver == Driver::kSgd) {
        CHECK(sgd.has_momentum() == (s > 0));
        sgd.step(kRates[s], config.loss_scale);
      } else {
        for (Parameter& p : model.parameters)
          backend.sgd_update(*p.tensors, {kRates[s], config.momentum, config.dampening,
                                          p.weight_decay ? config.weight_decay : 0.0,
                                          config.loss_scale, config.nesterov, s == 0});
      }
      for (std::size_t i = 0; i < kNames.size(); ++i) {
        const std::string key =
            "c" + std::to_string(c) + ".s" + std::to_string(s) + "." + kNames[i];
        INFO("config " << c << " step " << s << " " << model.parameters[i].name);
        CHECK(count_mismatches(backend.to_host(model.parameters[i].tensors->value),
                               torch.read(key + ".value").values<float>(), s + 1, "value") == 0);
        CHECK(count_mismatches(backend.to_host(model.parameters[i].tensors->momentum),
                               torch.read(key + ".buf").values<float>(), s + 1, "momentum") == 0);
      }
    }

    // Backward-data reads the mirror (on AVX-512): it must hold the weight
    // PyTorch ended with, not the one written before the updates.
    const Tensor x = backend.from_host(kInput, in.x), dy = backend.from_host(kOutput, in.dy);
    const std::uint64_t reorders = backend.stats().weight_reorders;
    model.conv->forward(x, Mode::kTrain);
    const Tensor dx_tensor = model.conv->backward(dy);
    // No weight reorder: backward-data read the mirror (or the forward
    // layout, where both passes want the same), never a fresh copy.
    CHECK(backend.stats().weight_reorders == reorders);
    const std::vector<float> dx = backend.to_host(dx_tensor);
    const std::vector<double> expected =
        torch.read("c" + std::to_string(c) + ".dx").values<double>();
    REQUIRE(dx.size() == expected.size());
    double worst = 0.0, scale = 0.0;
    for (std::size_t k = 0; k < dx.size(); ++k) {
      worst = std::max(worst, std::abs(dx[k] - expected[k]));
      scale = std::max(scale, std::abs(expected[k]));
    }
    // A float32 sum of 288 products against float64: 1e-5 of the largest
    // value is ample; a stale weight is off by several percent.
    INFO("config " << c << ": backward-data differs by " << worst << " (largest " << scale << ")");
    CHECK(worst <= 1e-5 * scale);
  }
}

}  // namespace

TEST_CASE("Backend::sgd_update on a blocked convolution weight follows torch.optim.SGD", "[unit]") {
  compare_with_torch(Driver::kBackend);
}

TEST_CASE("Sgd applies weight decay to the decay group only and follows torch.optim.SGD",
          "[unit]") {
  compare_with_torch(Driver::kSgd);
}
